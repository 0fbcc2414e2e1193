"""Helium: a terminal AI agent whose every flow is a durable LangGraph state graph.

The public API is kept small and import-light; `helium --help` must start fast.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
