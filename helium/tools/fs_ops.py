"""What the file tools do, in plain Python (stdlib only, no helium imports).

The same functions serve both places files can be: called in this process on files of
this machine, and run as a script inside a sandbox through its `exec`
(`python3 -c SOURCE OPERATION JSON-ARGUMENTS`, answering one JSON line), so the tools behave
the same in a container as on the local disk.  `show` turns a path into what the model sees.
"""

from __future__ import annotations

import fnmatch
import json
import os
import posixpath
import re
import sys
from collections.abc import Callable

SKIPPED_DIRS = frozenset({".git", ".helium", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
                          ".pytest_cache"})
MAX_READ_LINES = 2000
MAX_LISTED = 500
MAX_MATCHES = 200

Show = Callable[[str], str]


def read_text(path: str) -> str:
    if not os.path.isfile(path):
        raise ValueError(f"{os.path.basename(path) or path} is not a file")
    with open(path, "rb") as handle:
        data = handle.read()
    if b"\0" in data[:8192]:
        raise ValueError(f"{os.path.basename(path)} is a binary file; it cannot be read as text")
    return data.decode("utf-8", errors="replace")


def walk_files(base: str) -> list[str]:
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        found.extend(os.path.join(dirpath, name) for name in sorted(filenames))
    return found


def glob_match(relative: str, pattern: str) -> bool:
    """Glob semantics people expect: '**/' may match no directory at all; a bare pattern matches names."""
    if "/" not in pattern:
        return fnmatch.fnmatch(os.path.basename(relative), pattern)
    return fnmatch.fnmatch(relative, pattern) or (pattern.startswith("**/") and fnmatch.fnmatch(relative, pattern[3:]))


def read_file(path: str, shown: str, offset: int = 1, limit: int = MAX_READ_LINES) -> str:
    if not os.path.isfile(path):
        raise ValueError(f"{shown} is not a file")
    lines = read_text(path).splitlines()
    start = max(offset, 1) - 1
    chosen = lines[start:start + max(limit, 1)]
    body = "\n".join(f"{start + i + 1:6}\t{line}" for i, line in enumerate(chosen))
    if start + len(chosen) < len(lines):
        body += f"\n[{len(lines) - start - len(chosen)} more lines: call read_file with offset={start + len(chosen) + 1}]"
    return body or "(empty file)"


def list_dir(path: str, shown: str) -> str:
    if not os.path.isdir(path):
        raise ValueError(f"{shown} is not a directory")
    entries = sorted(os.scandir(path), key=lambda e: (not e.is_dir(), e.name))
    listed = [f"{e.name}/" if e.is_dir() else e.name for e in entries[:MAX_LISTED]]
    if len(entries) > MAX_LISTED:
        listed.append(f"[{len(entries) - MAX_LISTED} more entries]")
    return "\n".join(listed) or "(empty directory)"


def glob(base: str, pattern: str, show: Show) -> str:
    matches = sorted(show(p) for p in walk_files(base) if glob_match(os.path.relpath(p, base), pattern))
    listed = matches[:MAX_LISTED]
    if len(matches) > MAX_LISTED:
        listed.append(f"[{len(matches) - MAX_LISTED} more matches]")
    return "\n".join(listed) or f"no files match {pattern}"


def grep(base: str, pattern: str, show: Show, include: str | None = None, ignore_case: bool = False) -> str:
    try:
        regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
    files = [base] if os.path.isfile(base) else walk_files(base)
    hits: list[str] = []
    for file in files:
        if include and not fnmatch.fnmatch(os.path.basename(file), include):
            continue
        try:
            text = read_text(file)
        except (OSError, ValueError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if regex.search(line):
                hits.append(f"{show(file)}:{number}: {line[:300]}")
                if len(hits) >= MAX_MATCHES:
                    return "\n".join(hits) + f"\n[stopped at {MAX_MATCHES} matches: narrow the pattern or path]"
    return "\n".join(hits) or f"no matches for {pattern}"


def write_text(path: str, content: str) -> None:
    """Write (keeping an existing file's mode), creating parent directories."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(content)


def apply_edit(text: str, shown: str, old_text: str, new_text: str, replace_all: bool) -> tuple[str, int]:
    """The text with old_text replaced, and how many times; old_text must occur once unless replace_all."""
    count = text.count(old_text) if old_text else 0
    if count == 0:
        raise ValueError(f"old_text was not found in {shown}; read the file and copy the exact text")
    if count > 1 and not replace_all:
        raise ValueError(f"old_text occurs {count} times in {shown}; add context to make it unique or set replace_all")
    return text.replace(old_text, new_text), count if replace_all else 1


def sandbox_show(path: str, cwd: str) -> str:
    """A sandbox path as the model sees it: relative to the work directory when inside it, else absolute."""
    path = posixpath.normpath(posixpath.join(cwd, path))
    if path == cwd or path.startswith(cwd.rstrip("/") + "/"):
        return posixpath.relpath(path, cwd)
    return path


def _move_into(source: str, target: str) -> None:
    """Put an uploaded file's text at target (the sandbox side of write_file), then delete the upload."""
    with open(source, encoding="utf-8") as handle:
        write_text(target, handle.read())
    os.remove(source)


def main(argv: list[str]) -> None:
    """Inside a sandbox: run one operation on paths relative to the current directory; print one JSON line."""
    operation, arguments = argv[1], json.loads(argv[2])
    cwd = os.getcwd()

    def show(p: str) -> str:
        return sandbox_show(p, cwd)

    path = os.path.abspath(arguments.pop("path", "."))
    operations: dict[str, Callable[[], object]] = {
        "read_file": lambda: read_file(path, show(path), **arguments),
        "read_text": lambda: read_text(path),
        "list_dir": lambda: list_dir(path, show(path)),
        "glob": lambda: glob(path, arguments["pattern"], show),
        "grep": lambda: grep(path, arguments["pattern"], show, arguments.get("include"), arguments.get("ignore_case", False)),
        "move_into": lambda: _move_into(arguments["source"], path),
    }
    try:
        print(json.dumps({"ok": operations[operation]()}))
    except (OSError, ValueError) as exc:
        print(json.dumps({"error": str(exc)}))


if __name__ == "__main__":
    main(sys.argv)
