"""Orchestration overhead: ms per agent turn of the chat graph with durable SQLite checkpoints,
against a plain Python loop making the same scripted model and tool calls.  Target: < 5 ms more."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from langgraph.types import Durability
from rich.console import Console
from rich.table import Table

from benchmarks.harness import run_bare_loop, run_graph, run_plain_loop

TURNS = 100
REPEATS = 3


def graph_ms_per_turn(durability: Durability) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_graph(Path(tmp) / "helium.db", TURNS, durability).close()
        return (time.perf_counter() - start) * 1000 / TURNS


def bare_ms_per_turn(durability: Durability) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_bare_loop(Path(tmp) / "helium.db", TURNS, durability)
        return (time.perf_counter() - start) * 1000 / TURNS


def plain_ms_per_turn() -> float:
    start = time.perf_counter()
    run_plain_loop(TURNS)
    return (time.perf_counter() - start) * 1000 / TURNS


def main() -> None:
    plain = statistics.median(plain_ms_per_turn() for _ in range(REPEATS))
    table = Table(title=f"Orchestration overhead ({TURNS} tool turns, median of {REPEATS})")
    for column in ("variant", "ms per turn", "over the plain loop", "ratio"):
        table.add_column(column)
    table.add_row("plain Python loop", f"{plain:.2f}", "-", "1.00x")
    for durability in ("async", "sync"):
        bare = statistics.median(bare_ms_per_turn(durability) for _ in range(REPEATS))
        graph = statistics.median(graph_ms_per_turn(durability) for _ in range(REPEATS))
        table.add_row(f"LangGraph alone (no-op nodes), durability={durability}", f"{bare:.2f}",
                      f"{bare - plain:+.2f} ms", f"{bare / plain:.2f}x")
        table.add_row(f"chat graph, SQLite checkpoints, durability={durability}", f"{graph:.2f}",
                      f"{graph - plain:+.2f} ms", f"{graph / plain:.2f}x")
    Console().print(table)
    Console().print("target: under +5 ms per turn; the CLI runs with LangGraph's default durability, async")


if __name__ == "__main__":
    main()
