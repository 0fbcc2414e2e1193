"""Run-time context of the agent loop: what a run needs that must never be checkpointed.

The chat model (which holds the API key), the tools, the store and the approval
mode are passed per invocation as LangGraph context, so a resumed run picks up the
current settings and no secret reaches a checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool

from helium.config import ApprovalMode, ToolCalling
from helium.environments import Environment

if TYPE_CHECKING:
    from helium.memory.recall import ContextChooser
    from helium.state.store import ProjectStore


@dataclass
class AgentContext:
    run_id: str
    model: BaseChatModel
    tools: list[BaseTool]
    store: ProjectStore
    system_prompt: str
    approval: ApprovalMode
    permissions_path: Path
    tool_calling: ToolCalling = "native"
    max_turns: int = 20
    tool_output_limit: int = 20_000
    environment: Environment | None = None
    """Where the tools run commands; the driver stops it when the run ends."""
    context_chooser: ContextChooser | None = None
    """Chooses the facts, summaries and contextual skills a new run's prompt gets (helium.memory)."""
    sandboxed: bool = False
    """A task trial: the sandbox is the safety boundary, so the gate approves every call by sandbox policy."""

    @cached_property
    def model_with_tools(self) -> Runnable[LanguageModelInput, AIMessage]:
        """The model with the tools bound natively, built once per run rather than once per turn."""
        return self.model.bind_tools(self.tools) if self.tools else self.model

    def tool_named(self, name: str) -> BaseTool | None:
        return next((t for t in self.tools if t.name == name), None)
