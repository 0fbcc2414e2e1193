"""An environment whose every command ends by a deadline: how a hanging agent is cut at its timeout."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from helium.environments import Environment, ExecResult

TIME_UP = "the agent's time is up (the task's [agent] timeout_sec); the command was not run"


class DeadlineEnvironment:
    """Wraps the trial's environment for the agent's tools: each command's timeout is cut to the time left."""

    def __init__(self, inner: Environment, deadline: float) -> None:
        self.inner = inner
        self.deadline = deadline
        """A `time.monotonic()` value."""
        self.cut = False
        """Whether a command was stopped (or refused) because the deadline came."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @property
    def isolation(self) -> str:
        return self.inner.isolation

    def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
             timeout: float | None = None) -> ExecResult:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            self.cut = True
            return ExecResult("", TIME_UP, -9, True)
        result = self.inner.exec(command, cwd, env, remaining if timeout is None else min(timeout, remaining))
        if result.timed_out and (timeout is None or remaining < timeout):
            self.cut = True
        return result

    def upload(self, source: Path, target: str) -> None:
        self.inner.upload(source, target)

    def download(self, source: str, target: Path) -> None:
        self.inner.download(source, target)

    def start(self) -> None:
        """The trial starts and stops the real environment; the agent cannot."""

    def stop(self) -> None:
        """The trial starts and stops the real environment; the agent cannot."""
