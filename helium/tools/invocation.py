"""Calling a tool with model-given arguments: validation errors and failures become text for the model."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic import ValidationError


def argument_error(tool: BaseTool, args: dict[str, Any]) -> str | None:
    """Why `args` do not fit the tool's schema, in one line, or None if they do."""
    try:
        tool.get_input_schema().model_validate(args)
    except ValidationError as exc:
        return _describe(tool, exc)
    return None


def invoke_tool(tool: BaseTool, args: dict[str, Any]) -> tuple[str, bool]:
    """(output, is_error): a failing tool is reported to the model, never raised into the graph."""
    try:
        return str(tool.invoke(args)), False
    except ValidationError as exc:
        return _describe(tool, exc), True
    except Exception as exc:  # noqa: BLE001 - any tool failure goes back to the model as text
        return f"{tool.name} failed: {exc}", True


def _describe(tool: BaseTool, exc: ValidationError) -> str:
    problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
    return f"invalid arguments for {tool.name}: {problems}"
