"""What the permission gate asks of a tool call: its tier, the user's rules, and why.

Rules live in `.helium/permissions.toml`, written by hand or by an "always" answer:

    [[allow]]
    tool = "bash"
    match = "pytest*"      # glob on the call's subject: the bash command, or a file tool's path

    [[deny]]
    tool = "bash"
    match = "git push*"

A rule without `match` covers every call of its tool.  Deny rules win over allow rules.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import tomli_w
from langchain_core.tools import BaseTool

from helium.errors import ConfigError
from helium.tools.bash_policy import classify_command
from helium.tools.tiers import Tier, tier_of


@dataclass(frozen=True)
class Rule:
    tool: str
    match: str | None = None

    def covers(self, tool: str, subject: str | None) -> bool:
        if self.tool != tool and self.tool != "*":
            return False
        return self.match is None or (subject is not None and fnmatch.fnmatchcase(subject, self.match))

    def to_toml(self) -> dict[str, str]:
        return {"tool": self.tool} | ({"match": self.match} if self.match is not None else {})


@dataclass(frozen=True)
class PermissionRules:
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()

    @classmethod
    def load(cls, path: Path) -> PermissionRules:
        if not path.is_file():
            return cls()
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read permission rules {path}: {exc}") from None
        return cls(allow=_rules(data, "allow", path), deny=_rules(data, "deny", path))

    def verdict(self, tool: str, args: dict[str, Any]) -> tuple[Literal["allow", "deny"], Rule] | None:
        subject = call_subject(args)
        for rule in self.deny:
            if rule.covers(tool, subject):
                return "deny", rule
        for rule in self.allow:
            if rule.covers(tool, subject):
                return "allow", rule
        return None

    def with_allow(self, rule: Rule) -> PermissionRules:
        return self if rule in self.allow else PermissionRules(allow=(*self.allow, rule), deny=self.deny)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"allow": [r.to_toml() for r in self.allow], "deny": [r.to_toml() for r in self.deny]}
        path.write_text(tomli_w.dumps({k: v for k, v in data.items() if v}), encoding="utf-8")


def _rules(data: dict[str, Any], kind: str, path: Path) -> tuple[Rule, ...]:
    entries = data.get(kind, [])
    if not isinstance(entries, list):
        raise ConfigError(f"{path}: '{kind}' must be a list of tables ([[{kind}]])")
    rules = []
    for index, entry in enumerate(entries, 1):
        if not (isinstance(entry, dict) and isinstance(entry.get("tool"), str)
                and isinstance(entry.get("match", ""), str)):
            raise ConfigError(f"{path}: [[{kind}]] entry {index} needs tool = \"NAME\" and an optional match = \"GLOB\"")
        rules.append(Rule(entry["tool"], entry.get("match")))
    return tuple(rules)


def call_subject(args: dict[str, Any]) -> str | None:
    """What a rule's `match` is tested against: a command, else a path."""
    value = args.get("command", args.get("path"))
    return value if isinstance(value, str) else None


def always_rule(tool: str, args: dict[str, Any]) -> Rule:
    """The rule an "always" answer writes: this exact command for bash, the whole tool otherwise."""
    return Rule(tool, call_subject(args)) if tool == "bash" else Rule(tool)


def needs_approval(tool: BaseTool, args: dict[str, Any]) -> tuple[bool, str]:
    """(needs approval, why) from the tool's tier; conditional tools classify the call itself."""
    tier = tier_of(tool)
    if tier is Tier.SAFE:
        return False, "safe tool"
    if tier is Tier.CONDITIONAL:
        verdict = classify_command(str(args.get("command", "")))
        return (not verdict.safe), verdict.reason
    return True, f"{tool.name} is a risky tool (it changes things)"
