"""Cold start: `helium --help` against `python -c pass`, median of repeated runs.  Target: < 0.3 s."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from rich.console import Console
from rich.table import Table

REPEATS = 15


def median_seconds(command: list[str]) -> float:
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    baseline = median_seconds([sys.executable, "-c", "pass"])
    helium = median_seconds([sys.executable, "-m", "helium", "--help"])
    version = median_seconds([sys.executable, "-m", "helium", "--version"])
    table = Table(title=f"Cold start (median of {REPEATS})")
    for column in ("command", "seconds", "over python -c pass"):
        table.add_column(column)
    table.add_row("python -c pass", f"{baseline:.3f}", "-")
    table.add_row("helium --help", f"{helium:.3f}", f"+{helium - baseline:.3f}")
    table.add_row("helium --version", f"{version:.3f}", f"+{version - baseline:.3f}")
    Console().print(table)
    Console().print("target: helium --help under 0.3 s")


if __name__ == "__main__":
    main()
