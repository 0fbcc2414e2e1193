"""Project instructions: AGENTS.md at the workspace root and .helium/AGENTS.md, read into every flow's prompt."""

from __future__ import annotations

from pathlib import Path

INSTRUCTION_FILES = ("AGENTS.md", ".helium/AGENTS.md")
MAX_CHARS = 20_000


def with_project_instructions(system_prompt: str, workspace: Path) -> str:
    """The flow's prompt followed by the project's instructions, when it has any."""
    sections = []
    for name in INSTRUCTION_FILES:
        path = workspace / name
        try:
            text = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if text:
            cut = "\n[…cut: the file is longer]" if len(text) > MAX_CHARS else ""
            sections.append(f"## From {name}\n{text[:MAX_CHARS]}{cut}")
    if not sections:
        return system_prompt
    return system_prompt + "\n\n# Project instructions\n" + "\n\n".join(sections)
