"""SKILL.md plugins: markdown files with YAML front matter, found in the user's and the project's folders.

Looked up in `~/.config/helium/skills/` and `.helium/skills/` (the project wins on a name
clash): `NAME/SKILL.md` and plain `*.md` files.  Front matter: `name`, `description`,
`trigger` (e.g. `/caveman`), `type` (`slash` or `contextual`) and `allowed_tools`, also
spelled `allowed-tools` as public SKILL.md files do, with their tool names (Read, Bash, …).
A malformed file is skipped with one warning naming it; the others still load.

Contextual skills (`type: contextual`) are not called by name: a run whose first message is close
in meaning to a skill's description (cosine similarity of their embeddings at or above the
`skill_threshold` setting, or the skill's own `threshold`) gets the skill's body in its prompt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from helium.config import user_config_dir
from helium.errors import HeliumError

SkillType = Literal["slash", "contextual"]
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)(.*)\Z", re.DOTALL)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_TOOL_ITEM = re.compile(r"[^,\s()]+(?:\([^)]*\))?")  # "Read, Bash(git status:*)" -> Read, Bash(git status:*)

# Tool names used by public SKILL.md files, and what they are called here.
TOOL_ALIASES = {"read": "read_file", "write": "write_file", "edit": "edit_file", "multiedit": "edit_file",
                "bash": "bash", "glob": "glob", "grep": "grep", "ls": "list_dir"}

SKILL_TEMPLATE = """\
---
name: {name}
description: One line saying what this skill does and when it helps.
trigger: /{name}
type: slash
allowed_tools: [read_file, list_dir, glob, grep]
---
Instructions for the model go here, in plain Markdown.
"""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    body: str
    path: Path
    trigger: str
    type: SkillType = "slash"
    allowed_tools: tuple[str, ...] = ()
    """Empty means every tool of the flow."""
    threshold: float | None = None
    """A contextual skill's own similarity threshold; None uses the `skill_threshold` setting."""


@dataclass
class SkillCatalog:
    skills: dict[str, Skill] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> Skill:
        """A skill by name or trigger (`caveman` or `/caveman`)."""
        wanted = name.lstrip("/")
        for skill in self.skills.values():
            if wanted in (skill.name, skill.trigger.lstrip("/")):
                return skill
        known = ", ".join(sorted(self.skills)) or "none yet (helium skills new NAME)"
        raise HeliumError(f"no skill {name!r}; the skills are: {known}")

    def by_trigger(self, word: str) -> Skill | None:
        return next((s for s in self.skills.values() if s.type == "slash" and s.trigger == word), None)

    def contextual(self) -> list[Skill]:
        return sorted((s for s in self.skills.values() if s.type == "contextual"), key=lambda s: s.name)


def relevant_skills(skills: Sequence[Skill], description_vectors: Sequence[Sequence[float]],
                    message_vector: Sequence[float], threshold: float, limit: int = 3) -> list[tuple[Skill, float]]:
    """The contextual skills whose description (embedded as `description_vectors`) is close enough in meaning
    to the message, closest first.  Vectors are unit length (the project's embedder normalises them), so
    similarity is a dot product.
    """
    scored = [(skill, sum(a * b for a, b in zip(vector, message_vector, strict=True)))
              for skill, vector in zip(skills, description_vectors, strict=True)]
    fired = [(skill, score) for skill, score in scored
             if score >= (skill.threshold if skill.threshold is not None else threshold)]
    return sorted(fired, key=lambda pair: -pair[1])[:limit]


def skill_folders(workspace: Path) -> list[Path]:
    """User folder first, project folder second: later folders win on a name clash."""
    return [user_config_dir() / "skills", workspace / ".helium" / "skills"]


def load_skills(workspace: Path) -> SkillCatalog:
    catalog = SkillCatalog()
    for folder in skill_folders(workspace):
        here: dict[str, Path] = {}
        for path in sorted([*folder.glob("*/SKILL.md"), *folder.glob("*.md")]):
            try:
                skill = parse_skill(path)
            except ValueError as exc:
                catalog.warnings.append(f"skipped skill {path}: {exc}")
                continue
            if skill.name in here:  # two files of one folder: neither may silently replace the other
                catalog.warnings.append(f"skipped skill {path}: {here[skill.name]} already defines {skill.name!r}")
                continue
            here[skill.name] = path
            catalog.skills[skill.name] = skill
    return catalog


def parse_skill(path: Path) -> Skill:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read it ({exc})") from None
    match = _FRONT_MATTER.match(text)
    if not match:
        raise ValueError("it has no YAML front matter between '---' lines")
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"its front matter is not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(meta, dict):
        raise ValueError("its front matter must be a mapping of keys to values")
    default_name = path.parent.name if path.name == "SKILL.md" else path.stem
    name = str(meta.get("name") or default_name)
    if not _NAME.match(name):
        raise ValueError(f"the name {name!r} may only use letters, digits, '-', '_' and '.'")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("it needs a 'description'")
    kind = meta.get("type", "slash")
    if kind not in ("slash", "contextual"):
        raise ValueError(f"'type' must be slash or contextual, not {kind!r}")
    threshold = meta.get("threshold")
    if threshold is not None and (kind != "contextual" or isinstance(threshold, bool)
                                  or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1):
        raise ValueError(f"'threshold' is for contextual skills, a number from 0 to 1, not {threshold!r}")
    trigger = str(meta.get("trigger") or f"/{name}")
    body = match.group(2).strip()
    if not body:
        raise ValueError("its body (the instructions after the front matter) is empty")
    return Skill(name=name, description=description.strip(), body=body, path=path,
                 trigger=trigger if trigger.startswith("/") else f"/{trigger}", type=kind,
                 allowed_tools=_allowed_tools(meta.get("allowed_tools", meta.get("allowed-tools"))),
                 threshold=float(threshold) if threshold is not None else None)


def _allowed_tools(value: Any) -> tuple[str, ...]:
    """A list or a comma/space separated string; public names map to ours (`Bash(git:*)` -> bash)."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else _TOOL_ITEM.findall(str(value))
    names = []
    for item in items:
        base = str(item).split("(", 1)[0].strip()
        if base:
            names.append(TOOL_ALIASES.get(base.lower(), base))
    return tuple(dict.fromkeys(names))


def new_skill(workspace: Path, name: str) -> Path:
    """Write a template SKILL.md for `name` in the project's skills folder."""
    if not _NAME.match(name):
        raise HeliumError(f"skill names may only use letters, digits, '-', '_' and '.': {name!r}")
    path = workspace / ".helium" / "skills" / name / "SKILL.md"
    if path.exists():
        raise HeliumError(f"{path} already exists")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SKILL_TEMPLATE.format(name=name), encoding="utf-8")
    return path
