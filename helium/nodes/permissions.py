"""The permission gate: decides every tool call of a model turn before anything runs.

Safe calls pass; risky ones (and bash commands classified risky) need approval.  In
`ask` mode the gate pauses the run with `interrupt()`: a run waiting for a human is
just a checkpoint, so it survives the process and resumes with `helium resume`.
The node re-runs from its start on resume, so its side effects (the audit log,
"always" rules) come after the interrupt and are idempotent.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from helium.nodes.context import AgentContext
from helium.state.schema import AgentState, Decision
from helium.tools.invocation import argument_error
from helium.tools.permissions import PermissionRules, always_rule, needs_approval

APPROVE, DENY, ALWAYS = "yes", "no", "always"


def gate_tool_calls(state: AgentState, runtime: Runtime[AgentContext], config: RunnableConfig) -> dict:
    ctx = runtime.context
    message = state["messages"][-1]
    assert isinstance(message, AIMessage)
    rules = PermissionRules.load(ctx.permissions_path)
    decisions: dict[str, Decision] = {}
    pending: list[tuple[dict, str]] = []
    allowed = state.get("allowed_tools") if state.get("agent_name") else None
    for call in message.tool_calls:
        tool = ctx.tool_named(call["name"])
        if tool is None or argument_error(tool, call["args"]):
            continue  # the tools node answers these with a tool error; nothing to approve
        if allowed is not None and call["name"] not in allowed:
            decisions[call["id"]] = Decision(
                approved=False, decided_by="subagent-policy",
                reason=f"{call['name']} is not among subagent {state['agent_name']}'s allowed tools "
                       f"({', '.join(allowed) or 'none'})")
            continue
        if ctx.sandboxed:
            decisions[call["id"]] = Decision(approved=True, decided_by="sandbox-policy",
                                             reason="a task trial: the task's sandbox is the safety boundary")
            continue
        ruled = rules.verdict(call["name"], call["args"])
        if ruled:
            verdict, rule = ruled
            decisions[call["id"]] = Decision(approved=verdict == "allow", decided_by="rule",
                                             reason=f"{verdict} rule for {rule.tool} in permissions.toml")
            continue
        needed, why = needs_approval(tool, call["args"])
        if not needed:
            decisions[call["id"]] = Decision(approved=True, decided_by="policy", reason=why)
        elif ctx.approval == "auto":
            decisions[call["id"]] = Decision(approved=True, decided_by="auto-approve", reason=why)
        elif ctx.approval == "deny":
            decisions[call["id"]] = Decision(approved=False, decided_by="deny-mode",
                                             reason=f"{why}; nobody can approve it in this run")
        else:
            pending.append((call, why))

    if pending:
        answers = interrupt({
            "kind": "approval",
            "calls": [{"id": c["id"], "tool": c["name"], "args": c["args"], "reason": why} for c, why in pending],
        })
        for call, why in pending:
            answer = answers.get(call["id"], DENY) if isinstance(answers, dict) else DENY
            if answer == ALWAYS:
                rules = rules.with_allow(always_rule(call["name"], call["args"]))
                rules.save(ctx.permissions_path)
            decisions[call["id"]] = Decision(approved=answer in (APPROVE, ALWAYS), decided_by="user", reason=why)

    checkpoint_id = config["configurable"].get("checkpoint_map", {}).get("")
    for call in message.tool_calls:
        if call["id"] in decisions:
            d = decisions[call["id"]]
            ctx.store.audit.record(ctx.run_id, checkpoint_id, call["id"], call["name"], call["args"],
                                   d["approved"], d["decided_by"], d["reason"])
    return {"decisions": decisions}
