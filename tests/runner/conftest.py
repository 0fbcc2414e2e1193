"""Fixtures of the runner tests: a project directory (its store is where trials are recorded), task folders,
and a Docker engine with the sandbox image (skipped, with the reason, only where no engine can be started)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from helium.config import Settings, load_settings

REPO = Path(__file__).resolve().parents[2]
TASKS = REPO / "tasks"
SANDBOX_IMAGE = "helium-sandbox:bookworm"


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


@pytest.fixture
def settings(workspace: Path) -> Settings:
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


def docker_problem() -> str | None:
    """Why docker trials cannot run here, or None. A missing image is built (the engine is all that's needed)."""
    try:
        import docker

        client = docker.from_env(timeout=10)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure to reach an engine is a reason to skip
        return f"no Docker engine can be reached ({type(exc).__name__}: {exc})"
    try:
        client.images.get(SANDBOX_IMAGE)
    except Exception:  # noqa: BLE001 - not built yet: build it once, as CI does
        build = subprocess.run([str(REPO / "scripts" / "build-sandbox-image.sh")], capture_output=True, text=True)
        if build.returncode != 0:
            return f"{SANDBOX_IMAGE} cannot be built: {build.stderr.strip()[-300:]}"
    return None


@pytest.fixture(scope="session")
def docker_engine() -> None:
    problem = docker_problem()
    if problem:
        print(f"\nSKIP docker trials: {problem}")
        pytest.skip(problem)


def leftover_containers(task_names: list[str]) -> list[str]:
    """Containers of these tasks' trials that still exist (the docker environment must remove every one)."""
    out = subprocess.run(["docker", "ps", "-a", "--filter", "label=helium.environment", "--format",
                          '{{.Label "helium.environment"}}'], capture_output=True, text=True)
    return [label for label in out.stdout.split() if any(f"helium-{name}-" in label for name in task_names)]
