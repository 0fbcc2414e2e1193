"""One module per flow; each exposes build_graph() and build_context()."""

from __future__ import annotations

from types import ModuleType

from helium.errors import HeliumError
from helium.graphs import chat, coding, rag, research, skill, task

FLOWS: dict[str, ModuleType] = {chat.FLOW: chat, coding.FLOW: coding, skill.FLOW: skill, task.FLOW: task,
                              research.FLOW: research, rag.FLOW: rag}
CONVERSATION_FLOWS = (chat.FLOW, coding.FLOW, skill.FLOW, rag.FLOW)
"""Flows that take a new user message when resumed or forked."""
FORKABLE_FLOWS = (*CONVERSATION_FLOWS, research.FLOW)
"""Flows a fork can continue (a research fork redoes the steps after it); a task trial's sandbox ended
with it, so it is re-run, not forked."""


def flow_module(name: str) -> ModuleType:
    try:
        return FLOWS[name]
    except KeyError:
        raise HeliumError(f"unknown flow {name!r}; the flows are: {', '.join(FLOWS)}") from None
