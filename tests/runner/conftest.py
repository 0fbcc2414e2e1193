"""Fixtures of the runner tests: a project directory (its store is where trials are recorded), task folders,
and the Docker engine (tests skip, with the reason, only where none can be reached)."""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import docker
import pytest
from atif import Trajectory
from docker.models.containers import Container

from helium.config import Settings, load_settings
from helium.environments.docker import LABEL, OWNER_LABEL
from helium.environments.images import SANDBOX_IMAGE
from tests.support.docker_engine import docker_or_skip

REPO = Path(__file__).resolve().parents[2]
TASKS = REPO / "tasks"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory with a home of its own, so no user config leaks into the trials."""
    root = tmp_path / "project"
    root.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for var in ("HELIUM_API_KEY", "HELIUM_BASE_URL", "HELIUM_MODEL", "HELIUM_TOOL_CALLING", "HELIUM_APPROVE"):
        monkeypatch.delenv(var, raising=False)
    return root


NO_BWRAP = "bubblewrap is not installed (apt-get install bubblewrap); local task sandboxes need it"


@pytest.fixture
def settings(workspace: Path) -> Settings:
    """The project's settings; trials here mostly run in local sandboxes, which need bubblewrap."""
    if shutil.which("bwrap") is None:
        pytest.skip(NO_BWRAP)
    return load_settings(workspace)


TaskMaker = Callable[..., Path]


@pytest.fixture
def make_task(tmp_path: Path) -> TaskMaker:
    """Write a task folder: its solve.sh and test.sh bodies, and task.toml lines."""

    def make(name: str, *, solve: str, test: str, toml: str = "", instruction: str = "Do the thing.") -> Path:
        folder = tmp_path / "tasks" / name
        for sub in ("environment", "tests", "solution"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        (folder / "instruction.md").write_text(instruction)
        (folder / "task.toml").write_text('version = "1.0"\n' + toml)
        (folder / "environment" / "Dockerfile").write_text("FROM ubuntu:22.04\nWORKDIR /app\n")
        (folder / "tests" / "test.sh").write_text("#!/bin/bash\nmkdir -p /logs/verifier\n" + test + "\n")
        (folder / "solution" / "solve.sh").write_text("#!/bin/bash\n" + solve + "\n")
        return folder

    return make


@pytest.fixture(scope="session")
def docker_engine() -> docker.DockerClient:
    """The real engine with the sandbox image (the shared check: skips, with the reason, only without an engine)."""
    return docker_or_skip()


def leftover_containers(client: docker.DockerClient, trial_dirs: list[Path]) -> list[str]:
    """Containers of these trials (their config.json names each one's sandbox) that still exist: the docker
    environment must remove every one. Other tests' trials running at the same time are not counted."""
    sandboxes = {json.loads((trial / "config.json").read_text())["sandbox"] for trial in trial_dirs}
    labels = [c.labels.get(LABEL, "") for c in client.containers.list(all=True, filters={"label": LABEL})]
    return [label for label in labels if label in sandboxes]


def orphaned_container(client: docker.DockerClient) -> Container:
    """A container as a Helium process killed with kill -9 leaves it: its owner label names a process that ended."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    return client.containers.create(SANDBOX_IMAGE, ["true"], labels={
        LABEL: "orphan", OWNER_LABEL: f"{socket.gethostname()}:{dead.pid}:1"})


def assert_gone(container: Container) -> None:
    with pytest.raises(docker.errors.NotFound):
        container.reload()


def assert_secret_absent(secret: str, output_dir: Path, db_path: Path) -> None:
    """No file of a trial's output folder, and no byte of the project store (WAL merged), holds `secret`."""
    for path in output_dir.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path
    with sqlite3.connect(db_path) as conn:
        conn.execute("PRAGMA wal_checkpoint(FULL)")
    assert secret.encode() not in db_path.read_bytes()


def valid_atif(path: Path) -> dict:
    """The trajectory file, after checking it against the ATIF spec's own pydantic models (the `atif` package:
    sequential step ids, agent-only fields on agent steps, every observation answering a tool call)."""
    data = json.loads(path.read_text())
    Trajectory.model_validate(data)
    return data
