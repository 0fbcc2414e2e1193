"""create_environment("local", …): a task sandbox whose /app, /home, /logs, /tests live under its root."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from helium.environments import EnvironmentSpec, LocalEnvironment, create_environment
from helium.environments.local import TASK_SANDBOX_DIRS
from helium.tools import workspace_tools
from helium.tools.invocation import invoke_tool

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed (apt-get install bubblewrap)")


@pytest.fixture
def sandbox(tmp_path: Path) -> LocalEnvironment:
    environment = create_environment("local", EnvironmentSpec(), local_root=tmp_path / "trial", name="t")
    assert isinstance(environment, LocalEnvironment)
    environment.start()
    return environment


@needs_bwrap
def test_commands_see_absolute_sandbox_paths_under_the_root(sandbox: LocalEnvironment, tmp_path: Path) -> None:
    root = tmp_path / "trial"
    result = sandbox.exec("pwd; echo 'Hello World' > /home/hello.txt; mkdir -p /logs/verifier; "
                          "echo 0.5 > /logs/verifier/reward.txt; touch /usr/escape 2>&1 || true")
    assert result.stdout.splitlines()[0] == "/app"
    assert "Read-only file system" in result.stdout
    assert (root / "home" / "hello.txt").read_text() == "Hello World\n"
    assert sandbox.exec("cat /logs/verifier/reward.txt").stdout == "0.5\n"
    assert sandbox.isolation.startswith("bubblewrap: a task sandbox")
    assert not Path("/home/hello.txt").exists() and not Path("/usr/escape").exists()


@needs_bwrap
def test_tests_upload_run_and_the_verifier_folder_downloads(sandbox: LocalEnvironment, tmp_path: Path) -> None:
    tests = tmp_path / "task-tests"
    tests.mkdir()
    (tests / "test.sh").write_text("#!/bin/bash\ngrep -q Hello /home/hello.txt && echo 1 > /logs/verifier/reward.txt\n")
    sandbox.upload(tests, "/tests")
    sandbox.exec("echo Hello > /home/hello.txt; mkdir -p /logs/verifier")
    assert sandbox.exec("bash /tests/test.sh").exit_code == 0
    sandbox.download("/logs/verifier", tmp_path / "out" / "verifier")
    assert (tmp_path / "out" / "verifier" / "reward.txt").read_text() == "1\n"


@needs_bwrap
def test_tmp_persists_between_commands_like_a_container(sandbox: LocalEnvironment) -> None:
    sandbox.exec("echo kept > /tmp/state")
    assert sandbox.exec("cat /tmp/state").stdout == "kept\n"


@needs_bwrap
def test_network_is_off_unless_allowed(tmp_path: Path) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        probe = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3)\""
        closed = create_environment("local", EnvironmentSpec(), local_root=tmp_path / "a", name="a")
        closed.start()
        assert closed.exec(probe).exit_code != 0
        opened = create_environment("local", EnvironmentSpec(allow_network=True), local_root=tmp_path / "b", name="b")
        opened.start()
        assert opened.exec(probe).exit_code == 0


def test_file_tools_map_absolute_paths_and_refuse_the_rest(sandbox: LocalEnvironment, tmp_path: Path) -> None:
    tools = {t.name: t for t in workspace_tools(sandbox)}
    wrote = invoke_tool(tools["write_file"], "c1", {"path": "/home/hello.txt", "content": "Hello World"})
    assert wrote.output == "wrote 11 bytes to /home/hello.txt"
    assert (tmp_path / "trial" / "home" / "hello.txt").read_text() == "Hello World"
    invoke_tool(tools["write_file"], "c2", {"path": "src/main.py", "content": "print(1)\n"})
    assert (tmp_path / "trial" / "app" / "src" / "main.py").exists()
    assert invoke_tool(tools["glob"], "c3", {"pattern": "*.py"}).output == "src/main.py"
    refused = invoke_tool(tools["write_file"], "c4", {"path": "/etc/evil", "content": "x"})
    assert refused.is_error and "outside the sandbox's directories" in refused.output
    escape = invoke_tool(tools["read_file"], "c5", {"path": "/app/../../etc/passwd"})
    assert escape.is_error


def test_without_bubblewrap_paths_are_mapped_for_files_and_the_output_says_so(tmp_path: Path) -> None:
    plain = LocalEnvironment(tmp_path / "trial", isolate=False, allow_network=False, sandbox_dirs=TASK_SANDBOX_DIRS)
    plain.start()
    assert plain.isolation.startswith("none: commands run as plain subprocesses")
    assert "mapped for uploads, downloads and file tools only" in plain.isolation
    assert plain.exec("pwd").stdout.strip() == str(tmp_path / "trial" / "app")
    source = tmp_path / "reward.txt"
    source.write_text("1")
    plain.upload(source, "/logs/verifier/reward.txt")
    assert (tmp_path / "trial" / "logs" / "verifier" / "reward.txt").read_text() == "1"
    plain.download("/logs/verifier", tmp_path / "back")
    assert (tmp_path / "back" / "reward.txt").read_text() == "1"


def test_a_task_sandbox_gets_none_of_this_users_secrets(sandbox: LocalEnvironment, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-host-secret")
    monkeypatch.setenv("HELIUM_BASE_URL", "https://user:pw@models.example/v1")
    output = sandbox.exec("env", env={"MODE": "strict", "HELIUM_API_KEY": "sk-passed"}).stdout
    assert "ghp-host-secret" not in output and "user:pw" not in output and "sk-passed" not in output
    variables = dict(line.split("=", 1) for line in output.splitlines() if "=" in line)
    assert variables["MODE"] == "strict" and variables["PATH"]
    assert variables["HOME"] == ("/root" if shutil.which("bwrap") else str(Path(sandbox.host_root, "root")))
