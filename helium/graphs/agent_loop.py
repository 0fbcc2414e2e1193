"""The agent loop every tool-using flow reuses: model -> gate -> tools -> model.

Chat, coding, subagents and skills differ only in their tools, prompt and turn
limit, which arrive as run-time context (the original design's "two callables",
expressed as graph parameters).
"""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import get_runtime

from helium.config import ApprovalMode, Settings
from helium.environments import Environment
from helium.graphs.instructions import with_project_instructions
from helium.models import build_chat_model
from helium.nodes.context import AgentContext
from helium.nodes.model import call_model
from helium.nodes.permissions import gate_tool_calls
from helium.nodes.tools import run_tools
from helium.state.runs import RunRecord
from helium.state.schema import AgentState
from helium.state.store import ProjectStore
from helium.tools import workspace_tools
from helium.tools.workspace import Workspace

NODES_PER_TURN = 3


def route_after_model(state: AgentState) -> str:
    """Tool calls (valid or not) go through the gate; a plain answer ends the run."""
    message = state["messages"][-1]
    if isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls):
        return "gate"
    return END


def route_after_tools(state: AgentState) -> str:
    """Back to the model, unless the flow's turn limit is reached.

    `update_state` (forking a run) evaluates this edge outside any run, with no context:
    then the limit is checked when the forked run itself goes through here.
    """
    runtime = get_runtime(AgentContext)
    if runtime is not None and runtime.context is not None and state.get("turns", 0) >= runtime.context.max_turns:
        return END
    return "model"


def build_agent_loop(checkpointer: BaseCheckpointSaver | None = None, *, name: str) -> CompiledStateGraph:
    builder = StateGraph(AgentState, context_schema=AgentContext)
    builder.add_node("model", call_model)
    builder.add_node("gate", gate_tool_calls)
    builder.add_node("tools", run_tools)
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", route_after_model, ["gate", END])
    builder.add_edge("gate", "tools")
    builder.add_conditional_edges("tools", route_after_tools, ["model", END])
    return builder.compile(checkpointer=checkpointer, name=name)


def recursion_limit(max_turns: int) -> int:
    """An explicit step budget: every turn is at most three nodes, plus slack for the input step."""
    return max_turns * NODES_PER_TURN + 5


def workspace_loop_context(settings: Settings, store: ProjectStore, run: RunRecord, approval: ApprovalMode, *,
                           system_prompt: str, environment: Environment, default_max_turns: int,
                           extra_tools: list[BaseTool] | None = None,
                           allowed_tools: tuple[str, ...] = ()) -> AgentContext:
    """The context of a loop over the workspace tools: what chat, coding and skills share, given their prompt,
    their place and (for skills) the only tools they may use."""
    tools = [*workspace_tools(Workspace(settings.workspace), environment), *(extra_tools or [])]
    return AgentContext(
        run_id=run.id,
        model=build_chat_model(settings),
        tools=[t for t in tools if t.name in allowed_tools] if allowed_tools else tools,
        store=store,
        system_prompt=with_project_instructions(system_prompt, settings.workspace),
        approval=approval,
        permissions_path=settings.permissions_path,
        tool_calling=settings.tool_calling,
        max_turns=run.extra.get("max_turns") or settings.max_turns or default_max_turns,
        tool_output_limit=settings.tool_output_limit,
        environment=environment,
    )
