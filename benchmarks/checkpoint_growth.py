"""Checkpoint growth: database bytes after 50 and 200 turns with 2 KB tool outputs, against the
raw transcript bytes.  Target: at most 3x the transcript at 200 turns."""

from __future__ import annotations

import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.harness import run_graph, transcript_bytes


def measure(turns: int) -> tuple[int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "helium.db"
        store = run_graph(db, turns)
        run_id = store.runs.list()[0].id
        graph_state = store.checkpointer.get_tuple({"configurable": {"thread_id": run_id}})
        assert graph_state is not None
        from benchmarks.harness import build_agent_loop  # the graph reads messages back through its channels

        graph = build_agent_loop(store.checkpointer, name="bench")
        messages = graph.get_state({"configurable": {"thread_id": run_id}}).values["messages"]
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.close()
        return db.stat().st_size, transcript_bytes(messages)


def main() -> None:
    table = Table(title="Checkpoint growth (2 KB tool output per turn, WAL merged)")
    for column in ("turns", "database", "transcript", "ratio"):
        table.add_column(column)
    for turns in (50, 200):
        db_bytes, raw = measure(turns)
        table.add_row(str(turns), f"{db_bytes / 1e6:.2f} MB", f"{raw / 1e6:.2f} MB", f"{db_bytes / raw:.2f}x")
    Console().print(table)
    Console().print("target: at most 3x the transcript at 200 turns")


if __name__ == "__main__":
    main()
