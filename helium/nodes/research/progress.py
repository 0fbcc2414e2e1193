"""Progress events of a research run, sent on LangGraph's `custom` stream for the CLI's live display.

Every event is a dict with a `research` key naming what happened; outside a streamed run (a nested
research call, a test invoking the graph) there is no writer and events are dropped.
"""

from __future__ import annotations

from typing import Any

from langgraph.config import get_stream_writer


def emit(event: str, **fields: Any) -> None:
    try:
        writer = get_stream_writer()
    except RuntimeError:  # not inside a runnable context
        return
    writer({"research": event, **fields})
