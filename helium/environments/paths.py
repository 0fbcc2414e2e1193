"""Paths as an environment's commands see them, mapped to files on this machine.

A local environment mounts host directories at sandbox paths (the user's project at its
own path; a task sandbox's `/app`, `/home`, `/logs` … under one work directory), so file
tools can reach its files directly, without running a command per read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath


class PathEscapeError(ValueError):
    """A path (or a symlink on it) points outside every directory the environment mounts."""


class SandboxPaths:
    """Sandbox paths -> host paths through `mounts` (sandbox dir -> host dir); relative paths start at `workdir`.

    Anything outside every mount, via `..` or a symlink, is refused with `refusal` (formatted with `path`).
    """

    def __init__(self, mounts: Mapping[str, Path], workdir: str, refusal: str) -> None:
        self.mounts = {str(PurePosixPath(s)): Path(os.path.realpath(h))
                       for s, h in sorted(mounts.items(), key=lambda m: -len(m[0]))}
        self.workdir = workdir
        self._refusal = refusal

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        candidate = PurePosixPath(os.path.expanduser(str(path)))
        sandbox = PurePosixPath(os.path.normpath(PurePosixPath(self.workdir) / candidate))
        for mount, host in self.mounts.items():
            if sandbox == PurePosixPath(mount) or PurePosixPath(mount) in sandbox.parents:
                real = Path(os.path.realpath(host / sandbox.relative_to(mount)))
                if real == host or host in real.parents:
                    return real
                break
        raise PathEscapeError(self._refusal.format(path=path))

    def relative(self, path: Path) -> str:
        """How a resolved host path is shown to the model: relative to the work directory, else absolute."""
        for mount, host in self.mounts.items():
            if path == host or host in path.parents:
                sandbox = PurePosixPath(mount) / path.relative_to(host).as_posix()
                if sandbox == PurePosixPath(self.workdir) or PurePosixPath(self.workdir) in sandbox.parents:
                    rel = os.path.relpath(sandbox, self.workdir)
                    return "." if rel == "." else rel
                return str(sandbox)
        return str(path)

    def sandbox_dirs(self) -> list[str]:
        return sorted(self.mounts)
