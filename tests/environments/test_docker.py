"""The docker environment against the real engine: exec, files, limits, network, builds, clean-up."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from helium.config import load_settings
from helium.environments import (
    DockerEnvironment,
    EnvironmentSpec,
    SandboxError,
    create_environment,
    remove_orphaned_containers,
)
from helium.errors import ConfigError
from helium.tools import workspace_tools
from helium.tools.invocation import invoke_tool
from tests.support.docker_engine import containers_labelled


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def docker_env(tmp_path: Path, spec: EnvironmentSpec, name: str, images: dict[str, str] | None = None) -> DockerEnvironment:
    environment = create_environment("docker", spec, local_root=tmp_path, name=name, images=images or {})
    assert isinstance(environment, DockerEnvironment)
    return environment


@pytest.fixture(scope="module")
def box(engine: docker.DockerClient, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DockerEnvironment]:
    """One started container shared by the tests that only exec and move files."""
    name = unique("box")
    environment = docker_env(tmp_path_factory.mktemp("box"), EnvironmentSpec(image="ubuntu:22.04", cpus=1.5,
                                                                              memory_mb=256), name)
    environment.start()
    yield environment
    environment.stop()
    assert containers_labelled(engine, name) == []


def test_exec_reports_output_exit_code_cwd_and_env(box: DockerEnvironment) -> None:
    result = box.exec("pwd; echo $GREETING; echo oops >&2; exit 4", env={"GREETING": "hi"})
    assert (result.stdout, result.stderr, result.exit_code, result.timed_out) == ("/app\nhi\n", "oops\n", 4, False)
    box.exec("mkdir -p sub /srv/abs")
    assert box.exec("pwd", cwd="sub").stdout == "/app/sub\n"
    assert box.exec("pwd", cwd="/srv/abs").stdout == "/srv/abs\n"


def test_api_keys_never_reach_the_container(box: DockerEnvironment, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-host-secret")
    output = box.exec("env", env={"HELIUM_API_KEY": "sk-passed", "SAFE": "1"}).stdout
    assert "sk-host-secret" not in output and "sk-passed" not in output and "SAFE=1" in output


def test_a_command_past_its_timeout_is_killed_with_its_children(box: DockerEnvironment) -> None:
    result = box.exec("(sleep 30; touch /tmp/survived) & sleep 30", timeout=1)
    assert result.timed_out and result.exit_code != 0
    assert box.exec("sleep 2; ls /tmp/survived", timeout=10).exit_code != 0
    assert "sleep 30" not in box.exec("ps -eo args").stdout  # killed and reaped (docker-init is PID 1)
    detached = box.exec("setsid sleep 60 & echo started", timeout=5)  # out of the group, holding the output:
    assert (detached.stdout, detached.timed_out) == ("started\n", False)  # the call still ends with the command
    honest = box.exec("exit 124", timeout=10)  # a command's own 124 is not a timeout
    assert (honest.exit_code, honest.timed_out) == (124, False)


def test_upload_and_download_files_and_directories(box: DockerEnvironment, tmp_path: Path) -> None:
    source = tmp_path / "tests"
    (source / "deep").mkdir(parents=True)
    (source / "deep" / "f.txt").write_text("payload")
    (source / "test.sh").write_text("#!/bin/bash\nmkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt\n")
    (source / "test.sh").chmod(0o755)
    box.upload(source, "/tests")
    assert box.exec("cat /tests/deep/f.txt").stdout == "payload"
    assert box.exec("/tests/test.sh").exit_code == 0  # the mode came along
    box.upload(source / "deep" / "f.txt", "relative/copy.txt")
    assert box.exec("cat /app/relative/copy.txt").stdout == "payload"
    box.download("/logs/verifier", tmp_path / "verifier")
    assert (tmp_path / "verifier" / "reward.txt").read_text() == "1\n"
    box.download("/logs/verifier/reward.txt", tmp_path / "single" / "reward.txt")
    assert (tmp_path / "single" / "reward.txt").read_text() == "1\n"
    with pytest.raises(FileNotFoundError, match="does not exist in the container"):
        box.download("/logs/nothing", tmp_path / "nothing")


def test_limits_and_network_are_visible_in_docker_inspect(box: DockerEnvironment, engine: docker.DockerClient) -> None:
    container = engine.containers.list(filters={"label": f"helium.environment={box.label}"})[0]
    host = container.attrs["HostConfig"]
    assert (host["NanoCpus"], host["Memory"], host["NetworkMode"]) == (1_500_000_000, 256 * 1024 * 1024, "none")
    assert container.attrs["Config"]["Image"] == "helium-sandbox:bookworm"  # ubuntu:22.04, aliased
    assert box.exec("ls /sys/class/net").stdout.split() == ["lo"]
    probe = box.exec("python3 -c \"import socket; socket.create_connection(('10.0.0.1', 80), timeout=3)\"")
    assert probe.exit_code != 0 and "unreachable" in probe.stderr.lower()


def test_the_file_tools_work_inside_the_container(box: DockerEnvironment) -> None:
    tools = {t.name: t for t in workspace_tools(box)}

    def run(name: str, **args: object) -> str:
        outcome = invoke_tool(tools[name], "call_1", args)
        assert not outcome.is_error, outcome.output
        return outcome.output

    assert run("write_file", path="/home/hello.txt", content="Hello World") == "wrote 11 bytes to /home/hello.txt"
    assert box.exec("cat /home/hello.txt").stdout == "Hello World"
    run("write_file", path="pkg/mod.py", content="import os\n\ndef main():\n    return os.getcwd()\n")
    assert run("read_file", path="pkg/mod.py", offset=3, limit=1).startswith("     3\tdef main():")
    assert run("edit_file", path="pkg/mod.py", old_text="getcwd", new_text="getpid") == "replaced 1 occurrence(s) in pkg/mod.py"
    assert run("grep", pattern=r"os\.getpid", include="*.py") == "pkg/mod.py:4:     return os.getpid()"
    assert run("glob", pattern="**/*.py") == "pkg/mod.py"
    assert "pkg/" in run("list_dir").splitlines()
    missing = invoke_tool(tools["read_file"], "call_2", {"path": "nope.txt"})
    assert missing.is_error and "nope.txt is not a file" in missing.output


def test_a_dockerfile_from_an_aliased_image_builds(engine: docker.DockerClient, tmp_path: Path) -> None:
    folder = tmp_path / "environment"
    folder.mkdir()
    (folder / "data.txt").write_text("from the context\n")
    (folder / "Dockerfile").write_text("FROM ubuntu:22.04\nWORKDIR /app\nRUN echo built > /built.txt\n"
                                       "COPY data.txt /data.txt\n")
    name = unique("build")
    environment = docker_env(tmp_path, EnvironmentSpec(dockerfile_dir=folder), name)
    try:
        environment.start()
        assert environment.exec("cat /built.txt /data.txt").stdout == "built\nfrom the context\n"
        assert environment.image and environment.image.startswith("helium-env:")
    finally:
        environment.stop()
    assert containers_labelled(engine, name) == []


def test_containers_are_removed_after_stop_and_after_an_exception(engine: docker.DockerClient, tmp_path: Path) -> None:
    name = unique("gone")
    environment = docker_env(tmp_path, EnvironmentSpec(), name)
    with pytest.raises(RuntimeError):
        try:
            environment.start()
            assert containers_labelled(engine, name) != []
            raise RuntimeError("the agent crashed")
        finally:
            environment.stop()
    assert containers_labelled(engine, name) == []
    environment.stop()  # twice is fine

    broken = unique("broken")  # start fails after the container exists: start cleans up itself
    with pytest.raises(SandboxError, match="could not start the container"):
        docker_env(tmp_path, EnvironmentSpec(workdir="/proc/nope"), broken).start()
    assert containers_labelled(engine, broken) == []


def test_missing_images_name_the_fix(tmp_path: Path) -> None:
    env = docker_env(tmp_path, EnvironmentSpec(image="ubuntu:22.04"), unique("missing"),
                     images={"ubuntu:22.04": "helium-sandbox:not-built"})
    with pytest.raises(SandboxError, match=r"helium-sandbox:not-built \(for ubuntu:22.04\) is not on this machine"):
        env.start()
    folder = tmp_path / "environment"
    folder.mkdir()
    (folder / "Dockerfile").write_text("FROM python:3.11-slim\n")
    env = docker_env(tmp_path, EnvironmentSpec(dockerfile_dir=folder), unique("missing"),
                     images={"python:*": "helium-sandbox:bookworm-gone"})
    with pytest.raises(SandboxError, match="helium-sandbox:bookworm-gone is not on this machine"):
        env.start()


def test_the_images_table_in_config_overrides_the_aliases(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / ".helium").mkdir()
    (tmp_path / ".helium" / "config.toml").write_text('[images]\n"ubuntu:22.04" = "my-local:tag"\n')
    monkeypatch.chdir(tmp_path)
    assert load_settings().images == {"ubuntu:22.04": "my-local:tag"}
    env = create_environment("docker", EnvironmentSpec(image="ubuntu:22.04"), local_root=tmp_path, name="cfg")
    with pytest.raises(SandboxError, match="my-local:tag"):
        env.start()
    (tmp_path / ".helium" / "config.toml").write_text('[images]\n"ubuntu:22.04" = 3\n')
    with pytest.raises(ConfigError, match="every image alias must be a string"):
        load_settings()


def test_unknown_providers_name_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown environment provider 'moon'; choose one of local, docker, daytona"):
        create_environment("moon", EnvironmentSpec(), local_root=tmp_path, name="x")


def test_a_container_left_by_a_killed_process_is_removed_by_the_next_run(engine: docker.DockerClient,
                                                                        box: DockerEnvironment) -> None:
    name = unique("killed")
    code = ("from helium.environments import EnvironmentSpec, create_environment; from pathlib import Path; "
            f"e = create_environment('docker', EnvironmentSpec(), local_root=Path('.'), name={name!r}, images={{}}); "
            "e.start(); print('started', flush=True); import time; time.sleep(120)")
    owner = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout.readline() == "started\n"
    finally:
        owner.kill()  # SIGKILL: no clean-up runs
        owner.wait()
    assert containers_labelled(engine, name) != []  # what kill -9 leaves
    removed = remove_orphaned_containers(engine)
    assert containers_labelled(engine, name) == [] and any(name in r for r in removed)
    assert containers_labelled(engine, box.label) != []  # a live process's container is left alone
