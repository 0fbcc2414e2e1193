"""The workspace root that file tools are confined to."""

from __future__ import annotations

import os
from pathlib import Path


class WorkspaceEscapeError(ValueError):
    """A path (or a symlink on it) points outside the workspace root."""


class Workspace:
    """Resolves model-given paths inside `root`; anything that escapes it, via `..` or a symlink, is refused."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        candidate = Path(path).expanduser()
        if not candidate.is_absolute():
            candidate = self.root / candidate
        real = Path(os.path.realpath(candidate))
        if real != self.root and self.root not in real.parents:
            raise WorkspaceEscapeError(f"{path} is outside the workspace {self.root}; only paths inside it can be used")
        return real

    def relative(self, path: Path) -> str:
        """How a resolved path is shown to the model: relative to the root."""
        rel = os.path.relpath(path, self.root)
        return "." if rel == "." else rel
