"""Orchestration overhead: ms per agent turn of the chat graph with durable SQLite checkpoints,
against a plain Python loop making the same scripted model and tool calls.  Target: < 5 ms more."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.harness import run_graph, run_plain_loop

TURNS = 100
REPEATS = 3


def main() -> None:
    graph_ms, plain_ms = [], []
    for _ in range(REPEATS):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            run_graph(Path(tmp) / "helium.db", TURNS).close()
            graph_ms.append((time.perf_counter() - start) * 1000 / TURNS)
        start = time.perf_counter()
        run_plain_loop(TURNS)
        plain_ms.append((time.perf_counter() - start) * 1000 / TURNS)
    graph, plain = statistics.median(graph_ms), statistics.median(plain_ms)
    table = Table(title=f"Orchestration overhead ({TURNS} tool turns, median of {REPEATS})")
    for column in ("variant", "ms per turn", "ratio"):
        table.add_column(column)
    table.add_row("plain Python loop", f"{plain:.2f}", "1.00x")
    table.add_row("chat graph + SQLite checkpoints", f"{graph:.2f}", f"{graph / plain:.2f}x")
    table.add_row("overhead", f"{graph - plain:+.2f}", "target < +5 ms")
    Console().print(table)


if __name__ == "__main__":
    main()
