"""The local environment: a work directory on this machine, under bubblewrap where it is installed.

With bubblewrap (`bwrap`) the whole file system is mounted read-only except the work
directory, /tmp is private and the process dies with its parent; without it commands
are plain subprocesses started in the work directory, and `isolation` says so.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from helium.environments.base import ExecResult

API_KEY_SUFFIX = "_API_KEY"


def scrubbed_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment minus API keys, so a command cannot print a secret into a transcript."""
    clean = {k: v for k, v in os.environ.items() if not k.endswith(API_KEY_SUFFIX)}
    return clean | (extra or {})


class LocalEnvironment:
    name = "local"

    def __init__(self, root: Path, *, isolate: bool = True, allow_network: bool = True) -> None:
        self.root = str(Path(root).resolve())
        self._bwrap = shutil.which("bwrap") if isolate else None
        self._allow_network = allow_network

    @property
    def isolation(self) -> str:
        if self._bwrap:
            return f"bubblewrap: commands can write only inside {self.root} (and a private /tmp)"
        return f"none: commands run as plain subprocesses in {self.root} (install bubblewrap to isolate them)"

    def start(self) -> None:
        Path(self.root).mkdir(parents=True, exist_ok=True)

    def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
             timeout: float | None = None) -> ExecResult:
        workdir = str(Path(self.root, cwd or "."))
        proc = subprocess.Popen(self._argv(command, workdir), cwd=workdir, env=scrubbed_environment(env),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            timed_out = True
        return ExecResult(out.decode(errors="replace"), err.decode(errors="replace"),
                          -signal.SIGKILL if timed_out else proc.returncode, timed_out)

    def _argv(self, command: str, workdir: str) -> list[str]:
        if not self._bwrap:
            return ["bash", "-c", command]
        network = [] if self._allow_network else ["--unshare-net"]
        return [self._bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                "--bind", self.root, self.root, *network, "--die-with-parent", "--chdir", workdir,
                "bash", "-c", command]

    def upload(self, source: Path, target: str) -> None:
        _copy(source, Path(self.root, target))

    def download(self, source: str, target: Path) -> None:
        _copy(Path(self.root, source), target)

    def stop(self) -> None:
        """Nothing to tear down: the work directory belongs to the user."""


def _copy(origin: Path, destination: Path) -> None:
    """Copy a file or a whole directory, creating the destination's parents."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    if origin.is_dir():
        shutil.copytree(origin, destination, dirs_exist_ok=True)
    else:
        shutil.copy2(origin, destination)
