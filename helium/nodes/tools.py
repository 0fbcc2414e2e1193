"""The tools node: runs the approved calls of a model turn, once each, even across crashes."""

from __future__ import annotations

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.runtime import Runtime

from helium.nodes.context import AgentContext
from helium.state.schema import AgentState, Decision
from helium.tools.invocation import invoke_tool

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
    for call in message.tool_calls:
        output, is_error = _run_once(ctx, call, decisions.get(call["id"]))
        results.append(ToolMessage(output, tool_call_id=call["id"], name=call["name"],
                                   status="error" if is_error else "success"))
    return {"messages": results}


def _run_once(ctx: AgentContext, call: dict, decision: Decision | None) -> tuple[str, bool]:
    tool = ctx.tool_named(call["name"])
    if tool is None:
        names = ", ".join(t.name for t in ctx.tools)
        return f"unknown tool {call['name']!r}; the tools you can call are: {names}", True
    if decision is not None and not decision["approved"]:
        return (f"permission denied ({decision['decided_by']}: {decision['reason']}); the call was not run. "
                "Do not retry it; say what you wanted to do, or find another way."), True
    recorded = ctx.store.ledger.lookup(ctx.run_id, call["id"])
    if recorded is not None:
        state, output, is_error = recorded
        return (output or "", is_error) if state == "done" else (INTERRUPTED_CALL, True)
    ctx.store.ledger.started(ctx.run_id, call["id"], call["name"])
    output, is_error = invoke_tool(tool, call["args"])
    output = truncate_output(output, ctx.tool_output_limit)
    ctx.store.ledger.finished(ctx.run_id, call["id"], call["name"], output, is_error)
    return output, is_error


def truncate_output(text: str, limit: int) -> str:
    """Keep the head and tail of an over-long output, with a note saying how much was cut."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit // 2], text[-(limit // 4):]
    cut = len(text) - len(head) - len(tail)
    return (f"{head}\n[output truncated: {cut:,} of {len(text):,} characters cut; showing the first "
            f"{len(head):,} and last {len(tail):,}. Narrow the command or read the file in parts]\n{tail}")
