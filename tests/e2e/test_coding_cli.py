"""`helium run code` as a user runs it: file tools, bash in the local environment, AGENTS.md, turn limit."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import Cli
from tests.e2e.test_chat_cli import call, runs_json, tool_results
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e


def test_coding_task_writes_and_runs_code_in_the_sandbox(cli: Cli, model_server: ScriptedOpenAIServer, tmp_path) -> None:
    (cli.cwd / "AGENTS.md").write_text("Always use four spaces.\n")
    outside = tmp_path / "outside.txt"
    model_server.add_turns([
        {"tool_calls": [call("write_file", path="hello.py", content="print('hello from helium')\n")]},
        {"tool_calls": [call("bash", "call_2", command="python3 hello.py"),
                        call("bash", "call_3", command=f"echo escaped > {outside}")]},
        {"content": "Created hello.py and ran it."},
    ])
    result = cli.run("run", "code", "create hello.py", "--auto-approve")
    assert result.returncode == 0, result.stderr
    assert "Created hello.py and ran it." in result.stdout
    system = model_server.requests[0]["messages"][0]["content"]
    assert "software engineer" in system and "Always use four spaces." in system
    wrote, ran, escaped = tool_results(model_server.requests[2])
    assert wrote.startswith("wrote 27 bytes to hello.py")
    assert ran == "exit code 0\nhello from helium\n"
    run = runs_json(cli)[0]
    assert (run["flow"], run["status"], run["extra"]) == ("code", "done", {"environment": "local"})
    if shutil.which("bwrap"):
        assert "sandbox: bubblewrap" in result.stdout
        assert escaped == "exit code 0\n" and not outside.exists()  # it went to the sandbox's private /tmp
    else:
        assert "sandbox: none" in result.stdout and outside.exists()


def test_the_turn_limit_is_kept_with_the_run(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"tool_calls": [call("list_dir", path=".")]},
                            {"tool_calls": [call("list_dir", "call_2", path="src")]},
                            {"content": "finished"}])
    result = cli.run("run", "code", "explore", "--max-turns", "1", "--json")
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["hit_turn_limit"] is True and len(model_server.requests) == 1
    resumed = cli.run("resume", outcome["run_id"], "--message", "go on")
    assert resumed.returncode == 0, resumed.stderr
    assert len(model_server.requests) == 2  # still one turn at a time: the limit came back with the run


def test_unknown_environment_is_refused_before_anything_runs(cli: Cli) -> None:
    result = cli.run("run", "code", "x", "--env", "moon")
    assert result.returncode == 1 and "unknown environment 'moon'; available: local" in result.stderr
    assert runs_json(cli) == []


def test_the_todo_list_lives_in_the_run_and_shows_as_it_changes(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [call("todo_add", titles=["read the code", "write the fix"])]},
        {"tool_calls": [call("todo_update", "call_2", id=1, status="done"),
                        call("todo_update", "call_3", id=2, status="in_progress")]},
        {"content": "Planned and started."},
    ])
    result = cli.run("run", "code", "plan it")
    assert result.returncode == 0, result.stderr
    assert "[ ] 1. read the code" in result.stdout
    assert "[x] 1. read the code\n[>] 2. write the fix" in result.stdout
    tools = {t["function"]["name"] for t in model_server.requests[0]["tools"]}
    assert {"todo_add", "todo_update", "todo_list", "bash", "edit_file"} <= tools
    assert "todos" not in json.dumps(model_server.requests[0]["tools"])
    run_id = runs_json(cli)[0]["id"]
    history = json.loads(cli.run("history", run_id, "--json").stdout)
    assert "tool todo_update: [x] 1. read the code" in history[-2]["summary"]
