"""The helium agent (the coding flow's loop) driving trials, its model a scripted OpenAI-compatible server on
127.0.0.1: tools run in the task's sandbox, approvals are the sandbox policy's and audited, the trial is a
checkpointed run with a history, and the API key reaches neither the outputs nor the store."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from helium import AgentRunner, RunResult
from helium.cli.session import checkpoint_history
from helium.config import Settings
from helium.state.store import ProjectStore
from tests.runner.conftest import TASKS, TaskMaker, assert_secret_absent, valid_atif
from tests.support.scripted_openai import ScriptedOpenAIServer

KEY = "sk-scripted-marker-77"


def bash(call_id: str, command: str) -> dict:
    return {"id": call_id, "name": "bash", "arguments": {"command": command}}


@pytest.fixture
def model_settings(settings: Settings, model_server: ScriptedOpenAIServer) -> Settings:
    return replace(settings, model="scripted", base_url=model_server.base_url, api_key=KEY)


def run_trial(task: str, settings: Settings, out: Path, provider: str = "local") -> RunResult:
    runner = AgentRunner(TASKS / task, model="scripted", provider=provider, output_dir=out, settings=settings)
    return asyncio.run(runner.run())


def test_helium_agent_creates_the_hello_file(model_settings: Settings, model_server: ScriptedOpenAIServer,
                                             tmp_path: Path) -> None:
    model_server.add_turns([
        {"content": "I'll write the file.", "tool_calls": [bash("c1", "echo 'Hello World' > /home/hello.txt")]},
        {"tool_calls": [bash("c2", "cat /home/hello.txt")]},
        {"content": "Created /home/hello.txt with Hello World."},
    ])
    result = run_trial("create-hello-file", model_settings, tmp_path / "out")
    assert (result.success, result.reward, result.error) == (True, 1.0, None)
    assert [(s.tool_name, s.tool_input["command"]) for s in result.trajectory] == [
        ("bash", "echo 'Hello World' > /home/hello.txt"), ("bash", "cat /home/hello.txt")]
    assert "Hello World" in result.trajectory[1].tool_output
    assert model_server.remaining == 0
    first_request = model_server.requests[0]
    assert "Create a file at `/home/hello.txt`" in json.dumps(first_request["messages"])
    assert "bash" in json.dumps(first_request.get("tools", []))

    atif = valid_atif(result.output_dir / "agent" / "trajectory.json")
    assert atif["agent"]["model_name"] == "scripted"
    assert [s["source"] for s in atif["steps"]] == ["system", "user", "agent", "agent", "agent"]
    assert atif["steps"][2]["message"] == "I'll write the file."
    assert atif["steps"][2]["metrics"]["prompt_tokens"] > 0
    assert atif["final_metrics"]["total_completion_tokens"] > 0

    run_id = json.loads((result.output_dir / "result.json").read_text())["run_id"]
    with ProjectStore(model_settings.db_path) as store:
        run = store.runs.get(run_id)
        assert (run.flow, run.status, run.model) == ("task", "done", "scripted")
        assert run.tokens_in > 0
        assert {e.decided_by for e in store.audit.entries(run_id)} == {"sandbox-policy"}
        nodes = [step["node"] for step in checkpoint_history(store, run_id)]
    assert nodes == ["input", "__start__", "model", "gate", "tools", "model", "gate", "tools", "model"]
    assert_secret_absent(KEY, result.output_dir, model_settings.db_path)


@pytest.mark.parametrize("provider", ["local", "docker"])
def test_helium_agent_fixes_the_failing_test_with_file_tools(model_settings: Settings,
                                                             model_server: ScriptedOpenAIServer, tmp_path: Path,
                                                             provider: str, request: pytest.FixtureRequest) -> None:
    if provider == "docker":
        request.getfixturevalue("docker_engine")
    model_server.add_turns([
        {"tool_calls": [bash("r1", "python3 /app/test_calc.py"),
                        {"id": "r2", "name": "read_file", "arguments": {"path": "/app/calc.py"}}]},
        {"content": "mean divides by n - 1.",
         "tool_calls": [{"id": "e1", "name": "edit_file",
                         "arguments": {"path": "calc.py", "old_text": "(len(values) - 1)",
                                       "new_text": "len(values)"}}]},
        {"tool_calls": [bash("t1", "python3 test_calc.py")]},
        {"content": "Fixed mean() in calc.py; the tests pass."},
    ])
    result = run_trial("fix-failing-test", model_settings, tmp_path / "out", provider=provider)
    assert result.success, result.error
    ran, read, edit, check = result.trajectory
    assert "mean([2, 4, 6]) should be 4" in ran.tool_output  # the agent saw the real failure in the sandbox
    assert "return sum(values) / (len(values) - 1)" in read.tool_output
    assert edit.tool_output.startswith("replaced 1 occurrence")
    assert "all tests passed" in check.tool_output


def test_helium_agent_that_gives_up_fails_without_error(model_settings: Settings,
                                                        model_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    model_server.add_turns([{"content": "I cannot do this."}])
    result = run_trial("create-hello-file", model_settings, tmp_path / "out")
    assert (result.success, result.reward, result.error, result.status) == (False, 0.0, None, "failed")


def test_unreachable_model_is_an_agent_error(settings: Settings, tmp_path: Path) -> None:
    offline = replace(settings, model="scripted", base_url="http://127.0.0.1:9/v1", max_retries=0)
    result = run_trial("create-hello-file", offline, tmp_path / "out")
    assert result.status == "error"
    assert result.error.startswith("agent: cannot reach the model endpoint at http://127.0.0.1:9/v1")


def test_a_model_that_hangs_is_cut_at_the_agent_timeout(model_settings: Settings, model_server: ScriptedOpenAIServer,
                                                        tmp_path: Path, make_task: TaskMaker) -> None:
    model_server.add_turns([{"content": "thinking…", "delay": 60}])
    task = make_task("slow-model", solve="true", test="echo 0 > /logs/verifier/reward.txt",
                     toml="[agent]\ntimeout_sec = 2\n")
    runner = AgentRunner(task, model="scripted", provider="local", output_dir=tmp_path / "out",
                         settings=model_settings)
    result = asyncio.run(runner.run())
    assert result.error == "agent timed out after 2s (the task's [agent] timeout_sec)"
    assert result.duration < 20
    assert (result.output_dir / "verifier" / "reward.txt").is_file()  # scored all the same
