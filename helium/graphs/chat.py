"""The chat flow: the agent loop with the workspace tools, approvals on every risky call."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from helium.config import ApprovalMode, Settings
from helium.environments import LocalEnvironment
from helium.graphs.agent_loop import build_agent_loop, workspace_loop_context
from helium.graphs.prompts import CHAT_SYSTEM_PROMPT
from helium.graphs.research import nested_research
from helium.nodes.context import AgentContext
from helium.rag.index import open_rag_index
from helium.rag.search_tool import search_files_tool
from helium.state.runs import RunRecord
from helium.state.store import ProjectStore
from helium.tools.research import research_tool

FLOW = "chat"
DEFAULT_MAX_TURNS = 20


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    return build_agent_loop(checkpointer, name=FLOW)


def build_context(settings: Settings, store: ProjectStore, run: RunRecord, approval: ApprovalMode) -> AgentContext:
    """Chat runs commands straight in the workspace: the permission gate is what guards the machine."""
    return workspace_loop_context(
        settings, store, run, approval,
        system_prompt=CHAT_SYSTEM_PROMPT.format(workspace=settings.workspace),
        environment=LocalEnvironment(settings.workspace, isolate=False),
        default_max_turns=DEFAULT_MAX_TURNS,
        extra_tools=[search_files_tool(open_rag_index(settings, store, confined=True)),
                     research_tool(nested_research(settings, store, run))],
    )


graph = build_graph()
"""For LangGraph's dev server and Studio (langgraph.json); they attach their own checkpointer."""
