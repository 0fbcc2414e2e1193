"""The local environment on real processes and files, with and without bubblewrap."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helium.environments import LocalEnvironment

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed (apt-get install bubblewrap)")


@pytest.fixture(params=[False, pytest.param(True, marks=needs_bwrap)], ids=["plain", "bubblewrap"])
def env(request, tmp_path: Path) -> LocalEnvironment:
    environment = LocalEnvironment(tmp_path / "work", isolate=request.param)
    environment.start()
    return environment


def test_exec_reports_output_exit_code_and_runs_in_the_root(env: LocalEnvironment) -> None:
    result = env.exec("pwd; echo oops >&2; exit 4")
    assert (result.stdout, result.stderr, result.exit_code, result.timed_out) == (f"{env.root}\n", "oops\n", 4, False)
    Path(env.root, "sub").mkdir()
    assert env.exec("pwd", cwd="sub").stdout.strip() == f"{env.root}/sub"
    assert env.exec("echo $GREETING", env={"GREETING": "hi"}).stdout == "hi\n"


def test_timeouts_kill_the_command(env: LocalEnvironment) -> None:
    result = env.exec("sleep 30", timeout=0.5)
    assert result.timed_out and result.exit_code != 0
    detached = env.exec("setsid sleep 30 & echo started", timeout=10)  # it keeps the pipes open
    assert (detached.stdout, detached.exit_code, detached.timed_out) == ("started\n", 0, False)
    assert env.exec("head -c 300000 /dev/zero | wc -c").stdout.strip() == "300000"  # more than a pipe holds


def test_api_keys_do_not_reach_commands(env: LocalEnvironment, monkeypatch) -> None:
    monkeypatch.setenv("HELIUM_API_KEY", "sk-secret")
    assert "sk-secret" not in env.exec("env").stdout


def test_upload_and_download(env: LocalEnvironment, tmp_path: Path) -> None:
    source = tmp_path / "in"
    (source / "deep").mkdir(parents=True)
    (source / "deep" / "f.txt").write_text("payload")
    env.upload(source, "tests")
    assert env.exec("cat tests/deep/f.txt").stdout == "payload"
    env.exec("echo made > out.txt")
    env.download("out.txt", tmp_path / "back" / "out.txt")
    assert (tmp_path / "back" / "out.txt").read_text() == "made\n"


@needs_bwrap
def test_bubblewrap_keeps_writes_inside_the_work_directory(tmp_path: Path) -> None:
    env = LocalEnvironment(tmp_path / "work", isolate=True)
    env.start()
    outside = tmp_path / "outside.txt"  # under /tmp, which the sandbox replaces with a private tmpfs
    result = env.exec(f"echo escaped > {outside}; touch /usr/helium-escape-test; touch inside.txt")
    assert "Read-only file system" in result.stderr
    assert not outside.exists() and not Path("/usr/helium-escape-test").exists()
    assert Path(env.root, "inside.txt").exists()
    assert env.isolation.startswith("bubblewrap")


def test_without_isolation_the_output_says_so(tmp_path: Path) -> None:
    assert LocalEnvironment(tmp_path, isolate=False).isolation.startswith("none: commands run as plain subprocesses")
