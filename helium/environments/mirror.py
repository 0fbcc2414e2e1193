"""A project directory mirrored into a sandbox: copied in at the start, changed files copied back at the end.

`helium run code --env docker` works on a copy of the current directory inside a
container; when the run stops (done, waiting for approval, failed or interrupted) the
files the run added, changed or deleted there are applied to the directory, except where
the directory's own copy changed meanwhile (a conflict: left alone and reported).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from helium.environments.base import Environment, ExecResult


@dataclass
class SyncReport:
    """What came back from the sandbox, as paths relative to the project."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = [f"{len(v)} {k}" for k, v in (("added", self.added), ("changed", self.changed),
                                              ("deleted", self.deleted)) if v]
        names = [*self.added, *self.changed, *self.deleted]
        line = f"copied back from the sandbox: {', '.join(parts)} ({', '.join(names)})" if parts \
            else "copied back from the sandbox: no file changed"
        if self.conflicts:
            line += f"; left alone because they changed here meanwhile: {', '.join(self.conflicts)}"
        return line


def _fingerprints(root: Path, skip: frozenset[str]) -> dict[str, str]:
    """relative path -> sha256 of every regular file under root, outside skipped directories."""
    prints: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames:
            path = Path(dirpath, name)
            if path.is_file() and not path.is_symlink():
                prints[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return prints


class ProjectMirror:
    """Wraps an environment: its work directory holds a copy of `project` while it runs."""

    def __init__(self, inner: Environment, project: Path, *, skip: frozenset[str],
                 on_sync: Callable[[SyncReport], None] | None = None) -> None:
        self.inner = inner
        self.project = project
        self.skip = skip
        self.on_sync = on_sync
        self.name = inner.name
        self.root = inner.root
        self._uploaded: dict[str, str] | None = None

    @property
    def isolation(self) -> str:
        return f"{self.inner.isolation}; this directory is copied to {self.root} and changed files come back at the end"

    @property
    def host_paths(self) -> None:
        return None

    def start(self) -> None:
        self.inner.start()
        try:
            with tempfile.TemporaryDirectory(prefix="helium-mirror-") as scratch:
                staged = Path(scratch, "project")
                shutil.copytree(self.project, staged, symlinks=True, ignore=shutil.ignore_patterns(*self.skip))
                self.inner.upload(staged, self.root)
                self._uploaded = _fingerprints(staged, self.skip)
        except BaseException:
            self.inner.stop()
            raise

    def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
             timeout: float | None = None) -> ExecResult:
        return self.inner.exec(command, cwd=cwd, env=env, timeout=timeout)

    def upload(self, source: Path, target: str) -> None:
        self.inner.upload(source, target)

    def download(self, source: str, target: Path) -> None:
        self.inner.download(source, target)

    def stop(self) -> None:
        try:
            if self._uploaded is not None:
                report = self.sync_back(self._uploaded)
                self._uploaded = None
                if self.on_sync:
                    self.on_sync(report)
        finally:
            self.inner.stop()

    def sync_back(self, uploaded: dict[str, str]) -> SyncReport:
        """Apply what the run changed in the sandbox to the project; the project's own edits win."""
        report = SyncReport()
        current = _fingerprints(self.project, self.skip)
        with tempfile.TemporaryDirectory(prefix="helium-mirror-") as scratch:
            back = Path(scratch, "project")
            self.inner.download(self.root, back)
            remote = _fingerprints(back, self.skip)
            for rel, digest in sorted(remote.items()):
                if uploaded.get(rel) == digest:
                    continue
                if current.get(rel) != uploaded.get(rel):
                    report.conflicts.append(rel)
                    continue
                (report.changed if rel in uploaded else report.added).append(rel)
                destination = self.project / rel
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(back / rel, destination)
            for rel in sorted(set(uploaded) - set(remote)):
                if current.get(rel) != uploaded[rel]:
                    report.conflicts.append(rel)
                elif rel in current:
                    (self.project / rel).unlink()
                    report.deleted.append(rel)
        return report
