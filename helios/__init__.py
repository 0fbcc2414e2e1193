"""Compatibility with the task-runner docs: `from helios import AgentRunner` is Helium's runner."""

from helium.runner import AgentRunner, BatchResult, ParallelRunner, RunResult, discover_tasks

__all__ = ["AgentRunner", "BatchResult", "ParallelRunner", "RunResult", "discover_tasks"]
