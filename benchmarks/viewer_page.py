"""Viewer: time to build a run page for runs of 20, 100 and 200 tool turns (3 checkpoints a turn), against
reading the whole history the way `helium history` does.

LangGraph rebuilds each snapshot's messages from their deltas, so a whole history costs the square of the
run's length. The viewer shows the newest 100 checkpoints and keeps the rows it made (checkpoints never
change), so a live page's refresh makes only the new ones. Run with `python -m benchmarks.viewer_page`.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.harness import run_graph
from helium.cli.session import checkpoint_history
from helium.config import Settings
from helium.viewer.pages import run_view
from helium.viewer.timeline import TimelineCache


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def measure(turns: int) -> tuple[int, float, float, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / ".helium" / "helium.db"
        db.parent.mkdir()
        store = run_graph(db, turns)
        with store.checkpointer.lock, store.conn:  # the benchmark's loop is the chat loop under another name
            store.conn.execute("UPDATE runs SET flow = 'chat'")
        run_id = store.runs.list()[0].id
        settings, cache = Settings(workspace=Path(tmp)), TimelineCache()
        history = timed(lambda: checkpoint_history(store, run_id))
        first = timed(lambda: run_view(store, settings, run_id, cache))
        refresh = timed(lambda: run_view(store, settings, run_id, cache))
        everything = timed(lambda: run_view(store, settings, run_id, TimelineCache(), every_step=True))
        checkpoints = len(checkpoint_history(store, run_id))
        store.close()
        return checkpoints, history, first, refresh, everything


def main() -> None:
    table = Table(title="Run page build time (seconds)")
    for column in ("turns", "checkpoints", "helium history (all)", "page: newest 100", "live refresh",
                   "page: all steps", "first page vs all"):
        table.add_column(column, justify="right")
    for turns in (20, 100, 200):
        checkpoints, history, first, refresh, everything = measure(turns)
        table.add_row(str(turns), str(checkpoints), f"{history:.2f}", f"{first:.2f}", f"{refresh:.3f}",
                      f"{everything:.2f}", f"{everything / first:.1f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
