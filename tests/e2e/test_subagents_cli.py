"""Subagents as a user meets them: parallel delegation, tool limits enforced and audited, kill -9 and resume."""

from __future__ import annotations

import json
import signal

import pytest

from tests.conftest import Cli
from tests.e2e.test_chat_cli import audit_json, call, runs_json, tool_results
from tests.e2e.test_durable_runs import wait_for
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e


def delegate(call_id: str, name: str, task: str, tools: list[str], **more: object) -> dict:
    return {"id": call_id, "name": "delegate",
            "arguments": {"name": name, "role": f"You are the {name}.", "task": task, "allowed_tools": tools, **more}}


def test_two_subagents_run_in_parallel_each_with_its_own_tools(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [delegate("d1", "reader", "TASK-A: read the README", ["read_file"]),
                        delegate("d2", "searcher", "TASK-B: find greet", ["grep"])]},
        {"when": "TASK-A", "tool_calls": [call("read_file", "a1", path="README.md")]},
        {"when": "TASK-B", "tool_calls": [call("bash", "b1", command="ls"), call("grep", "b2", pattern="greet")]},
        {"when": '"a1"', "content": "README says: A demo project."},
        {"when": '"b2"', "content": "greet is in src/app.py."},
        {"content": "Both subagents reported back."},
    ])
    result = cli.run("run", "chat", "use two helpers", "--auto-approve")
    assert result.returncode == 3, result.stderr  # the searcher's bash call was refused
    assert "Both subagents reported back." in result.stdout
    reader, searcher = sorted(tool_results(model_server.requests[-1]))
    assert reader.startswith("README says: A demo project.") and "[subagent reader: 2 turns; tools: read_file]" in reader
    assert searcher.startswith("greet is in src/app.py.") and "tools: bash, grep" in searcher

    by_task = {("TASK-A" if "TASK-A" in json.dumps(r) else "TASK-B"): r for r in model_server.requests[1:3]}
    assert [t["function"]["name"] for t in by_task["TASK-A"]["tools"]] == ["read_file"]
    assert [t["function"]["name"] for t in by_task["TASK-B"]["tools"]] == ["grep"]
    assert "You are the searcher." in by_task["TASK-B"]["messages"][0]["content"]

    entries = {e["tool_call_id"]: e for e in audit_json(cli, runs_json(cli)[0]["id"])}
    assert (entries["b1"]["decision"], entries["b1"]["decided_by"]) == ("denied", "subagent-policy")
    assert "not among subagent searcher's allowed tools (grep)" in entries["b1"]["reason"]
    assert entries["a1"]["decision"] == entries["d1"]["decision"] == "approved"


def test_killing_the_parent_mid_subagent_and_resuming_completes_both(cli: Cli,
                                                                     model_server: ScriptedOpenAIServer) -> None:
    log = cli.cwd / "subagent.log"
    model_server.add_turns([
        {"tool_calls": [delegate("d1", "slow", "TASK-SLOW", ["bash"]), delegate("d2", "quick", "TASK-QUICK", [])]},
        {"when": "TASK-SLOW", "tool_calls": [call("bash", "s1", command="echo slow >> subagent.log && sleep 60")]},
        {"when": "TASK-QUICK", "content": "quick is done"},
        {"when": '"s1"', "content": "slow is done"},
        {"content": "All helpers finished."},
    ])
    proc = cli.popen("run", "chat", "delegate", "--auto-approve")
    wait_for(lambda: log.exists() and model_server.remaining == 2)  # slow is in its command, quick has answered
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    run = runs_json(cli)[0]
    assert run["status"] == "interrupted"

    resumed = cli.run("resume", run["id"], "--auto-approve")
    assert resumed.returncode == 0, resumed.stderr
    assert "All helpers finished." in resumed.stdout
    assert log.read_text() == "slow\n"  # the slow subagent's command did not run twice
    results = sorted(tool_results(model_server.requests[-1]))
    assert results[0].startswith("quick is done") and results[1].startswith("slow is done")
    [quick] = [r for r in model_server.requests if "TASK-QUICK" in json.dumps(r["messages"][-1])]
    assert not quick.get("tools")  # allowed_tools [] means no tools at all, not all of the parent's
    assert "interrupted when the process running it stopped" in json.dumps(model_server.requests[-2])
    steps = json.loads(cli.run("history", run["id"], "--json").stdout)
    assert any(s["node"].startswith("subagent") for s in steps)


def rendezvous(mine: str, theirs: str) -> str:
    """A command that finishes with `met` only if the other subagent's command runs at the same time."""
    return (f"touch {mine}.flag; for i in $(seq 150); do [ -f {theirs}.flag ] && break; sleep 0.1; done; "
            f"[ -f {theirs}.flag ] && echo met-{mine} || echo alone-{mine}")


def test_subagents_with_the_same_name_run_at_the_same_time_under_their_own_ids(
        cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [delegate("d1", "researcher", "TASK-A", ["bash"]),
                        delegate("d2", "researcher", "TASK-B", ["bash"])]},
        {"when": "TASK-A", "tool_calls": [call("bash", "a1", command=rendezvous("a", "b"))]},
        {"when": "TASK-B", "tool_calls": [call("bash", "b1", command=rendezvous("b", "a"))]},
        {"when": '"a1"', "content": "A finished"},
        {"when": '"b1"', "content": "B finished"},
        {"content": "Both researchers reported back."},
    ])
    result = cli.run("run", "chat", "two researchers", "--auto-approve")
    assert result.returncode == 0, result.stderr
    outputs = [r for request in model_server.requests for r in tool_results(request) if "-a" in r or "-b" in r]
    assert any("met-a" in r for r in outputs) and any("met-b" in r for r in outputs), outputs  # not one after the other
    first, second = sorted(tool_results(model_server.requests[-1]))
    assert first.startswith("A finished") and second.startswith("B finished")
    assert "[subagent researcher: 2 turns; tools: bash]" in first and "[subagent researcher:" in second
    steps = json.loads(cli.run("history", runs_json(cli)[0]["id"], "--json").stdout)
    namespaces = {s["summary"].rsplit("(namespace ", 1)[-1] for s in steps if s["node"] == "subagent researcher"}
    assert len(namespaces) == 2  # one checkpoint namespace (the subagent's id) each, though their names are equal


def test_a_turn_limit_below_one_is_a_tool_error_for_the_model(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [delegate("d1", "helper", "TASK-A", [], max_turns=-1)]},
        {"content": "I will do it myself."},
    ])
    result = cli.run("run", "chat", "delegate badly", "--auto-approve")
    assert result.returncode == 0, result.stderr
    [error] = tool_results(model_server.requests[-1])
    assert "invalid arguments for delegate" in error and "max_turns" in error
