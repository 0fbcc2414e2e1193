"""The chat flow as a user runs it: `helium run chat`, tools, approvals, audit, errors, exit codes."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Cli
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e


def call(name: str, call_id: str = "call_1", **arguments: object) -> dict:
    return {"id": call_id, "name": name, "arguments": arguments}


def runs_json(cli: Cli) -> list[dict]:
    result = cli.run("runs", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def audit_json(cli: Cli, run_id: str) -> list[dict]:
    result = cli.run("audit", run_id, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def tool_results(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_help_lists_commands_and_each_has_examples(cli: Cli) -> None:
    top = cli.run("--help")
    assert top.returncode == 0
    for command in ("chat", "runs", "resume", "history", "fork", "show", "audit", "graph", "run"):
        assert command in top.stdout
    for command in (["run"], ["run", "chat"], ["chat"], ["runs"], ["resume"], ["history"], ["fork"], ["show"], ["audit"],
                    ["graph"]):
        assert "Examples" in cli.run(*command, "--help").stdout, command
    assert cli.run("--version").stdout.startswith("helium ")


def test_one_shot_chat_streams_the_answer_and_records_usage(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "Hello from the scripted model, streamed word by word.",
                             "usage": {"prompt_tokens": 120, "completion_tokens": 12}}])
    result = cli.run("run", "chat", "say hello")
    assert result.returncode == 0, result.stderr
    assert "Hello from the scripted model, streamed word by word." in result.stdout
    assert "120 tokens in / 12 out" in result.stderr
    assert model_server.requests[0]["stream"] is True
    [run] = runs_json(cli)
    assert (run["flow"], run["status"], run["title"]) == ("chat", "done", "say hello")
    assert (run["tokens_in"], run["tokens_out"], run["cost"]) == (120, 12, None)

    model_server.add_turns([{"content": "Scripted JSON answer.", "usage": {"prompt_tokens": 5, "completion_tokens": 3}}])
    scripted = cli.run("run", "chat", "again", "--json", "--model", "openai/gpt-4o-mini")
    assert scripted.returncode == 0, scripted.stderr
    result = json.loads(scripted.stdout)
    assert (result["status"], result["answer"], result["denied"]) == ("done", "Scripted JSON answer.", [])
    assert result["cost"] == pytest.approx((5 * 0.15 + 3 * 0.60) / 1e6)
    finished = cli.run("resume", result["run_id"])
    assert finished.returncode == 1 and "nothing left to do; add --message" in finished.stderr


def test_read_only_tools_run_and_their_output_reaches_the_model(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [call("read_file", path="README.md"), call("grep", "call_2", pattern="greet"),
                        call("bash", "call_3", command="ls src")]},
        {"content": "It is a demo project."},
    ])
    result = cli.run("run", "chat", "what is this?")
    assert result.returncode == 0, result.stderr
    outputs = tool_results(model_server.requests[1])
    assert "A demo project." in outputs[0]
    assert "src/app.py:1: def greet(name):" in outputs[1]
    assert outputs[2] == "exit code 0\napp.py\n"
    run_id = runs_json(cli)[0]["id"]
    assert [(e["tool"], e["decision"], e["decided_by"]) for e in audit_json(cli, run_id)] == [
        ("read_file", "approved", "policy"), ("grep", "approved", "policy"), ("bash", "approved", "policy")]


def test_headless_run_denies_risky_calls_reports_them_and_exits_3(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [call("bash", command="rm -rf src"), call("write_file", "call_2", path="x.txt", content="x")]},
        {"content": "I could not delete it."},
    ])
    result = cli.run("run", "chat", "clean up")
    assert result.returncode == 3, result.stderr
    assert (cli.cwd / "src" / "app.py").exists() and not (cli.cwd / "x.txt").exists()
    assert "denied 2 call(s)" in result.stderr and "rm -rf src" in result.stderr
    assert all("permission denied" in out for out in tool_results(model_server.requests[1]))
    run_id = runs_json(cli)[0]["id"]
    entries = audit_json(cli, run_id)
    assert [(e["tool"], e["arguments"], e["decision"], e["decided_by"]) for e in entries] == [
        ("bash", {"command": "rm -rf src"}, "denied", "deny-mode"),
        ("write_file", {"path": "x.txt", "content": "x"}, "denied", "deny-mode")]
    assert entries[0]["checkpoint_id"]
    printed = cli.run("audit", run_id)
    assert "rm -rf src" in printed.stdout and "denied" in printed.stdout


def test_auto_approve_runs_risky_calls_and_audits_them(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [call("write_file", path="notes/todo.txt", content="ship it\n")]},
        {"tool_calls": [call("edit_file", "call_2", path="notes/todo.txt", old_text="ship", new_text="test")]},
        {"content": "Done."},
    ])
    result = cli.run("run", "chat", "write a note", "--auto-approve")
    assert result.returncode == 0, result.stderr
    assert (cli.cwd / "notes" / "todo.txt").read_text() == "test it\n"
    run_id = runs_json(cli)[0]["id"]
    assert [(e["decision"], e["decided_by"]) for e in audit_json(cli, run_id)] == [
        ("approved", "auto-approve"), ("approved", "auto-approve")]


def test_rules_in_permissions_toml_allow_and_deny(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    (cli.cwd / ".helium").mkdir()
    (cli.cwd / ".helium" / "permissions.toml").write_text(
        '[[allow]]\ntool = "bash"\nmatch = "touch *"\n\n[[deny]]\ntool = "read_file"\nmatch = "*.md"\n')
    model_server.add_turns([
        {"tool_calls": [call("bash", command="touch made-by-rule"), call("read_file", "call_2", path="README.md")]},
        {"content": "ok"},
    ])
    result = cli.run("run", "chat", "go")
    assert result.returncode == 3, result.stderr
    assert (cli.cwd / "made-by-rule").exists()
    run_id = runs_json(cli)[0]["id"]
    assert [(e["tool"], e["decision"], e["decided_by"]) for e in audit_json(cli, run_id)] == [
        ("bash", "approved", "rule"), ("read_file", "denied", "rule")]


def test_file_tools_refuse_paths_and_symlinks_outside_the_workspace(cli: Cli, model_server: ScriptedOpenAIServer,
                                                                    tmp_path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (cli.cwd / "link").symlink_to(secret)
    model_server.add_turns([
        {"tool_calls": [call("read_file", path="../secret.txt"), call("read_file", "call_2", path="link"),
                        call("read_file", "call_3", path=str(secret))]},
        {"content": "refused"},
    ])
    result = cli.run("run", "chat", "read the secret")
    assert result.returncode == 0, result.stderr
    outputs = tool_results(model_server.requests[1])
    assert len(outputs) == 3
    assert all("outside the workspace" in out and "top secret" not in out for out in outputs)


def test_unknown_tools_and_malformed_arguments_go_back_to_the_model(cli: Cli,
                                                                    model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [call("launch_rockets", count=3),
                        {"id": "call_2", "name": "read_file", "arguments": '{"path": README.md}'},
                        call("read_file", "call_3", wrong_field=1)]},
        {"content": "Sorry, let me answer directly."},
    ])
    result = cli.run("run", "chat", "do things")
    assert result.returncode == 0, result.stderr
    assert "Sorry, let me answer directly." in result.stdout
    joined = "\n".join(tool_results(model_server.requests[1]))
    assert "unknown tool 'launch_rockets'" in joined
    assert "not valid JSON" in joined
    assert "invalid arguments for read_file" in joined


def test_huge_tool_output_is_truncated_with_a_note(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    (cli.cwd / "big.txt").write_text(("y" * 999 + "\n") * 200)
    model_server.add_turns([{"tool_calls": [call("read_file", path="big.txt")]}, {"content": "big"}])
    result = cli.run("run", "chat", "read big.txt")
    assert result.returncode == 0, result.stderr
    [output] = tool_results(model_server.requests[1])
    assert "[output truncated:" in output
    assert len(output) < 21_000


def test_rate_limits_are_retried_with_backoff(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"status": 429}, {"status": 503}, {"content": "made it"}])
    result = cli.run("run", "chat", "hi")
    assert result.returncode == 0, result.stderr
    assert "made it" in result.stdout
    assert len(model_server.requests) == 3


def test_endpoint_failing_past_retries_leaves_a_resumable_run(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"tool_calls": [call("list_dir", path=".")]}] + [{"status": 500}] * 4)
    result = cli.run("run", "chat", "look around")
    assert result.returncode == 1
    assert "answered HTTP 500 after 3 retries" in result.stderr
    assert "Traceback" not in result.stderr
    run = runs_json(cli)[0]
    assert run["status"] == "failed"
    model_server.add_turns([{"content": "recovered"}])
    resumed = cli.run("resume", run["id"])
    assert resumed.returncode == 0, resumed.stderr
    assert "recovered" in resumed.stdout
    assert runs_json(cli)[0]["status"] == "done"
    # the list_dir call ran once: the resumed request carries its single result
    assert len(tool_results(model_server.requests[-1])) == 1


@pytest.mark.parametrize(("env", "expected"), [
    ({"HELIUM_BASE_URL": "http://127.0.0.1:9/v1"}, "cannot reach the model endpoint at http://127.0.0.1:9/v1"),
    ({"HELIUM_BASE_URL": "", "HELIUM_MODEL": "openai/gpt-4o-mini"}, "needs an API key: set --api-key or HELIUM_API_KEY"),
    ({"HELIUM_BASE_URL": "", "HELIUM_MODEL": "mystery-model"}, "--base-url / HELIUM_BASE_URL"),
])
def test_model_setup_errors_are_one_line_naming_the_setting(cli: Cli, env: dict, expected: str) -> None:
    result = cli.run("run", "chat", "hi", env=env)
    assert result.returncode == 1
    assert expected in result.stderr
    assert "Traceback" not in result.stderr


def test_ask_mode_without_a_terminal_pauses_and_resume_approves(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"tool_calls": [call("write_file", path="later.txt", content="approved later")]},
                            {"content": "written"}])
    result = cli.run("run", "chat", "write later.txt", "--approve", "ask")
    assert result.returncode == 4, result.stderr
    run = runs_json(cli)[0]
    assert run["status"] == "waiting-approval"
    assert "waiting for approval" in cli.run("history", run["id"]).stdout
    assert not (cli.cwd / "later.txt").exists()
    resumed = cli.run("resume", run["id"], "--auto-approve")
    assert resumed.returncode == 0, resumed.stderr
    assert (cli.cwd / "later.txt").read_text() == "approved later"
    assert [e["decided_by"] for e in audit_json(cli, run["id"])] == ["auto-approve"]


def test_prompt_mode_tool_calling_with_one_repair(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"content": 'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}\n</tool_call>'},
        {"content": 'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>'},
        {"content": "A demo project."},
    ])
    result = cli.run("run", "chat", "what is it?", "--tool-calling", "prompt")
    assert result.returncode == 0, result.stderr
    assert "tools" not in model_server.requests[0]
    assert "malformed tool call" in model_server.requests[1]["messages"][-1]["content"]
    assert "<tool_result name=\"read_file\">" in model_server.requests[2]["messages"][-1]["content"]
    assert "A demo project." in model_server.requests[2]["messages"][-1]["content"]


def test_prompt_mode_gives_up_after_a_second_malformed_call(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "<tool_call>not json</tool_call>"}] * 2)
    result = cli.run("run", "chat", "hi", "--tool-calling", "prompt")
    assert result.returncode == 1
    assert "malformed twice" in result.stderr and "Traceback" not in result.stderr


def test_api_key_never_reaches_the_store(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"tool_calls": [call("bash", command="env")]}, {"content": "done"}])
    result = cli.run("run", "chat", "print env", "--api-key", "sk-very-secret-key-123")
    assert result.returncode == 0, result.stderr
    for path in (cli.cwd / ".helium").rglob("*"):
        if path.is_file():
            assert b"sk-very-secret-key-123" not in path.read_bytes(), path
    assert "sk-very-secret-key-123" not in cli.run("show", runs_json(cli)[0]["id"]).stdout


def test_corrupt_store_gives_a_clear_message(cli: Cli) -> None:
    (cli.cwd / ".helium").mkdir()
    (cli.cwd / ".helium" / "helium.db").write_bytes(b"this is not a database" * 100)
    result = cli.run("runs")
    assert result.returncode == 1
    assert "is corrupt" in result.stderr and "Traceback" not in result.stderr


def test_unknown_run_id_is_one_line(cli: Cli) -> None:
    result = cli.run("show", "nope")
    assert result.returncode == 1
    assert result.stderr.strip() == "error: no run 'nope' in this project: `helium runs` lists them"
