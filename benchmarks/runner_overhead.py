"""Per-trial overhead of the task runner outside agent and verifier time, local vs docker.

Runs `create-hello-file` with the oracle agent several times per provider (sequentially, in a
temporary project) and splits each trial's wall time, from its result.json, into the agent,
the verifier, the environment (start, Dockerfile replay or image lookup, stop) and the rest
(loading the task, the store, writing outputs). `total` is the wall time of the whole trial as a caller
sees it (`AgentRunner.run_trial()`); overhead = total - agent - verifier.

    python -m benchmarks.runner_overhead [--trials 5] [--providers local,docker]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from helium.config import load_settings
from helium.runner import AgentRunner

TASK = Path(__file__).resolve().parents[1] / "tasks" / "create-hello-file"


def measure(provider: str, trials: int, root: Path) -> list[dict[str, float]]:
    settings = load_settings(root)
    rows = []
    for _ in range(trials + 1):  # the first trial warms up (docker builds and caches the task's image)
        runner = AgentRunner(TASK, provider=provider, output_dir=root / "out", agent="oracle", settings=settings)
        started = time.perf_counter()
        record = runner.run_trial()
        wall = time.perf_counter() - started
        if record.result.error:
            raise SystemExit(f"{provider}: the trial failed: {record.result.error}")
        t = record.timings
        rows.append({"total": wall, "agent": t["agent"], "verifier": t["verifier"],
                     "environment": t["environment"], "overhead": wall - t["agent"] - t["verifier"]})
    return rows[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--providers", default="local,docker")
    args = parser.parse_args()
    table = Table(title=f"Per-trial time, oracle on create-hello-file (median of {args.trials}, seconds)")
    for column in ("provider", "total", "agent", "verifier", "environment", "overhead", "overhead share"):
        table.add_column(column, justify="right")
    medians = {}
    with tempfile.TemporaryDirectory() as tmp:
        for provider in args.providers.split(","):
            rows = measure(provider, args.trials, Path(tmp) / provider)
            m = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
            medians[provider] = m
            table.add_row(provider, f"{m['total']:.3f}", f"{m['agent']:.3f}", f"{m['verifier']:.3f}",
                          f"{m['environment']:.3f}", f"{m['overhead']:.3f}", f"{m['overhead'] / m['total']:.0%}")
    console = Console()
    console.print(table)
    if {"local", "docker"} <= set(medians):
        console.print(f"docker / local: total {medians['docker']['total'] / medians['local']['total']:.1f}x, "
                      f"overhead {medians['docker']['overhead'] / medians['local']['overhead']:.1f}x")


if __name__ == "__main__":
    main()
