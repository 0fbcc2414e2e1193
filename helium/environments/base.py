"""The environment protocol: start, exec, upload, download, stop.

Tools that run commands go through an environment, so the same agent loop can work
on this machine, in a container or in a cloud sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from helium.errors import HeliumError

API_KEY_SUFFIX = "_API_KEY"


class SandboxError(HeliumError):
    """An environment cannot be created or used (no engine, no image, missing extra or key)."""


@dataclass(frozen=True)
class ExecResult:
    stdout: str
    stderr: str
    exit_code: int
    timed_out: bool


@dataclass(frozen=True)
class EnvironmentSpec:
    """What a sandbox needs: its image (or Dockerfile folder), limits and network; taken from task.toml."""

    image: str | None = None            # docker_image from task.toml (aliased to a local image)
    dockerfile_dir: Path | None = None  # the task's environment/ folder, built if image is None
    cpus: float | None = None
    memory_mb: int | None = None
    allow_network: bool = False
    build_timeout_sec: float = 600
    workdir: str = "/app"               # where commands start inside the sandbox


class HostPaths(Protocol):
    """Where a path the tools name lives on this machine, for environments whose files are local."""

    def resolve(self, path: str) -> Path: ...

    def relative(self, path: Path) -> str: ...


class Environment(Protocol):
    name: str
    root: str
    """The work directory inside the environment; relative paths and commands start there."""

    @property
    def isolation(self) -> str:
        """One line for the user on what keeps commands in (or that nothing does)."""
        ...

    @property
    def host_paths(self) -> HostPaths | None:
        """How file tools reach this environment's files directly on this machine; None: only through it."""
        ...

    def start(self) -> None: ...

    def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
             timeout: float | None = None) -> ExecResult: ...

    def upload(self, source: Path, target: str) -> None:
        """Copy a local file or directory to `target` (a path in the environment, made with its parents)."""
        ...

    def download(self, source: str, target: Path) -> None:
        """Copy a file or directory of the environment to `target` on this machine."""
        ...

    def stop(self) -> None:
        """Release what start() made (a container, a sandbox); safe to call twice or after a failed start."""
        ...


def without_api_keys(env: dict[str, str] | None) -> dict[str, str]:
    """The variables minus API keys, so a command cannot print a secret into a transcript."""
    return {k: v for k, v in (env or {}).items() if not k.endswith(API_KEY_SUFFIX)}
