"""The environment protocol: start, exec, upload, download, stop.

Tools that run commands go through an environment, so the same agent loop can work
on this machine, in a container or in a cloud sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class ExecResult:
    stdout: str
    stderr: str
    exit_code: int
    timed_out: bool


class Environment(Protocol):
    name: str
    root: str
    """The work directory inside the environment; relative paths and commands start there."""

    @property
    def isolation(self) -> str:
        """One line for the user on what keeps commands in (or that nothing does)."""
        ...

    def start(self) -> None: ...

    def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
             timeout: float | None = None) -> ExecResult: ...

    def upload(self, source: Path, target: str) -> None: ...

    def download(self, source: str, target: Path) -> None: ...

    def stop(self) -> None: ...
