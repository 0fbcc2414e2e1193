"""The local environment: a work directory on this machine, under bubblewrap where it is installed.

Two shapes.  The user's project (`helium run code --env local`, chat): commands start in
the project directory; with bubblewrap (`bwrap`) the whole file system is read-only except
that directory, /tmp is private and the process dies with its parent.  A task sandbox
(`sandbox_dirs` given, as `create_environment("local", …)` makes it): the directories a
task's commands name by absolute path (`/app`, `/home`, `/logs`, `/tests`, …) live under the
work directory, and bubblewrap mounts each at its sandbox path over a read-only view of this
machine, so `cat /logs/verifier/reward.txt` reads `<root>/logs/verifier/reward.txt`.  Without
bubblewrap commands are plain subprocesses and `isolation` says so; in a task sandbox the
mapping then holds for uploads, downloads, file tools and the start directory, not for
absolute paths inside commands.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path, PurePosixPath
from typing import IO

from helium.environments.base import ExecResult, without_api_keys
from helium.environments.paths import SandboxPaths

TASK_SANDBOX_DIRS = ("app", "home", "logs", "tests", "solution", "root", "tmp")
"""The top-level directories a task sandbox keeps under its work directory (plus its workdir's own)."""

_KERNEL_DIRS = frozenset({"dev", "proc"})
PIPE_GRACE_SECONDS = 0.5


TASK_SANDBOX_VARIABLES = ("PATH", "LANG", "LC_ALL", "TERM", "TZ")
"""All a task sandbox's commands get of this process's environment, as a container gets only its image's."""


def scrubbed_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment minus API keys, so a command cannot print a secret into a transcript."""
    return without_api_keys(dict(os.environ)) | without_api_keys(extra)


def task_sandbox_environment(home: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A clean environment for a task's commands: no tokens, passwords or endpoints of this machine's user."""
    kept = {name: os.environ[name] for name in TASK_SANDBOX_VARIABLES if name in os.environ}
    return {"PATH": os.defpath, **kept, "HOME": home} | without_api_keys(extra)


class LocalEnvironment:
    name = "local"

    def __init__(self, root: Path, *, isolate: bool = True, allow_network: bool = True,
                 sandbox_dirs: tuple[str, ...] = (), workdir: str = "/app") -> None:
        self.host_root = Path(root).resolve()
        self._bwrap = shutil.which("bwrap") if isolate else None
        self._allow_network = allow_network
        if sandbox_dirs:
            names = dict.fromkeys([*sandbox_dirs, PurePosixPath(workdir).parts[1]])
            self._mounts = {f"/{n}": self.host_root / n for n in names}
            self.root = str(PurePosixPath(workdir))
            refusal = "{path} is outside the sandbox's directories (" + ", ".join(sorted(self._mounts)) + ")"
        else:
            self._mounts = {}
            self.root = str(self.host_root)
            refusal = f"{{path}} is outside the workspace {self.root}; only paths inside it can be used"
        self._paths = SandboxPaths(self._mounts or {self.root: self.host_root}, self.root, refusal)

    @property
    def isolation(self) -> str:
        if self._mounts:
            dirs = ", ".join(sorted(self._mounts))
            if self._bwrap:
                return f"bubblewrap: a task sandbox in {self.host_root} ({dirs} writable, the rest read-only)"
            return (f"none: commands run as plain subprocesses in {self.host_root}; {dirs} are mapped for uploads, "
                    "downloads and file tools only (install bubblewrap to isolate commands and map their paths)")
        if self._bwrap:
            return f"bubblewrap: commands can write only inside {self.root} (and a private /tmp)"
        return f"none: commands run as plain subprocesses in {self.root} (install bubblewrap to isolate them)"

    @property
    def host_paths(self) -> SandboxPaths:
        return self._paths

    def start(self) -> None:
        self.host_root.mkdir(parents=True, exist_ok=True)
        for host in self._mounts.values():
            host.mkdir(parents=True, exist_ok=True)
        self._paths.resolve(self.root).mkdir(parents=True, exist_ok=True)

    def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
             timeout: float | None = None) -> ExecResult:
        sandbox_cwd = str(PurePosixPath(self.root, cwd or "."))
        host_cwd = self._paths.resolve(sandbox_cwd)
        proc = subprocess.Popen(self._argv(command, sandbox_cwd), cwd=host_cwd, env=self._variables(env),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        out: list[bytes] = []
        err: list[bytes] = []
        readers = [threading.Thread(target=_pump, args=(proc.stdout, out), daemon=True),
                   threading.Thread(target=_pump, args=(proc.stderr, err), daemon=True)]
        for reader in readers:
            reader.start()
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            timed_out = True
        # The call ends with the command, as in a container: a process it left running in the background
        # (out of its process group) may keep the pipes open, but is not waited for.
        for reader in readers:
            reader.join(PIPE_GRACE_SECONDS)
        return ExecResult(b"".join(out).decode(errors="replace"), b"".join(err).decode(errors="replace"),
                          -signal.SIGKILL if timed_out else proc.returncode, timed_out)

    def _variables(self, env: dict[str, str] | None) -> dict[str, str]:
        if not self._mounts:
            return scrubbed_environment(env)
        return task_sandbox_environment("/root" if self._bwrap else str(self.host_root / "root"), env)

    def _argv(self, command: str, workdir: str) -> list[str]:
        if not self._bwrap:
            return ["bash", "-c", command]
        network = [] if self._allow_network else ["--unshare-net"]
        return [self._bwrap, *self._filesystem(), *network, "--die-with-parent", "--chdir", workdir,
                "bash", "-c", command]

    def _filesystem(self) -> list[str]:
        if not self._mounts:
            return ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                    "--bind", self.root, self.root]
        # A fresh root: this machine's top-level directories read-only, the sandbox's own ones writable.
        args = ["--tmpfs", "/"]
        for entry in sorted(Path("/").iterdir()):
            if f"/{entry.name}" in self._mounts or entry.name in _KERNEL_DIRS:
                continue
            args += ["--symlink", os.readlink(entry), str(entry)] if entry.is_symlink() else \
                ["--ro-bind", str(entry), str(entry)]
        args += ["--dev", "/dev", "--proc", "/proc"]
        for sandbox, host in self._mounts.items():
            args += ["--bind", str(host), sandbox]
        return args

    def upload(self, source: Path, target: str) -> None:
        copy_path(source, self._paths.resolve(target))

    def download(self, source: str, target: Path) -> None:
        copy_path(self._paths.resolve(source), target)

    def stop(self) -> None:
        """Nothing to tear down: the work directory belongs to the caller."""


def _pump(stream: IO[bytes], sink: list[bytes]) -> None:
    """Collect a pipe's bytes until it closes (a thread per pipe, so a full pipe never blocks the command)."""
    with stream:
        for chunk in iter(lambda: stream.read1(1 << 16), b""):
            sink.append(chunk)


def copy_path(origin: Path, destination: Path) -> None:
    """Copy a file or a whole directory, creating the destination's parents."""
    if not origin.exists():
        raise FileNotFoundError(f"{origin} does not exist")
    destination.parent.mkdir(parents=True, exist_ok=True)
    if origin.is_dir():
        shutil.copytree(origin, destination, dirs_exist_ok=True, symlinks=True)
    else:
        shutil.copy2(origin, destination)
