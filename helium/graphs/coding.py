"""The coding flow: the agent loop with file tools and bash in an environment, for long tasks.

It differs from chat only in its prompt, its turn limit (30), its todo list (kept in the
graph state) and where its tools run: the local environment isolates commands with
bubblewrap where it is installed; the docker environment works on a copy of the directory
in a container and brings the changed files back.  Approvals still apply: the work is the
user's own project.
"""

from __future__ import annotations

from collections.abc import Callable

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from rich.console import Console

from helium.config import ApprovalMode, Settings
from helium.environments import DockerEnvironment, Environment, EnvironmentSpec, LocalEnvironment
from helium.environments.images import SANDBOX_IMAGE, image_aliases
from helium.environments.mirror import ProjectMirror, SyncReport
from helium.errors import ConfigError
from helium.graphs.agent_loop import build_agent_loop, workspace_loop_context
from helium.graphs.prompts import CODING_SYSTEM_PROMPT
from helium.nodes.context import AgentContext
from helium.state.runs import RunRecord
from helium.state.store import ProjectStore
from helium.tools.fs_ops import SKIPPED_DIRS
from helium.tools.todo import todo_tools

FLOW = "code"
DEFAULT_MAX_TURNS = 30
ENVIRONMENTS = ("local", "docker")
DOCKER_WORKDIR = "/workspace"


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    return build_agent_loop(checkpointer, name=FLOW)


def open_environment(name: str, settings: Settings,
                     on_sync: Callable[[SyncReport], None] | None = None) -> Environment:
    """`local`: this directory; `docker`: a container holding a copy of it (the image `helium-sandbox:bookworm`,
    or what `[images]` maps that name to; no network), whose changed files come back when the run stops."""
    if name == "local":
        return LocalEnvironment(settings.workspace, isolate=True)
    if name == "docker":
        container = DockerEnvironment(EnvironmentSpec(image=SANDBOX_IMAGE, workdir=DOCKER_WORKDIR),
                                      name=f"code-{settings.workspace.name}", aliases=image_aliases(settings.images))
        container.check()  # no engine or no image: one line, before a run is recorded
        return ProjectMirror(container, settings.workspace, skip=SKIPPED_DIRS, on_sync=on_sync)
    raise ConfigError(f"unknown environment {name!r}; available: {', '.join(ENVIRONMENTS)}")


def build_context(settings: Settings, store: ProjectStore, run: RunRecord, approval: ApprovalMode) -> AgentContext:
    environment = open_environment(run.extra.get("environment", "local"), settings, on_sync=_show_sync)
    environment.start()
    try:
        return workspace_loop_context(
            settings, store, run, approval,
            system_prompt=CODING_SYSTEM_PROMPT.format(workspace=environment.root, isolation=environment.isolation),
            environment=environment,
            default_max_turns=DEFAULT_MAX_TURNS,
            extra_tools=todo_tools(),
        )
    except BaseException:
        environment.stop()  # the driver stops it only once the context exists
        raise


def _show_sync(report: SyncReport) -> None:
    """Tell the user which files a sandboxed run brought back (stderr, so --json output stays one document)."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(report.summary(), markup=False)


graph = build_graph()
"""For LangGraph's dev server and Studio (langgraph.json)."""
