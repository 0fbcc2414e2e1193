"""Helium: a terminal AI agent whose every flow is a durable LangGraph state graph.

The public API is kept small and import-light; `helium --help` must start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph

__version__ = "0.1.0"

__all__ = ["AgentRunner", "BatchResult", "ParallelRunner", "RunResult", "__version__", "build_graph", "discover_tasks"]

_RUNNER_API = frozenset({"AgentRunner", "BatchResult", "ParallelRunner", "RunResult", "discover_tasks"})


def build_graph(flow: str, checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    """The compiled graph of a flow (chat, code, skill, research, rag, task), to draw, inspect or run
    with a checkpointer of your own; see `helium graph` for pictures."""
    from helium.graphs import flow_module

    return flow_module(flow).build_graph(checkpointer)


def __getattr__(name: str) -> object:
    """The task-runner API, imported on first use: it pulls in LangGraph, which `helium --help` must not."""
    if name in _RUNNER_API:
        from helium import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'helium' has no attribute {name!r}")
