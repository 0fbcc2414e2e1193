"""File tools: read, list, glob, grep (safe) and write, edit (risky), on an environment's files.

Where the environment's files are on this machine (`host_paths`: the user's project, a local
task sandbox) the tools work on them directly, confined to what it maps; otherwise (a docker
container, a Daytona sandbox) every call runs `fs_ops` inside the sandbox through `exec`, and
writes travel as uploads.  Either way the same functions in `fs_ops` do the work.
"""

from __future__ import annotations

import inspect
import json
import shlex
import tempfile
import uuid
from pathlib import Path
from typing import Any, Protocol

from langchain_core.tools import BaseTool, StructuredTool

from helium.environments import Environment, HostPaths
from helium.tools import fs_ops
from helium.tools.fs_ops import MAX_LISTED, MAX_MATCHES, MAX_READ_LINES, SKIPPED_DIRS
from helium.tools.tiers import Tier

__all__ = ["MAX_LISTED", "MAX_MATCHES", "MAX_READ_LINES", "SKIPPED_DIRS", "file_access", "file_tools"]


class FileAccess(Protocol):
    """The six operations, wherever the files are."""

    def read_file(self, path: str, offset: int, limit: int) -> str: ...
    def list_dir(self, path: str) -> str: ...
    def glob(self, pattern: str, path: str) -> str: ...
    def grep(self, pattern: str, path: str, include: str | None, ignore_case: bool) -> str: ...
    def read_text(self, path: str) -> str: ...
    def write_text(self, path: str, content: str) -> str:
        """Write and return the path as the model sees it."""
        ...


class HostFiles:
    """Files on this machine, through a path map that confines them (a workspace or a task sandbox)."""

    def __init__(self, paths: HostPaths) -> None:
        self.paths = paths

    def _show(self, path: str) -> str:
        return self.paths.relative(Path(path))

    def read_file(self, path: str, offset: int, limit: int) -> str:
        return fs_ops.read_file(str(self.paths.resolve(path)), path, offset, limit)

    def list_dir(self, path: str) -> str:
        return fs_ops.list_dir(str(self.paths.resolve(path)), path)

    def glob(self, pattern: str, path: str) -> str:
        return fs_ops.glob(str(self.paths.resolve(path)), pattern, self._show)

    def grep(self, pattern: str, path: str, include: str | None, ignore_case: bool) -> str:
        return fs_ops.grep(str(self.paths.resolve(path)), pattern, self._show, include, ignore_case)

    def read_text(self, path: str) -> str:
        target = self.paths.resolve(path)
        if not target.is_file():
            raise ValueError(f"{path} is not a file")
        return fs_ops.read_text(str(target))

    def write_text(self, path: str, content: str) -> str:
        target = self.paths.resolve(path)
        fs_ops.write_text(str(target), content)
        return self.paths.relative(target)


class SandboxFiles:
    """Files inside an environment this process cannot see: `fs_ops` runs there with python3."""

    _SOURCE = inspect.getsource(fs_ops)

    def __init__(self, environment: Environment) -> None:
        self.environment = environment

    def _run(self, operation: str, **arguments: Any) -> Any:
        command = f"python3 -S -c {shlex.quote(self._SOURCE)} {operation} {shlex.quote(json.dumps(arguments))}"
        result = self.environment.exec(command, timeout=120)
        try:
            answer = json.loads(result.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            detail = (result.stderr or result.stdout).strip().splitlines()
            raise ValueError(f"the file tools could not run in the {self.environment.name} environment "
                             f"(they need python3 there): {detail[-1] if detail else f'exit code {result.exit_code}'}") from None
        if "error" in answer:
            raise ValueError(answer["error"])
        return answer["ok"]

    def read_file(self, path: str, offset: int, limit: int) -> str:
        return self._run("read_file", path=path, offset=offset, limit=limit)

    def list_dir(self, path: str) -> str:
        return self._run("list_dir", path=path)

    def glob(self, pattern: str, path: str) -> str:
        return self._run("glob", path=path, pattern=pattern)

    def grep(self, pattern: str, path: str, include: str | None, ignore_case: bool) -> str:
        return self._run("grep", path=path, pattern=pattern, include=include, ignore_case=ignore_case)

    def read_text(self, path: str) -> str:
        return self._run("read_text", path=path)

    def write_text(self, path: str, content: str) -> str:
        staged = f"/tmp/helium-write-{uuid.uuid4().hex}"
        with tempfile.TemporaryDirectory(prefix="helium-write-") as scratch:
            local = Path(scratch, "content")
            local.write_text(content, encoding="utf-8")
            local.chmod(0o644)
            self.environment.upload(local, staged)
        self._run("move_into", path=path, source=staged)
        return fs_ops.sandbox_show(path, self.environment.root)


def file_access(environment: Environment) -> FileAccess:
    """Directly on this machine where the environment's files are here, through the environment otherwise."""
    paths = environment.host_paths
    return HostFiles(paths) if paths is not None else SandboxFiles(environment)


def file_tools(access: FileAccess) -> list[BaseTool]:
    """The six file tools over one place's files (no global state: each run builds its own)."""

    def read_file(path: str, offset: int = 1, limit: int = MAX_READ_LINES) -> str:
        """Read a text file. Lines come numbered; use offset (1-based line) and limit to page through long files."""
        return access.read_file(path, offset, limit)

    def list_dir(path: str = ".") -> str:
        """List a directory: one entry per line, directories end with '/'."""
        return access.list_dir(path)

    def glob(pattern: str, path: str = ".") -> str:
        """Find files by glob pattern relative to path, e.g. '**/*.py' or 'src/*.ts'; '*.md' alone matches names at any depth."""
        return access.glob(pattern, path)

    def grep(pattern: str, path: str = ".", include: str | None = None, ignore_case: bool = False) -> str:
        """Search file contents for a regular expression; prints 'file:line: text'. include filters file names by glob."""
        return access.grep(pattern, path, include, ignore_case)

    def write_file(path: str, content: str) -> str:
        """Create or overwrite a text file with content; parent directories are created."""
        return f"wrote {len(content.encode())} bytes to {access.write_text(path, content)}"

    def edit_file(path: str, old_text: str, new_text: str, replace_all: bool = False) -> str:
        """Replace old_text with new_text in a file. old_text must occur exactly once unless replace_all is true."""
        text, count = fs_ops.apply_edit(access.read_text(path), path, old_text, new_text, replace_all)
        return f"replaced {count} occurrence(s) in {access.write_text(path, text)}"

    tiers = {read_file: Tier.SAFE, list_dir: Tier.SAFE, glob: Tier.SAFE, grep: Tier.SAFE,
             write_file: Tier.RISKY, edit_file: Tier.RISKY}
    return [StructuredTool.from_function(fn, metadata={"tier": tier}) for fn, tier in tiers.items()]
