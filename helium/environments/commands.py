"""Commands run inside a sandbox under a time limit: coreutils `timeout` kills the whole process group."""

from __future__ import annotations

KILLED_EXIT_CODES = (124, 137)  # `timeout`: 124 after TERM, 137 after KILL


def timed_argv(command: str, timeout: float | None) -> list[str]:
    """`bash -c command`, wrapped in `timeout -s KILL` when a limit is given."""
    argv = ["bash", "-c", command]
    return ["timeout", "-s", "KILL", f"{timeout:g}s", *argv] if timeout else argv


def killed_by_timeout(exit_code: int | None, elapsed: float, timeout: float | None) -> bool:
    """Whether the exit code is `timeout`'s and the limit was reached (a command may exit 124 by itself)."""
    return bool(timeout) and exit_code in KILLED_EXIT_CODES and elapsed >= timeout * 0.95
