"""Permission rules from .helium/permissions.toml and tier-based approval needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from helium.environments import LocalEnvironment
from helium.errors import ConfigError
from helium.tools import workspace_tools
from helium.tools.permissions import PermissionRules, Rule, always_rule, needs_approval


def test_deny_wins_and_match_is_a_glob_on_the_subject(tmp_path: Path) -> None:
    path = tmp_path / "permissions.toml"
    path.write_text('[[allow]]\ntool = "bash"\nmatch = "pytest*"\n[[allow]]\ntool = "write_file"\n'
                    '[[deny]]\ntool = "bash"\nmatch = "pytest --pdb*"\n')
    rules = PermissionRules.load(path)
    assert rules.verdict("bash", {"command": "pytest -q"})[0] == "allow"
    assert rules.verdict("bash", {"command": "pytest --pdb"})[0] == "deny"
    assert rules.verdict("bash", {"command": "make"}) is None
    assert rules.verdict("write_file", {"path": "a", "content": "b"})[0] == "allow"


def test_always_answers_are_saved_and_reloaded(tmp_path: Path) -> None:
    path = tmp_path / ".helium" / "permissions.toml"
    rules = PermissionRules.load(path).with_allow(always_rule("bash", {"command": "make test"}))
    rules.with_allow(always_rule("edit_file", {"path": "x"})).save(path)
    assert PermissionRules.load(path).allow == (Rule("bash", "make test"), Rule("edit_file"))


def test_malformed_rules_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "permissions.toml"
    path.write_text('[[allow]]\nmatch = "x"\n')
    with pytest.raises(ConfigError, match="permissions.toml: \\[\\[allow\\]\\] entry 1 needs tool"):
        PermissionRules.load(path)


def test_tiers_decide_what_needs_approval() -> None:
    tools = {t.name: t for t in workspace_tools(LocalEnvironment(Path("."), isolate=False))}
    assert needs_approval(tools["read_file"], {"path": "x"}) == (False, "safe tool")
    assert needs_approval(tools["write_file"], {"path": "x", "content": ""})[0] is True
    assert needs_approval(tools["bash"], {"command": "git status"})[0] is False
    needed, why = needs_approval(tools["bash"], {"command": "rm -rf /"})
    assert needed and "rm" in why
