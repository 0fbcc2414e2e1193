"""Trials as a user of the Python API sees them: every example task with the oracle on local and on docker,
the nop agent, timeouts, the broken verifier, what lands in the output folder and in the project store."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import docker
import pytest

from helium import AgentRunner, BatchResult, ParallelRunner, RunResult, discover_tasks
from helium.config import Settings
from helium.errors import HeliumError
from helium.runner import TaskError
from helium.state.store import ProjectStore
from tests.runner.conftest import (
    TASKS,
    TaskMaker,
    assert_gone,
    assert_secret_absent,
    leftover_containers,
    orphaned_container,
    valid_atif,
)
from tests.support import fake_daytona

EXPECTED = {"broken-verifier": "error", "create-hello-file": "passed", "fix-failing-test": "passed",
            "rename-across-files": "passed", "text-statistics": "passed"}


def run_batch(settings: Settings, provider: str, tmp_path: Path, **options: object) -> BatchResult:
    runner = ParallelRunner(discover_tasks(TASKS), n_concurrent=2, provider=provider, output_dir=tmp_path / "out",
                            quiet=True, agent="oracle", settings=settings, **options)
    return asyncio.run(runner.run())


def check_oracle_batch(batch: BatchResult, settings: Settings) -> None:
    assert {t.task: t.status for t in batch.tasks} == EXPECTED
    assert (batch.total_tasks, batch.passed, batch.failed, batch.errored) == (5, 4, 0, 1)
    assert batch.mean_reward == pytest.approx(0.8)
    by_name = {t.task: t for t in batch.tasks}

    broken = by_name["broken-verifier"].result
    assert broken.reward == 0 and not broken.success
    assert broken.error == "verifier: reward.txt is not a number: 'passed-ish'"

    hello = by_name["create-hello-file"].result
    trial = hello.output_dir
    assert trial.parent == batch.output_dir and trial.name.startswith("create-hello-file_")
    assert (trial / "verifier" / "reward.txt").read_text().strip() == "1"
    assert "PASS" in (trial / "verifier" / "test-stdout.txt").read_text()
    config = json.loads((trial / "config.json").read_text())
    assert config["agent"] == "oracle" and config["task_config"]["agent_timeout_sec"] == 120.0
    result = json.loads((trial / "result.json").read_text())
    assert result["success"] is True and result["reward"] == 1.0 and result["status"] == "passed"
    atif = valid_atif(trial / "agent" / "trajectory.json")
    assert atif["schema_version"] == "ATIF-v1.4"
    assert [s["source"] for s in atif["steps"]] == ["system", "user", "agent", "agent"]
    assert "autonomous agent solving a benchmark task" in atif["steps"][0]["message"]
    assert atif["steps"][2]["tool_calls"][0]["arguments"]["command"] == "bash /solution/solve.sh"
    assert [s.tool_name for s in hello.trajectory] == ["bash"]
    assert hello.trajectory[0].tool_output.startswith("exit code 0")

    stats = json.loads((by_name["text-statistics"].result.output_dir / "result.json").read_text())
    assert stats["rewards"] == {"lines": 1.0, "words": 1.0, "chars": 1.0}

    with ProjectStore(settings.db_path) as store:
        runs = {r.id: r for r in store.runs.list(flow="task")}
        assert len(runs) == 5
        hello_run = runs[by_name["create-hello-file"].run_id]
        assert hello_run.status == "done"
        assert hello_run.extra["task"] == "create-hello-file" and hello_run.extra["reward"] == 1.0
        assert hello_run.extra["output_dir"] == str(trial) and hello_run.extra["agent"] == "oracle"
        broken_run = runs[by_name["broken-verifier"].run_id]
        assert broken_run.status == "failed" and "passed-ish" in broken_run.extra["error"]
        audit = store.audit.entries(hello_run.id)
        assert [(e.tool, e.decision, e.decided_by) for e in audit] == [("bash", "approved", "sandbox-policy")]


def test_oracle_solves_every_example_task_locally(settings: Settings, tmp_path: Path) -> None:
    batch = run_batch(settings, "local", tmp_path)
    check_oracle_batch(batch, settings)
    first = {t.task: t.result.output_dir for t in batch.tasks}["fix-failing-test"]
    assert json.loads((first / "result.json").read_text())["provider"] == "local"


def test_oracle_solves_every_example_task_in_docker(settings: Settings, tmp_path: Path,
                                                   docker_engine: docker.DockerClient) -> None:
    orphan = orphaned_container(docker_engine)
    batch = run_batch(settings, "docker", tmp_path)
    check_oracle_batch(batch, settings)
    assert leftover_containers(docker_engine, [t.result.output_dir for t in batch.tasks]) == []
    assert_gone(orphan)  # the batch removed it before its trials started


def test_oracle_trial_in_daytona_through_the_sdk_fake(settings: Settings, tmp_path: Path,
                                                      docker_engine: docker.DockerClient,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    marker = "dtn-secret-marker-9000"
    monkeypatch.setitem(sys.modules, "daytona", fake_daytona.fake_sdk())
    monkeypatch.setenv("DAYTONA_API_KEY", marker)
    result = asyncio.run(AgentRunner(TASKS / "create-hello-file", provider="daytona", output_dir=tmp_path / "out",
                                     agent="oracle", settings=settings).run())
    assert (result.success, result.error) == (True, None)
    assert json.loads((result.output_dir / "result.json").read_text())["provider"] == "daytona"
    assert_secret_absent(marker, result.output_dir, settings.db_path)


def test_nop_agent_fails_genuinely_and_pass_at_k_counts_tasks(settings: Settings, tmp_path: Path) -> None:
    runner = ParallelRunner([TASKS / "create-hello-file"], n_concurrent=2, provider="local", quiet=True,
                            output_dir=tmp_path / "out", agent="nop", settings=settings, attempts=2)
    batch = asyncio.run(runner.run())
    assert [(t.attempt, t.status, t.result.reward, t.result.error) for t in batch.tasks] == [
        (1, "failed", 0.0, None), (2, "failed", 0.0, None)]
    assert batch.failed == 2 and batch.pass_at_k == 0.0
    assert batch.tasks[0].result.trajectory == []


def test_agent_runner_reference_api(settings: Settings, tmp_path: Path) -> None:
    runner = AgentRunner(task_path=TASKS / "create-hello-file", provider="local", output_dir=tmp_path / "results",
                         agent="oracle", settings=settings)
    result = asyncio.run(runner.run())
    assert isinstance(result, RunResult)
    assert (result.success, result.reward, result.error) == (True, 1.0, None)
    assert 0 < result.duration < 60
    assert result.output_dir.parent == tmp_path / "results"
    step = result.trajectory[0]
    assert (step.tool_name, step.tool_input["command"]) == ("bash", "bash /solution/solve.sh")
    from helios import AgentRunner as CompatRunner

    assert CompatRunner is AgentRunner


@pytest.mark.parametrize("provider", ["local", "docker"])
def test_hanging_agent_is_cut_at_its_timeout(settings: Settings, tmp_path: Path, make_task: TaskMaker,
                                             provider: str, request: pytest.FixtureRequest) -> None:
    if provider == "docker":
        request.getfixturevalue("docker_engine")
    task = make_task("hangs", solve="echo started > /app/started; sleep 300; echo never > /app/done",
                     test="[ -f /app/done ] && echo 1 > /logs/verifier/reward.txt "
                          "|| echo 0 > /logs/verifier/reward.txt",
                     toml="[agent]\ntimeout_sec = 2\n")
    result = asyncio.run(AgentRunner(task, provider=provider, output_dir=tmp_path / "out", agent="oracle",
                                     settings=settings).run())
    assert result.error == "agent timed out after 2s (the task's [agent] timeout_sec)"
    assert result.reward == 0.0 and result.status == "error"
    assert result.duration < 30
    assert (result.output_dir / "verifier" / "reward.txt").read_text().strip() == "0"  # the verifier still ran
    record = json.loads((result.output_dir / "result.json").read_text())
    assert record["agent_timed_out"] is True


def test_hanging_verifier_is_cut_at_its_timeout(settings: Settings, tmp_path: Path, make_task: TaskMaker) -> None:
    task = make_task("slow-verifier", solve="true", test="sleep 300; echo 1 > /logs/verifier/reward.txt",
                     toml="[verifier]\ntimeout_sec = 1.5\n")
    result = asyncio.run(AgentRunner(task, provider="local", output_dir=tmp_path / "out", agent="oracle",
                                     settings=settings).run())
    assert result.error == "verifier: tests/test.sh timed out after 1.5s"
    assert result.reward == 0.0 and result.duration < 30


@pytest.mark.parametrize(("test", "error"), [
    ("true", "verifier: the verifier wrote no reward (/logs/verifier/reward.txt or reward.json)"),
    ("exit 3", "verifier: the verifier wrote no reward (/logs/verifier/reward.txt or reward.json) "
               "(tests/test.sh exited with 3)"),
    ("printf '' > /logs/verifier/reward.txt", "verifier: reward.txt is empty"),
    ("echo nan > /logs/verifier/reward.txt", "verifier: reward.txt is not a finite number: 'nan'"),
    ("echo '{\"a\": \"x\"}' > /logs/verifier/reward.json", "verifier: reward.json key 'a' is not a finite number: 'x'"),
])
def test_unusable_rewards_are_errors_not_zero(settings: Settings, tmp_path: Path, make_task: TaskMaker,
                                              test: str, error: str) -> None:
    result = asyncio.run(AgentRunner(make_task("bad-reward", solve="true", test=test), provider="local",
                                     output_dir=tmp_path / "out", agent="oracle", settings=settings).run())
    assert (result.status, result.reward, result.error) == ("error", 0.0, error)


def test_stale_reward_is_cleared_before_the_verifier_runs(settings: Settings, tmp_path: Path,
                                                          make_task: TaskMaker) -> None:
    task = make_task("cheat", solve="mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt",
                     test="true")
    result = asyncio.run(AgentRunner(task, provider="local", output_dir=tmp_path / "out", agent="oracle",
                                     settings=settings).run())
    assert result.status == "error" and "wrote no reward" in (result.error or "")


def test_failed_setup_command_is_an_error_naming_it(settings: Settings, tmp_path: Path, make_task: TaskMaker) -> None:
    task = make_task("bad-setup", solve="true", test="echo 1 > /logs/verifier/reward.txt",
                     toml='[environment]\nsetup_commands = ["mkdir -p /app/x", "false"]\n')
    result = asyncio.run(AgentRunner(task, provider="local", output_dir=tmp_path / "out", agent="oracle",
                                     settings=settings).run())
    assert result.status == "error"
    assert "[environment] setup_commands: 'false' exited with 1" in (result.error or "")


def test_bad_input_raises_before_any_trial_is_recorded(settings: Settings, tmp_path: Path,
                                                       make_task: TaskMaker) -> None:
    task = make_task("malformed", solve="true", test="true", toml="[agent]\ntimeout_sec = 'soon'\n")
    with pytest.raises(TaskError, match=r"task.toml: \[agent\] timeout_sec must be a positive number"):
        asyncio.run(AgentRunner(task, provider="local", output_dir=tmp_path / "out", settings=settings).run())
    with pytest.raises(HeliumError, match="unknown agent 'smart'; the agents are: helium, oracle, nop"):
        asyncio.run(AgentRunner(TASKS / "create-hello-file", provider="local", output_dir=tmp_path / "out",
                                agent="smart", settings=settings).run())
    with pytest.raises(HeliumError, match="unknown environment provider 'moon'"):
        asyncio.run(AgentRunner(TASKS / "create-hello-file", provider="moon", output_dir=tmp_path / "out",
                                agent="oracle", settings=settings).run())
    assert not (tmp_path / "out").exists()
    with ProjectStore(settings.db_path) as store:
        assert store.runs.list(flow="task") == []


def test_no_secret_reaches_outputs_or_store(settings: Settings, tmp_path: Path, make_task: TaskMaker,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    marker = "sk-helium-secret-marker-4242"
    monkeypatch.setenv("HELIUM_API_KEY", marker)
    monkeypatch.setenv("OPENAI_API_KEY", marker)
    task = make_task("leaky", solve='env; echo "key=$HELIUM_API_KEY"',
                     test='env; echo 1 > /logs/verifier/reward.txt')
    result = asyncio.run(AgentRunner(task, provider="local", output_dir=tmp_path / "out", agent="oracle",
                                     settings=settings).run())
    assert result.success
    assert_secret_absent(marker, result.output_dir, settings.db_path)


def test_watch_serves_the_viewer_while_the_trial_runs(settings: Settings, tmp_path: Path,
                                                      make_task: TaskMaker) -> None:
    import threading

    import httpx

    task = make_task("watched", solve="sleep 3", test="echo 1 > /logs/verifier/reward.txt")
    runner = AgentRunner(task, provider="local", output_dir=tmp_path / "out", watch=True, agent="oracle",
                         settings=settings, viewer_port=0)
    pages: list[httpx.Response] = []

    def look() -> None:
        for _ in range(200):
            if runner.viewer_url:
                pages.append(httpx.get(runner.viewer_url + "/", timeout=10))
                return
            threading.Event().wait(0.05)

    looker = threading.Thread(target=look)
    looker.start()
    result = asyncio.run(runner.run())
    looker.join()
    assert result.success
    assert pages and pages[0].status_code == 200
    assert "watched" in pages[0].text  # the trial's run is listed while it runs
    assert runner.viewer_url is None


def test_a_batch_checks_its_input_before_any_trial(settings: Settings, tmp_path: Path) -> None:
    for options, message in [({"agent": "smart"}, "unknown agent 'smart'"),
                             ({"provider": "moon", "agent": "oracle"}, "unknown environment provider 'moon'")]:
        runner = ParallelRunner([TASKS / "create-hello-file"], output_dir=tmp_path / "out", quiet=True,
                                settings=settings, **options)
        with pytest.raises(HeliumError, match=message):
            asyncio.run(runner.run())
    assert not (tmp_path / "out").exists()


def test_local_tasks_need_bubblewrap(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    with pytest.raises(HeliumError, match="the local provider runs tasks under bubblewrap, which is not installed"):
        asyncio.run(AgentRunner(TASKS / "create-hello-file", provider="local", output_dir=tmp_path / "out",
                                agent="oracle", settings=settings).run())
    assert not (tmp_path / "out").exists()


def test_task_env_tables_and_dockerfile_workdir(settings: Settings, tmp_path: Path, make_task: TaskMaker) -> None:
    task = make_task("envs", solve='echo "$GREETING" > made-here.txt',
                     test='[ "$MODE" = strict ] && [ "$(cat /workdir/made-here.txt)" = "hi there" ] '
                          '&& echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt',
                     toml='[verifier]\nenv = { MODE = "strict" }\n[solution]\nenv = { GREETING = "hi there" }\n')
    (task / "environment" / "Dockerfile").write_text("FROM ubuntu:22.04\nWORKDIR /workdir\n")
    result = asyncio.run(AgentRunner(task, provider="local", output_dir=tmp_path / "out", agent="oracle",
                                     settings=settings).run())
    assert (result.success, result.error) == (True, None)
    assert result.trajectory[0].tool_input["command"] == "GREETING='hi there' bash /solution/solve.sh"


def test_resume_of_a_damaged_batch_plan_names_what_is_missing(settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "batch.json").write_text('{"tasks": [], "attempts": 1}')
    with pytest.raises(HeliumError, match=r"batch.json: not a batch plan \(no agent, model, provider, n_concurrent\)"):
        ParallelRunner.resume(tmp_path, settings=settings)
