"""The agent loop every tool-using flow reuses: model -> gate -> tools -> model, and
gate -> subagent -> model for delegated tasks, which run this same loop as subgraphs.

Chat, coding, subagents and skills differ only in their tools, prompt and turn
limit, which arrive as run-time context (the original design's "two callables",
expressed as graph parameters).
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime, get_runtime
from langgraph.types import Send
from typing_extensions import TypedDict

from helium.config import ApprovalMode, Settings
from helium.environments import Environment
from helium.graphs.instructions import with_project_instructions
from helium.memory import memory_for_run
from helium.models import build_chat_model
from helium.nodes.context import AgentContext
from helium.nodes.model import call_model
from helium.nodes.permissions import gate_tool_calls
from helium.nodes.tools import run_tools
from helium.state.runs import RunRecord
from helium.state.schema import AgentState
from helium.state.store import ProjectStore
from helium.tools import workspace_tools
from helium.tools.delegate import DEFAULT_SUBAGENT_TURNS, DELEGATE, delegate_tool

NODES_PER_TURN = 3


def route_after_model(state: AgentState) -> str:
    """Tool calls (valid or not) go through the gate; a plain answer ends the run."""
    message = state["messages"][-1]
    if isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls):
        return "gate"
    return END


def route_after_gate(state: AgentState) -> list[Send | str]:
    """Approved delegate calls fan out to subagents, one `Send` each, in parallel; other calls go to tools."""
    message = state["messages"][-1]
    assert isinstance(message, AIMessage)
    decisions = state.get("decisions", {})
    subagents = [Send("subagent", SubagentTask(call=call)) for call in message.tool_calls
                 if call["name"] == DELEGATE and decisions.get(call["id"], {}).get("approved")]
    others = len(message.tool_calls) + len(message.invalid_tool_calls) > len(subagents)
    return [*subagents, *(["tools"] if others or not subagents else [])]


def route_after_tools(state: AgentState) -> str:
    """Back to the model, unless the turn limit (the subagent's own, else the flow's) is reached.

    `update_state` (forking a run) evaluates this edge outside any run, with no context:
    then the limit is checked when the forked run itself goes through here.
    """
    runtime = get_runtime(AgentContext)
    if runtime is None or runtime.context is None:
        return "model"
    limit = state.get("max_turns") or runtime.context.max_turns
    return END if state.get("turns", 0) >= limit else "model"


class SubagentTask(TypedDict):
    call: ToolCall


def run_subagent(task: SubagentTask, runtime: Runtime[AgentContext], config: RunnableConfig) -> dict:
    """Run one delegated task as a subgraph (its own checkpoint namespace, resumed with its parent);
    its final answer and a short trace become the delegate call's result."""
    call, args = task["call"], task["call"]["args"]
    available = [t.name for t in runtime.context.tools if t.name != DELEGATE]
    listed = args.get("allowed_tools")  # left out: all the parent's tools; an empty list: none
    wanted = [name for name in (available if listed is None else listed) if name != DELEGATE]
    unknown = [name for name in wanted if name not in available]
    if unknown:
        return {"messages": [ToolMessage(f"no such tools: {', '.join(unknown)}; a subagent can use: "
                                         f"{', '.join(available)}", tool_call_id=call["id"], name=DELEGATE,
                                         status="error")]}
    max_turns = args.get("max_turns") or DEFAULT_SUBAGENT_TURNS
    result = SUBAGENT_LOOP.invoke({"messages": [HumanMessage(args["task"])], "agent_name": args["name"],
                                   "role": args["role"], "allowed_tools": wanted, "max_turns": max_turns},
                                  {**config, "recursion_limit": recursion_limit(max_turns)})
    messages = result["messages"]
    used = [c["name"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
    answer = messages[-1].text if isinstance(messages[-1], AIMessage) else "(stopped at its turn limit)"
    trace = f"[subagent {args['name']}: {result.get('turns', 0)} turns; tools: {', '.join(used) or 'none'}]"
    return {"messages": [ToolMessage(f"{answer}\n\n{trace}", tool_call_id=call["id"], name=DELEGATE)],
            "usage": result.get("usage")}


def build_agent_loop(checkpointer: BaseCheckpointSaver | None = None, *, name: str,
                     subagents: bool = True) -> CompiledStateGraph:
    """The loop; with `subagents`, approved delegate calls run as parallel subagent subgraphs."""
    builder = StateGraph(AgentState, context_schema=AgentContext)
    builder.add_node("model", call_model)
    builder.add_node("gate", gate_tool_calls)
    builder.add_node("tools", run_tools)
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", route_after_model, ["gate", END])
    if subagents:
        builder.add_node("subagent", run_subagent)
        builder.add_conditional_edges("gate", route_after_gate, ["tools", "subagent"])
        builder.add_conditional_edges("subagent", route_after_tools, ["model", END])
    else:
        builder.add_edge("gate", "tools")
    builder.add_conditional_edges("tools", route_after_tools, ["model", END])
    return builder.compile(checkpointer=checkpointer, name=name)


SUBAGENT_LOOP = build_agent_loop(name="subagent", subagents=False)
"""Subagents run this loop; it has no delegate of its own, so delegation is one level deep."""


def recursion_limit(max_turns: int) -> int:
    """An explicit step budget: every turn is at most three nodes, plus slack for the input step."""
    return max_turns * NODES_PER_TURN + 5


def workspace_loop_context(settings: Settings, store: ProjectStore, run: RunRecord, approval: ApprovalMode, *,
                           system_prompt: str, environment: Environment, default_max_turns: int,
                           extra_tools: list[BaseTool] | None = None,
                           allowed_tools: tuple[str, ...] = ()) -> AgentContext:
    """The context of a loop over the workspace tools: what chat, coding and skills share, given their prompt,
    their place and (for skills) the only tools they may use."""
    model = build_chat_model(settings)
    memory_tools, chooser = memory_for_run(settings, store, run.id, model)
    tools = [*workspace_tools(environment), *(extra_tools or []), *memory_tools, delegate_tool()]
    return AgentContext(
        run_id=run.id,
        model=model,
        tools=[t for t in tools if t.name in allowed_tools] if allowed_tools else tools,
        store=store,
        system_prompt=with_project_instructions(system_prompt, settings.workspace),
        approval=approval,
        permissions_path=settings.permissions_path,
        tool_calling=settings.tool_calling,
        max_turns=run.extra.get("max_turns") or settings.max_turns or default_max_turns,
        tool_output_limit=settings.tool_output_limit,
        environment=environment,
        context_chooser=chooser,
    )
