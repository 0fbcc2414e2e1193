"""The workspace root that file tools are confined to."""

from __future__ import annotations

import os
from pathlib import Path

from helium.environments.paths import PathEscapeError, SandboxPaths

WorkspaceEscapeError = PathEscapeError
"""A path (or a symlink on it) points outside the workspace root."""


class Workspace(SandboxPaths):
    """Resolves model-given paths inside `root`; anything that escapes it, via `..` or a symlink, is refused."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        super().__init__({str(self.root): self.root}, str(self.root),
                         f"{{path}} is outside the workspace {self.root}; only paths inside it can be used")
