"""Trajectories in ATIF, Harbor's Agent Trajectory Interchange Format (v1.4), and the steps `RunResult` lists.

A trial's messages become one ATIF document: a system step (the prompt), a user step (the
task's instruction), then one agent step per model turn with its tool calls, the tools'
results as the step's observation and the turn's token counts as its metrics.
`tool_steps` reads the tool calls back out of that document, so the in-memory result and
`agent/trajectory.json` can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

ATIF_VERSION = "ATIF-v1.4"


@dataclass(frozen=True)
class TrajectoryStep:
    """One tool call of the agent: what it called, with what, and what came back."""

    tool_name: str
    tool_input: dict[str, Any]
    tool_output: str
    tool_call_id: str
    step_id: int


def atif_document(*, session_id: str, agent_name: str, agent_version: str, model_name: str | None,
                  messages: list[BaseMessage], system_prompt: str | None = None,
                  notes: str | None = None) -> dict[str, Any]:
    """The ATIF trajectory of one run's messages (in the order the agent loop stored them)."""
    steps: list[dict[str, Any]] = []
    if system_prompt:
        steps.append({"source": "system", "message": system_prompt})
    results: dict[str, str] = {m.tool_call_id: m.text for m in messages if isinstance(m, ToolMessage)}
    totals = {"prompt": 0, "completion": 0}
    for message in messages:
        if isinstance(message, SystemMessage):
            steps.append({"source": "system", "message": message.text})
        elif isinstance(message, HumanMessage):
            steps.append({"source": "user", "message": message.text})
        elif isinstance(message, AIMessage):
            steps.append(_agent_step(message, model_name, results, totals))
    for number, step in enumerate(steps, 1):
        step["step_id"] = number
    document: dict[str, Any] = {
        "schema_version": ATIF_VERSION,
        "session_id": session_id,
        "agent": {"name": agent_name, "version": agent_version, **({"model_name": model_name} if model_name else {})},
        "steps": [{"step_id": s.pop("step_id"), **s} for s in steps],
        "final_metrics": {"total_prompt_tokens": totals["prompt"], "total_completion_tokens": totals["completion"],
                          "total_steps": len(steps)},
    }
    if notes:
        document["notes"] = notes
    return document


def _agent_step(message: AIMessage, model_name: str | None, results: dict[str, str],
                totals: dict[str, int]) -> dict[str, Any]:
    step: dict[str, Any] = {"source": "agent", "message": message.text}
    if model_name:
        step["model_name"] = model_name
    if message.tool_calls:
        step["tool_calls"] = [{"tool_call_id": c["id"], "function_name": c["name"], "arguments": c["args"]}
                              for c in message.tool_calls]
        step["observation"] = {"results": [{"source_call_id": c["id"], "content": results.get(c["id"], "")}
                                           for c in message.tool_calls]}
    usage = message.usage_metadata
    if usage:
        step["metrics"] = {"prompt_tokens": usage.get("input_tokens", 0),
                           "completion_tokens": usage.get("output_tokens", 0)}
        totals["prompt"] += usage.get("input_tokens", 0)
        totals["completion"] += usage.get("output_tokens", 0)
    return step


def tool_steps(document: dict[str, Any]) -> list[TrajectoryStep]:
    """Every tool call in an ATIF document, in order, paired with its observed result."""
    found: list[TrajectoryStep] = []
    for step in document.get("steps", []):
        observed = {r.get("source_call_id"): r.get("content", "")
                    for r in (step.get("observation") or {}).get("results", [])}
        for call in step.get("tool_calls") or []:
            found.append(TrajectoryStep(call["function_name"], dict(call.get("arguments") or {}),
                                        str(observed.get(call["tool_call_id"], "")), call["tool_call_id"],
                                        step["step_id"]))
    return found
