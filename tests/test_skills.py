"""SKILL.md discovery and parsing, on real folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from helium.errors import HeliumError
from helium.skills import load_skills, new_skill, parse_skill

PUBLIC_FORMAT = """\
---
name: pdf-notes
description: Summarise notes. Use when the user asks for a summary of notes.
allowed-tools: Read, Grep, Glob, Bash(git status:*)
---
# Notes
Read the notes and summarise them.
"""


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    user, project = tmp_path / "xdg" / "helium" / "skills", tmp_path / "ws" / ".helium" / "skills"
    user.mkdir(parents=True)
    project.mkdir(parents=True)
    return user, project


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_both_folders_load_and_the_project_wins(folders) -> None:
    user, project = folders
    write(user / "caveman" / "SKILL.md", "---\ndescription: user version\ntrigger: /caveman\n---\nGrunt.\n")
    write(user / "only-user.md", "---\ndescription: plain md file\n---\nBe brief.\n")
    write(project / "caveman" / "SKILL.md", "---\nname: caveman\ndescription: project version\n---\nUgh.\n")
    catalog = load_skills(project.parent.parent)
    assert catalog.warnings == []
    assert catalog.get("caveman").description == "project version"
    assert catalog.get("/only-user").body == "Be brief."
    assert catalog.by_trigger("/caveman").name == "caveman"


def test_the_public_format_loads_unchanged(folders) -> None:
    _, project = folders
    skill = parse_skill(write(project / "pdf-notes" / "SKILL.md", PUBLIC_FORMAT))
    assert (skill.name, skill.type, skill.trigger) == ("pdf-notes", "slash", "/pdf-notes")
    assert skill.allowed_tools == ("read_file", "grep", "glob", "bash")
    assert skill.body.startswith("# Notes")


@pytest.mark.parametrize(("text", "problem"), [
    ("no front matter\n", "no YAML front matter"),
    ("---\ndescription: [unclosed\n---\nbody\n", "not valid YAML"),
    ("---\nname: x\n---\nbody\n", "needs a 'description'"),
    ("---\ndescription: d\ntype: sometimes\n---\nbody\n", "'type' must be slash or contextual"),
    ("---\ndescription: d\n---\n", "body"),
])
def test_a_broken_skill_warns_and_the_rest_load(folders, text: str, problem: str) -> None:
    _, project = folders
    write(project / "good" / "SKILL.md", "---\ndescription: fine\n---\nOK.\n")
    write(project / "bad" / "SKILL.md", text)
    catalog = load_skills(project.parent.parent)
    assert list(catalog.skills) == ["good"]
    [warning] = catalog.warnings
    assert "bad/SKILL.md" in warning and problem in warning


def test_two_files_of_one_folder_with_the_same_name_warn(folders) -> None:
    _, project = folders
    write(project / "caveman" / "SKILL.md", "---\ndescription: folder version\n---\nUgh.\n")
    write(project / "caveman.md", "---\ndescription: plain file version\n---\nGrunt.\n")
    catalog = load_skills(project.parent.parent)
    assert catalog.get("caveman").description == "folder version"
    [warning] = catalog.warnings
    assert "caveman.md" in warning and "caveman/SKILL.md already defines 'caveman'" in warning


def test_new_skill_writes_a_template_that_loads(folders) -> None:
    _, project = folders
    path = new_skill(project.parent.parent, "reviewer")
    assert parse_skill(path).allowed_tools == ("read_file", "list_dir", "glob", "grep")
    with pytest.raises(HeliumError, match="already exists"):
        new_skill(project.parent.parent, "reviewer")
    with pytest.raises(HeliumError, match="no skill 'nope'"):
        load_skills(project.parent.parent).get("nope")
