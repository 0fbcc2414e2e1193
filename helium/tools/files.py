"""File tools: read, list, glob, grep (safe) and write, edit (risky), confined to the workspace."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from langchain_core.tools import BaseTool, StructuredTool

from helium.tools.tiers import Tier
from helium.tools.workspace import Workspace

SKIPPED_DIRS = frozenset({".git", ".helium", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
                          ".pytest_cache"})
MAX_READ_LINES = 2000
MAX_LISTED = 500
MAX_MATCHES = 200


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        raise ValueError(f"{path.name} is a binary file; it cannot be read as text")
    return data.decode("utf-8", errors="replace")


def _walk_files(base: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        found.extend(Path(dirpath) / name for name in sorted(filenames))
    return found


def _glob_match(relative: str, pattern: str) -> bool:
    """Glob semantics people expect: '**/' may match no directory at all; a bare pattern matches names."""
    if "/" not in pattern:
        return fnmatch.fnmatch(os.path.basename(relative), pattern)
    return fnmatch.fnmatch(relative, pattern) or (pattern.startswith("**/") and fnmatch.fnmatch(relative, pattern[3:]))


def file_tools(workspace: Workspace) -> list[BaseTool]:
    """The six file tools, bound to one workspace (no global state: each run builds its own)."""

    def read_file(path: str, offset: int = 1, limit: int = MAX_READ_LINES) -> str:
        """Read a text file. Lines come numbered; use offset (1-based line) and limit to page through long files."""
        target = workspace.resolve(path)
        if not target.is_file():
            raise ValueError(f"{path} is not a file")
        lines = _read_text(target).splitlines()
        start = max(offset, 1) - 1
        chosen = lines[start:start + max(limit, 1)]
        body = "\n".join(f"{start + i + 1:6}\t{line}" for i, line in enumerate(chosen))
        if start + len(chosen) < len(lines):
            body += f"\n[{len(lines) - start - len(chosen)} more lines: call read_file with offset={start + len(chosen) + 1}]"
        return body or "(empty file)"

    def list_dir(path: str = ".") -> str:
        """List a directory: one entry per line, directories end with '/'."""
        target = workspace.resolve(path)
        if not target.is_dir():
            raise ValueError(f"{path} is not a directory")
        entries = sorted(target.iterdir(), key=lambda p: (not p.is_dir(), p.name))
        shown = [f"{p.name}/" if p.is_dir() else p.name for p in entries[:MAX_LISTED]]
        if len(entries) > MAX_LISTED:
            shown.append(f"[{len(entries) - MAX_LISTED} more entries]")
        return "\n".join(shown) or "(empty directory)"

    def glob(pattern: str, path: str = ".") -> str:
        """Find files by glob pattern relative to path, e.g. '**/*.py' or 'src/*.ts'; '*.md' alone matches names at any depth."""
        base = workspace.resolve(path)
        matches = sorted(workspace.relative(p) for p in _walk_files(base)
                         if _glob_match(os.path.relpath(p, base), pattern))
        shown = matches[:MAX_LISTED]
        if len(matches) > MAX_LISTED:
            shown.append(f"[{len(matches) - MAX_LISTED} more matches]")
        return "\n".join(shown) or f"no files match {pattern}"

    def grep(pattern: str, path: str = ".", include: str | None = None, ignore_case: bool = False) -> str:
        """Search file contents for a regular expression; prints 'file:line: text'. include filters file names by glob."""
        try:
            regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
        base = workspace.resolve(path)
        files = [base] if base.is_file() else _walk_files(base)
        hits: list[str] = []
        for file in files:
            if include and not fnmatch.fnmatch(file.name, include):
                continue
            try:
                text = _read_text(file)
            except (OSError, ValueError):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if regex.search(line):
                    hits.append(f"{workspace.relative(file)}:{number}: {line[:300]}")
                    if len(hits) >= MAX_MATCHES:
                        return "\n".join(hits) + f"\n[stopped at {MAX_MATCHES} matches: narrow the pattern or path]"
        return "\n".join(hits) or f"no matches for {pattern}"

    def write_file(path: str, content: str) -> str:
        """Create or overwrite a text file with content; parent directories are created."""
        target = workspace.resolve(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return f"wrote {len(content.encode())} bytes to {workspace.relative(target)}"

    def edit_file(path: str, old_text: str, new_text: str, replace_all: bool = False) -> str:
        """Replace old_text with new_text in a file. old_text must occur exactly once unless replace_all is true."""
        target = workspace.resolve(path)
        if not target.is_file():
            raise ValueError(f"{path} is not a file")
        text = _read_text(target)
        count = text.count(old_text) if old_text else 0
        if count == 0:
            raise ValueError(f"old_text was not found in {path}; read the file and copy the exact text")
        if count > 1 and not replace_all:
            raise ValueError(f"old_text occurs {count} times in {path}; add context to make it unique "
                             "or set replace_all")
        target.write_text(text.replace(old_text, new_text), encoding="utf-8")
        return f"replaced {count if replace_all else 1} occurrence(s) in {workspace.relative(target)}"

    tiers = {read_file: Tier.SAFE, list_dir: Tier.SAFE, glob: Tier.SAFE, grep: Tier.SAFE,
             write_file: Tier.RISKY, edit_file: Tier.RISKY}
    return [StructuredTool.from_function(fn, metadata={"tier": tier}) for fn, tier in tiers.items()]
