"""The skill flow: a fresh agent loop with a SKILL.md body in the system prompt and only its allowed tools."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from helium.config import ApprovalMode, Settings
from helium.environments import LocalEnvironment
from helium.graphs.agent_loop import build_agent_loop, workspace_loop_context
from helium.graphs.prompts import SKILL_SYSTEM_PROMPT
from helium.nodes.context import AgentContext
from helium.skills import load_skills
from helium.state.runs import RunRecord
from helium.state.store import ProjectStore

FLOW = "skill"
DEFAULT_MAX_TURNS = 20


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    return build_agent_loop(checkpointer, name=FLOW)


def build_context(settings: Settings, store: ProjectStore, run: RunRecord, approval: ApprovalMode) -> AgentContext:
    """The skill is looked up again by name, so a resumed run follows the SKILL.md as it is now."""
    skill = load_skills(settings.workspace).get(run.extra["skill"])
    return workspace_loop_context(
        settings, store, run, approval,
        system_prompt=SKILL_SYSTEM_PROMPT.format(workspace=settings.workspace, name=skill.name, body=skill.body),
        environment=LocalEnvironment(settings.workspace, isolate=False),
        default_max_turns=DEFAULT_MAX_TURNS,
        allowed_tools=skill.allowed_tools,
    )


graph = build_graph()
"""For LangGraph's dev server and Studio (langgraph.json)."""
