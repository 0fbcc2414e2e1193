"""The chat flow: the agent loop with the workspace tools."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from helium.config import ApprovalMode, Settings
from helium.graphs.agent_loop import build_agent_loop
from helium.graphs.prompts import CHAT_SYSTEM_PROMPT
from helium.models import build_chat_model
from helium.nodes.context import AgentContext
from helium.state.store import ProjectStore
from helium.tools import workspace_tools
from helium.tools.workspace import Workspace

FLOW = "chat"


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    return build_agent_loop(checkpointer, name=FLOW)


def build_context(settings: Settings, store: ProjectStore, run_id: str, approval: ApprovalMode) -> AgentContext:
    return AgentContext(
        run_id=run_id,
        model=build_chat_model(settings),
        tools=workspace_tools(Workspace(settings.workspace)),
        store=store,
        system_prompt=CHAT_SYSTEM_PROMPT.format(workspace=settings.workspace),
        approval=approval,
        permissions_path=settings.permissions_path,
        tool_calling=settings.tool_calling,
        max_turns=settings.max_turns,
        tool_output_limit=settings.tool_output_limit,
    )


graph = build_graph()
"""For LangGraph's dev server and Studio (langgraph.json); they attach their own checkpointer."""
