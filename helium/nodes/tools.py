"""The tools node: runs the approved calls of a model turn, once each, even across crashes."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.runtime import Runtime

from helium.nodes.context import AgentContext
from helium.state.schema import AgentState, Decision
from helium.tools.delegate import runs_as_subagent
from helium.tools.invocation import ToolOutcome, invoke_tool, state_key

INTERRUPTED_CALL = ("this call was interrupted when the process running it stopped; it was not run again, "
                    "so it may have partly happened: check its effects before calling it again")


def run_tools(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    ctx = runtime.context
    message = state["messages"][-1]
    assert isinstance(message, AIMessage)
    ids = [c["id"] for c in message.tool_calls] + [c["id"] for c in message.invalid_tool_calls]
    ctx.store.ledger.forget_other_calls(ctx.run_id, ids)
    results = [
        ToolMessage(f"the arguments of {bad['name']} are not valid JSON ({bad.get('error') or 'parse error'}); "
                    "send them as one JSON object", tool_call_id=bad["id"], name=bad["name"] or "unknown",
                    status="error")
        for bad in message.invalid_tool_calls
    ]
    decisions = state.get("decisions", {})
    state_updates: dict[str, Any] = {}
    for call in message.tool_calls:
        tool = ctx.tool_named(call["name"])
        decision = decisions.get(call["id"])
        if runs_as_subagent(tool) and decision is not None and decision["approved"]:
            continue  # the subagent node answers this call
        outcome = _run_once(ctx, call, decision, {**state, **state_updates})
        key = state_key(tool) if tool is not None else None
        if key and not outcome.is_error:
            state_updates[key] = outcome.artifact
        results.append(ToolMessage(outcome.output, tool_call_id=call["id"], name=call["name"],
                                   status="error" if outcome.is_error else "success"))
    return {"messages": results, **state_updates}


def _run_once(ctx: AgentContext, call: dict, decision: Decision | None, state: dict[str, Any]) -> ToolOutcome:
    tool = ctx.tool_named(call["name"])
    if tool is None:
        names = ", ".join(t.name for t in ctx.tools)
        return ToolOutcome(f"unknown tool {call['name']!r}; the tools you can call are: {names}", True)
    if decision is not None and not decision["approved"]:
        return ToolOutcome(f"permission denied ({decision['decided_by']}: {decision['reason']}); the call was not "
                           "run. Do not retry it; say what you wanted to do, or find another way.", True)
    key = state_key(tool)
    if key:  # a state tool only changes the state it returns: running it again on resume is harmless
        return invoke_tool(tool, call["id"], {**call["args"], key: state.get(key) or []})
    recorded = ctx.store.ledger.lookup(ctx.run_id, call["id"])
    if recorded is not None:
        status, output, is_error = recorded
        return ToolOutcome(output or "", is_error) if status == "done" else ToolOutcome(INTERRUPTED_CALL, True)
    ctx.store.ledger.started(ctx.run_id, call["id"], call["name"])
    outcome = invoke_tool(tool, call["id"], call["args"])
    output = truncate_output(outcome.output, ctx.tool_output_limit)
    ctx.store.ledger.finished(ctx.run_id, call["id"], call["name"], output, outcome.is_error)
    return ToolOutcome(output, outcome.is_error)


def truncate_output(text: str, limit: int) -> str:
    """Keep the head and tail of an over-long output, with a note saying how much was cut."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit // 2], text[-(limit // 4):]
    cut = len(text) - len(head) - len(tail)
    return (f"{head}\n[output truncated: {cut:,} of {len(text):,} characters cut; showing the first "
            f"{len(head):,} and last {len(tail):,}. Narrow the command or read the file in parts]\n{tail}")
