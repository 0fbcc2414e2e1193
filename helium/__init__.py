"""Helium: a terminal AI agent whose every flow is a durable LangGraph state graph.

The public API is kept small and import-light; `helium --help` must start fast.
"""

__version__ = "0.1.0"

__all__ = ["AgentRunner", "BatchResult", "ParallelRunner", "RunResult", "__version__", "discover_tasks"]

_RUNNER_API = frozenset({"AgentRunner", "BatchResult", "ParallelRunner", "RunResult", "discover_tasks"})


def __getattr__(name: str) -> object:
    """The task-runner API, imported on first use: it pulls in LangGraph, which `helium --help` must not."""
    if name in _RUNNER_API:
        from helium import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'helium' has no attribute {name!r}")
