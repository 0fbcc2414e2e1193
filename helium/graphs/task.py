"""The task flow: the coding flow's agent loop run by the task runner inside a task's sandbox.

Every trial of `helium task run` / `batch` is one run of this flow: its tools (the file tools,
bash, the todo list) act through the task's environment, and the gate approves every call by sandbox policy
(the sandbox is the safety boundary) while still writing each decision to the audit log.
The model is the trial's agent: the configured model, or the oracle and nop policies.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from helium.config import ApprovalMode, Settings
from helium.environments import Environment
from helium.errors import HeliumError
from helium.graphs.agent_loop import build_agent_loop
from helium.graphs.coding import DEFAULT_MAX_TURNS
from helium.graphs.prompts import TASK_SYSTEM_PROMPT
from helium.nodes.context import AgentContext
from helium.state.runs import RunRecord
from helium.state.store import ProjectStore
from helium.tools import workspace_tools
from helium.tools.todo import todo_tools

FLOW = "task"


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    """The agent loop without subagents: one agent per sandbox."""
    return build_agent_loop(checkpointer, name=FLOW, subagents=False)


def build_context(settings: Settings, store: ProjectStore, run: RunRecord, approval: ApprovalMode) -> AgentContext:
    """A trial's sandbox is gone once its process stops, so a trial is re-run whole, not resumed step by step."""
    again = (f"helium task batch --resume {run.extra['batch_dir']}" if run.extra.get("batch_dir")
             else f"helium task run {run.extra.get('task_path', 'TASK')}")
    raise HeliumError(f"run {run.id} is a task trial; its sandbox ended with it, so it cannot be resumed: "
                      f"run it again with `{again}`")


def task_tools(environment: Environment) -> list[BaseTool]:
    """What the agent works with: the coding flow's file tools and bash, all in the sandbox, and its todo list."""
    return [*workspace_tools(environment), *todo_tools()]


def task_context(settings: Settings, store: ProjectStore, run: RunRecord, *, model: BaseChatModel,
                 environment: Environment, workdir: str, timeout_sec: float,
                 native_tools: bool = False) -> AgentContext:
    """The run-time context of one trial: the agent's model, tools in the sandbox, sandbox-policy approvals.

    `native_tools` is for the oracle and nop policies, which make their calls natively whatever the setting."""
    return AgentContext(
        run_id=run.id,
        model=model,
        tools=task_tools(environment),
        store=store,
        system_prompt=TASK_SYSTEM_PROMPT.format(workdir=workdir, isolation=environment.isolation,
                                                timeout=timeout_sec),
        approval="auto",
        permissions_path=settings.permissions_path,
        tool_calling="native" if native_tools else settings.tool_calling,
        max_turns=settings.max_turns or DEFAULT_MAX_TURNS,
        tool_output_limit=settings.tool_output_limit,
        environment=environment,
        sandboxed=True,
    )


graph = build_graph()
"""For LangGraph's dev server and Studio (langgraph.json)."""
