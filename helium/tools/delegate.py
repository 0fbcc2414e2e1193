"""The delegate tool: hands a task to a subagent that runs the same agent loop as a subgraph.

The graph routes approved `delegate` calls to its subagent node (one `Send` each, so
several calls in one turn run in parallel); the tools node never runs them itself.
"""

from __future__ import annotations

from typing import Annotated

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import Field

from helium.tools.tiers import Tier

DELEGATE = "delegate"
DEFAULT_SUBAGENT_TURNS = 10
MAX_SUBAGENT_TURNS = 100
"""A turn limit outside 1..100 is refused as invalid arguments, before any subagent starts."""


def delegate_tool() -> BaseTool:
    def delegate(name: str, role: str, task: str, allowed_tools: list[str] | None = None,
                 max_turns: Annotated[int, Field(ge=1, le=MAX_SUBAGENT_TURNS)] = DEFAULT_SUBAGENT_TURNS) -> str:
        """Give a self-contained task to a subagent and get its final answer back. Several delegate calls in one
        reply run in parallel. name: a short label (e.g. "researcher"); role: how it should work; task: everything
        it needs to know; allowed_tools: the only tools it may use (left out: all of yours but delegate; [] for none)."""
        raise RuntimeError("delegate runs as the graph's subagent node, not as a function")

    return StructuredTool.from_function(delegate, metadata={"tier": Tier.SAFE, "runs_as": "subagent"})


def runs_as_subagent(tool: BaseTool | None) -> bool:
    return tool is not None and (tool.metadata or {}).get("runs_as") == "subagent"
