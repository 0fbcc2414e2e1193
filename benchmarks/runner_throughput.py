"""Batch throughput of the task runner at n_concurrent 1, 2 and 4, with the oracle on the example tasks.

Each batch runs every task in tasks/ `--attempts` times (a fresh temporary project per batch)
and reports wall time, trials per second and the speed-up over n_concurrent 1.

    python -m benchmarks.runner_throughput [--attempts 2] [--providers local,docker] [--levels 1,2,4]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from helium.config import load_settings
from helium.runner import ParallelRunner, discover_tasks

TASKS = Path(__file__).resolve().parents[1] / "tasks"


def batch_seconds(provider: str, n_concurrent: int, attempts: int) -> tuple[float, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        runner = ParallelRunner(discover_tasks(TASKS), n_concurrent=n_concurrent, provider=provider,
                                output_dir=Path(tmp) / "out", quiet=True, attempts=attempts, agent="oracle",
                                settings=load_settings(Path(tmp)))
        started = time.perf_counter()
        batch = asyncio.run(runner.run())
        return time.perf_counter() - started, batch.total_tasks, batch.passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=2)
    parser.add_argument("--providers", default="local,docker")
    parser.add_argument("--levels", default="1,2,4")
    args = parser.parse_args()
    table = Table(title="Batch throughput, oracle agent on tasks/ (2-core machine)")
    for column in ("provider", "n_concurrent", "trials", "passed", "seconds", "trials/s", "speed-up"):
        table.add_column(column, justify="right")
    for provider in args.providers.split(","):
        batch_seconds(provider, 1, 1)  # warm-up: docker builds the tasks' images once
        base = None
        for level in (int(n) for n in args.levels.split(",")):
            seconds, trials, passed = batch_seconds(provider, level, args.attempts)
            base = base or seconds
            table.add_row(provider, str(level), str(trials), str(passed), f"{seconds:.1f}", f"{trials / seconds:.2f}",
                          f"{base / seconds:.2f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
