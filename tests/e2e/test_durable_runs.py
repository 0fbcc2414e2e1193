"""Durable runs as a user meets them: kill -9 and resume, Ctrl-C, history, fork, show, the REPL, graphs."""

from __future__ import annotations

import json
import shutil
import signal
import time
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.e2e.test_chat_cli import call, runs_json, tool_results
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e


def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)


def test_kill_9_mid_tool_call_then_resume_repeats_no_side_effect(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    log = cli.cwd / "side-effects.log"
    model_server.add_turns([
        {"tool_calls": [call("bash", command="echo first >> side-effects.log"),
                        call("bash", "call_2", command="echo second >> side-effects.log && sleep 60")]},
        {"content": "Both commands were handled."},
    ])
    proc = cli.popen("run", "chat", "log twice", "--auto-approve")
    wait_for(lambda: log.exists() and "second" in log.read_text())
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    [run] = runs_json(cli)
    assert run["status"] == "interrupted"

    resumed = cli.run("resume", run["id"], "--auto-approve")
    assert resumed.returncode == 0, resumed.stderr
    assert "Both commands were handled." in resumed.stdout
    assert log.read_text() == "first\nsecond\n"  # neither command ran a second time
    first, second = tool_results(model_server.requests[-1])
    assert first == "exit code 0\n"
    assert "interrupted when the process running it stopped" in second
    assert runs_json(cli)[0]["status"] == "done"


def test_ctrl_c_interrupts_and_resume_finishes(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "slow answer", "delay": 30}, {"content": "fast answer"}])
    proc = cli.popen("run", "chat", "take your time")
    wait_for(lambda: len(model_server.requests) == 1)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    run = runs_json(cli)[0]
    assert run["status"] == "interrupted"
    resumed = cli.run("resume", run["id"])
    assert resumed.returncode == 0, resumed.stderr
    assert "fast answer" in resumed.stdout


def test_history_show_and_fork_with_a_changed_message(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"tool_calls": [call("read_file", path="README.md")]}, {"content": "It is a demo."}])
    assert cli.run("run", "chat", "what is this?").returncode == 0
    run_id = runs_json(cli)[0]["id"]

    steps = json.loads(cli.run("history", run_id, "--json").stdout)
    assert [s["node"] for s in steps] == ["input", "__start__", "model", "gate", "tools", "model"]
    assert [s["step"] for s in steps] == [-1, 0, 1, 2, 3, 4]
    assert "user: what is this?" in steps[1]["summary"]
    assert "assistant calls read_file(README.md)" in steps[2]["summary"]
    assert "gate: 1 approved, 0 denied" in steps[3]["summary"]
    table = cli.run("history", run_id).stdout
    assert "assistant calls read_file" in table and steps[2]["checkpoint_id"] in table

    shown = cli.run("show", run_id)
    assert "what is this?" in shown.stdout and "A demo project." in shown.stdout and "It is a demo." in shown.stdout

    model_server.add_turns([{"content": "Forked answer about the tests."}])
    forked = cli.run("fork", run_id, "--at", "0", "--message", "what are the tests?")
    assert forked.returncode == 0, forked.stderr
    assert "Forked answer about the tests." in forked.stdout
    sent = [m["content"] for m in model_server.requests[-1]["messages"] if m["role"] == "user"]
    assert sent == ["what are the tests?"]
    runs = {r["id"]: r for r in runs_json(cli)}
    child = next(r for r in runs.values() if r["id"] != run_id)
    assert child["parent_id"] == run_id and child["parent_checkpoint"] == steps[1]["checkpoint_id"]
    parent_show = json.loads(cli.run("show", run_id, "--json").stdout)
    assert parent_show["messages"][-1]["content"] == "It is a demo."  # the original branch is untouched

    by_id = cli.run("fork", run_id, "--at", "no-such-checkpoint")
    assert by_id.returncode == 1 and "matches no checkpoint" in by_id.stderr


def test_repl_with_piped_input(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "first reply"}, {"content": "second reply"}])
    result = cli.run("chat", input="hello\nand a \\\nsecond line\n/runs\n/bogus\n/exit\n")
    assert result.returncode == 0, result.stderr
    assert "first reply" in result.stdout and "second reply" in result.stdout
    assert "unknown command /bogus" in result.stdout
    second_request_users = [m["content"] for m in model_server.requests[1]["messages"] if m["role"] == "user"]
    assert second_request_users == ["hello", "and a \nsecond line"]  # one conversation, multi-line input
    [run] = runs_json(cli)
    assert run["title"] == "hello"

    model_server.add_turns([{"content": "third reply"}])
    again = cli.run("chat", input=f"/resume {run['id']}\nmore\n")
    assert again.returncode == 0 and "third reply" in again.stdout
    assert len([m for m in model_server.requests[-1]["messages"] if m["role"] == "user"]) == 3


def test_graph_drawings_are_offline(cli: Cli, tmp_path: Path) -> None:
    ascii_art = cli.run("graph", "chat")
    assert ascii_art.returncode == 0
    for node in ("model", "gate", "tools"):
        assert node in ascii_art.stdout
    mermaid = cli.run("graph", "chat", "--format", "mermaid").stdout
    assert "model -.-> gate" in mermaid and "gate -.-> tools" in mermaid and "gate -.-> subagent" in mermaid
    unknown = cli.run("graph", "nope")
    assert unknown.returncode == 1 and "unknown flow 'nope'" in unknown.stderr
    png = cli.run("graph", "chat", "--format", "png", "-o", str(tmp_path / "chat.png"))
    if shutil.which("dot"):
        assert png.returncode == 0, png.stderr
        assert (tmp_path / "chat.png").read_bytes().startswith(b"\x89PNG")
    else:
        assert png.returncode == 1 and "apt-get install graphviz" in png.stderr
