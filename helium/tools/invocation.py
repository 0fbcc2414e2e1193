"""Calling a tool with model-given arguments: validation errors and failures become text for the model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from pydantic import ValidationError

NO_CALLBACKS = RunnableConfig(callbacks=[])
"""Tools run without the graph's callback handlers: nothing streams from them, and the handlers cost
about a millisecond a call (benchmarks/orchestration.py)."""


@dataclass(frozen=True)
class ToolOutcome:
    output: str
    is_error: bool
    artifact: Any = None
    """What a state tool returns besides its text: the new value of its state key."""


def state_key(tool: BaseTool) -> str | None:
    """The graph-state key a tool reads and writes (todo tools), or None for ordinary tools."""
    return (tool.metadata or {}).get("state")


def argument_error(tool: BaseTool, args: dict[str, Any]) -> str | None:
    """Why `args` do not fit the tool's schema as the model sees it, in one line, or None if they do."""
    try:
        tool.tool_call_schema.model_validate(args)  # type: ignore[union-attr]
    except ValidationError as exc:
        return _describe(tool, exc)
    return None


def invoke_tool(tool: BaseTool, call_id: str, args: dict[str, Any]) -> ToolOutcome:
    """Run one call; a failing tool is reported to the model, never raised into the graph.

    State tools are called with the whole tool call, so LangChain hands back their artifact
    (the new state); plain tools with their arguments only, which is markedly cheaper.
    """
    try:
        if state_key(tool) is None:
            return ToolOutcome(str(tool.invoke(args, config=NO_CALLBACKS)), False)
        message = tool.invoke({"type": "tool_call", "id": call_id, "name": tool.name, "args": args},
                              config=NO_CALLBACKS)
    except ValidationError as exc:
        return ToolOutcome(_describe(tool, exc), True)
    except Exception as exc:  # noqa: BLE001 - any tool failure goes back to the model as text
        return ToolOutcome(f"{tool.name} failed: {exc}", True)
    return ToolOutcome(message.text, message.status == "error", message.artifact)


def _describe(tool: BaseTool, exc: ValidationError) -> str:
    problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
    return f"invalid arguments for {tool.name}: {problems}"
