"""Permission tiers: every tool declares one in its metadata."""

from __future__ import annotations

from enum import StrEnum

from langchain_core.tools import BaseTool


class Tier(StrEnum):
    SAFE = "safe"
    """Runs without asking: reads and searches."""
    RISKY = "risky"
    """Needs approval: writes, edits."""
    CONDITIONAL = "conditional"
    """Classified per call (bash: the command is parsed)."""


def tier_of(tool: BaseTool) -> Tier:
    """A tool without a declared tier is treated as risky."""
    return Tier((tool.metadata or {}).get("tier", Tier.RISKY))
