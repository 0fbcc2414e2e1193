"""The coding flow: the agent loop with file tools and bash in an environment, for long tasks.

It differs from chat only in its prompt, its turn limit (30), its todo list (kept in the
graph state) and where bash runs: the local environment isolates commands with
bubblewrap where it is installed.  Approvals
still apply: the work directory is the user's own project.
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from helium.config import ApprovalMode, Settings
from helium.environments import Environment, LocalEnvironment
from helium.errors import ConfigError
from helium.graphs.agent_loop import build_agent_loop, workspace_loop_context
from helium.graphs.prompts import CODING_SYSTEM_PROMPT
from helium.nodes.context import AgentContext
from helium.state.runs import RunRecord
from helium.state.store import ProjectStore
from helium.tools.todo import todo_tools

FLOW = "code"
DEFAULT_MAX_TURNS = 30
ENVIRONMENTS = ("local",)


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    return build_agent_loop(checkpointer, name=FLOW)


def open_environment(name: str, settings: Settings) -> Environment:
    if name == "local":
        return LocalEnvironment(settings.workspace, isolate=True)
    raise ConfigError(f"unknown environment {name!r}; available: {', '.join(ENVIRONMENTS)}")


def build_context(settings: Settings, store: ProjectStore, run: RunRecord, approval: ApprovalMode) -> AgentContext:
    environment = open_environment(run.extra.get("environment", "local"), settings)
    environment.start()
    return workspace_loop_context(
        settings, store, run, approval,
        system_prompt=CODING_SYSTEM_PROMPT.format(workspace=settings.workspace, isolation=environment.isolation),
        environment=environment,
        default_max_turns=DEFAULT_MAX_TURNS,
        extra_tools=todo_tools(),
    )


graph = build_graph()
"""For LangGraph's dev server and Studio (langgraph.json)."""
