"""`helium task run` and `helium task batch` as a user runs them: exit codes, outputs, the store, --resume."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.runner.conftest import NO_BWRAP, assert_secret_absent
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which("bwrap") is None, reason=NO_BWRAP)]

TASKS = Path(__file__).resolve().parents[2] / "tasks"


def write_task(root: Path, name: str, solve: str, *, reward: str = "1") -> Path:
    folder = root / name
    for sub in ("environment", "tests", "solution"):
        (folder / sub).mkdir(parents=True)
    (folder / "instruction.md").write_text(f"Task {name}.")
    (folder / "task.toml").write_text('version = "1.0"\n[agent]\ntimeout_sec = 60\n')
    (folder / "environment" / "Dockerfile").write_text("FROM ubuntu:22.04\nWORKDIR /app\n")
    (folder / "tests" / "test.sh").write_text(f"mkdir -p /logs/verifier; echo {reward} > /logs/verifier/reward.txt\n")
    (folder / "solution" / "solve.sh").write_text(solve + "\n")
    return folder


def test_task_run_with_oracle_passes_and_is_a_run_in_the_store(cli: Cli) -> None:
    done = cli.run("task", "run", str(TASKS / "create-hello-file"), "--provider", "local", "--agent", "oracle",
                   "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["status"], result["reward"], result["task"]) == ("passed", 1.0, "create-hello-file")
    trial = Path(result["output_dir"])
    assert trial.parent == cli.cwd / "output"
    assert {p.name for p in trial.iterdir()} == {"agent", "verifier", "config.json", "result.json"}

    runs = json.loads(cli.run("runs", "--json", "--flow", "task").stdout)
    assert [(r["id"], r["flow"], r["status"]) for r in runs] == [(result["run_id"], "task", "done")]
    assert runs[0]["extra"]["reward"] == 1.0 and runs[0]["extra"]["output_dir"] == str(trial)
    history = cli.run("history", result["run_id"])
    assert history.returncode == 0 and "bash /solution/solve.sh" in history.stdout
    resumed = cli.run("resume", result["run_id"], "--message", "again")
    assert resumed.returncode == 1
    assert "is a task trial" in resumed.stderr and "Traceback" not in resumed.stderr
    forked = cli.run("fork", result["run_id"], "--at", "1")
    assert forked.returncode == 1 and "a task run cannot be forked" in forked.stderr
    assert len(json.loads(cli.run("runs", "--json").stdout)) == 1  # the refused fork recorded no run


def test_task_run_human_output_and_exit_codes(cli: Cli) -> None:
    passed = cli.run("task", "run", str(TASKS / "text-statistics"), "--provider", "local", "--agent", "oracle",
                     "--watch", "--port", "0")
    assert passed.returncode == 0
    assert re.search(r"^viewer: http://127\.0\.0\.1:\d+$", passed.stderr, re.MULTILINE)
    assert "passed text-statistics · reward 1 (lines 1, words 1, chars 1)" in passed.stderr
    assert "→ bash bash /solution/solve.sh" in passed.stderr

    broken = cli.run("task", "run", str(TASKS / "broken-verifier"), "--provider", "local", "--agent", "oracle")
    assert broken.returncode == 1
    assert "error broken-verifier · reward 0" in broken.stderr
    assert "error: verifier: reward.txt is not a number: 'passed-ish'" in broken.stderr



def test_task_run_drives_the_helium_agent(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [{"id": "c1", "name": "bash",
                         "arguments": {"command": "echo 'Hello World' > /home/hello.txt"}}]},
        {"content": "Done."},
    ])
    marker = "sk-cli-secret-marker-31337"
    done = cli.run("task", "run", str(TASKS / "create-hello-file"), "--provider", "local", "--json",
                   env={"HELIUM_API_KEY": marker})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["model"] == "scripted" and result["tokens_in"] > 0
    assert marker not in done.stdout + done.stderr
    assert_secret_absent(marker, Path(result["output_dir"]), cli.cwd / ".helium" / "helium.db")


@pytest.mark.parametrize(("args", "message"), [
    (["task", "run", "nowhere"], "error: nowhere: no such task folder"),
    (["task", "run", str(TASKS / "create-hello-file"), "--provider", "moon"], "unknown environment provider 'moon'"),
    (["task", "run", str(TASKS / "create-hello-file"), "--agent", "smart"], "unknown agent 'smart'"),
    (["task", "batch"], "give a directory of tasks"),
    (["task", "batch", "--resume", "nowhere"], "nowhere: not a batch folder"),
])
def test_bad_input_is_one_line(cli: Cli, args: list[str], message: str) -> None:
    done = cli.run(*args)
    assert done.returncode == 1
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_malformed_task_toml_names_file_and_field(cli: Cli, tmp_path: Path) -> None:
    task = write_task(tmp_path, "malformed", "true")
    (task / "task.toml").write_text("[verifier]\ntimeout_sec = [1]\n")
    done = cli.run("task", "run", str(task), "--provider", "local", "--agent", "oracle")
    assert done.returncode == 1
    assert done.stderr.strip() == (f"error: {task / 'task.toml'}: [verifier] timeout_sec must be a positive number, "
                                   "got [1]")
    batch = cli.run("task", "batch", str(tmp_path), "--provider", "local", "--agent", "oracle")
    assert batch.returncode == 1 and "[verifier] timeout_sec" in batch.stderr
    assert not (cli.cwd / "output").exists() or not any((cli.cwd / "output").glob("*/*/result.json"))


def test_batch_reports_each_trial_and_counts(cli: Cli) -> None:
    done = cli.run("task", "batch", str(TASKS), "-n", "2", "-k", "2", "--provider", "local", "--agent", "oracle",
                   "--json")
    assert done.returncode == 1  # the broken verifier's trials are errors
    batch = json.loads(done.stdout)
    assert (batch["total_tasks"], batch["passed"], batch["failed"], batch["errored"]) == (10, 8, 0, 2)
    assert batch["pass_at_k"] == pytest.approx(0.8)
    assert sorted({(t["task"], t["attempt"]) for t in batch["tasks"]}) == sorted(
        (name, k) for name in ("broken-verifier", "create-hello-file", "fix-failing-test", "rename-across-files",
                               "text-statistics") for k in (1, 2))
    quiet = cli.run("task", "batch", str(TASKS), "-p", "create-*/task.toml", "-q", "--provider", "local",
                    "--agent", "oracle")
    assert quiet.returncode == 0
    assert "1/1 passed, 0 failed, 0 errors · mean reward 1.000 · pass@1 1.00" in quiet.stderr


def test_killed_batch_resumes_only_unfinished_trials(cli: Cli, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    write_task(tasks, "a-quick", "echo a")
    write_task(tasks, "b-slow", "sleep 5; echo b")
    write_task(tasks, "c-quick", "echo c")
    write_task(tasks, "d-quick", "echo d", reward="0")
    proc = cli.popen("task", "batch", str(tasks), "-n", "1", "--provider", "local", "--agent", "oracle", "-q")
    output = cli.cwd / "output"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until a-quick finished and b-slow is under way
        if list(output.glob("batch_*/a-quick_*/result.json")) and list(output.glob("batch_*/b-slow_*/config.json")):
            break
        time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail(f"the batch never got to b-slow: {proc.communicate()}")
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    (batch_dir,) = output.glob("batch_*")
    first_result = next(batch_dir.glob("a-quick_*/result.json"))
    first_bytes = first_result.read_bytes()
    assert not list(batch_dir.glob("b-slow_*/result.json"))
    assert not list(batch_dir.glob("c-quick_*")) and not list(batch_dir.glob("d-quick_*"))

    resumed = cli.run("task", "batch", "--resume", str(batch_dir), "--json", timeout=120)
    assert resumed.returncode == 1  # d-quick's genuine reward of 0
    batch = json.loads(resumed.stdout)
    assert [(t["task"], t["status"]) for t in batch["tasks"]] == [
        ("a-quick", "passed"), ("b-slow", "passed"), ("c-quick", "passed"), ("d-quick", "failed")]
    assert first_result.read_bytes() == first_bytes  # the finished trial was not run again
    assert len(list(batch_dir.glob("a-quick_*"))) == 1
    assert len(list(batch_dir.glob("b-slow_*"))) == 2  # the cut-off attempt is kept, beside its re-run
    runs = json.loads(cli.run("runs", "--json", "--flow", "task").stdout)
    by_task: dict[str, list[str]] = {}
    for run in runs:
        by_task.setdefault(run["extra"]["task"], []).append(run["status"])
    assert by_task["a-quick"] == ["done"]
    assert sorted(by_task["b-slow"]) == ["done", "interrupted"]
    assert by_task["c-quick"] == ["done"] and by_task["d-quick"] == ["done"]


def interrupt_once_started(proc: subprocess.Popen, started_file: str, root: Path) -> str:
    """Ctrl-C the process once `started_file` (a glob) exists; it must stop within 15 s. Returns its stderr."""
    deadline = time.monotonic() + 60
    while not list(root.glob(started_file)):
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail(f"{started_file} never appeared: {proc.communicate()}")
        time.sleep(0.05)
    time.sleep(0.5)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130 and time.monotonic() - sent < 15
    return stderr


def test_ctrl_c_stops_a_trial_and_a_batch_at_once(cli: Cli, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    write_task(tasks, "sleepy", "sleep 60")
    proc = cli.popen("task", "run", str(tasks / "sleepy"), "--provider", "local", "--agent", "oracle")
    stderr = interrupt_once_started(proc, "output/sleepy_*/config.json", cli.cwd)
    assert "interrupted: the trial was stopped before it was scored" in stderr and "Traceback" not in stderr
    runs = json.loads(cli.run("runs", "--json", "--flow", "task").stdout)
    assert [r["status"] for r in runs] == ["interrupted"]

    proc = cli.popen("task", "batch", str(tasks), "--provider", "local", "--agent", "oracle", "-o", "batches")
    stderr = interrupt_once_started(proc, "batches/batch_*/sleepy_*/config.json", cli.cwd)
    (batch_dir,) = (cli.cwd / "batches").glob("batch_*")
    assert f"interrupted; finish the batch with: helium task batch --resume {batch_dir}" in stderr
