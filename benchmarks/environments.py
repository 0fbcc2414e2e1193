"""Environment overhead: start + one exec + stop, and one exec alone, docker vs local (median of N).

    python -m benchmarks.environments [--repeats N] [--json]

Local is a task sandbox under bubblewrap (plain subprocesses where bwrap is missing); docker is a
container of helium-sandbox:bookworm with no network.  The file-tool row times one read_file:
directly on disk for local, through `python3` inside the container for docker.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from helium.environments import EnvironmentSpec, create_environment
from helium.tools import workspace_tools

REPEATS = 10


def median_ms(action: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def measure(provider: str, root: Path, repeats: int) -> dict[str, float]:
    spec = EnvironmentSpec(image="ubuntu:22.04")

    def lifecycle() -> None:
        environment = create_environment(provider, spec, local_root=root / "cycle", name=f"bench-{provider}", images={})
        environment.start()
        try:
            environment.exec("echo hello > /home/hello.txt")
        finally:
            environment.stop()

    environment = create_environment(provider, spec, local_root=root / "warm", name=f"bench-{provider}", images={})
    environment.start()
    try:
        environment.exec("echo hello > /home/hello.txt")
        read_file = next(t for t in workspace_tools(environment) if t.name == "read_file")
        return {
            "start + exec + stop": median_ms(lifecycle, repeats),
            "exec (started)": median_ms(lambda: environment.exec("cat /home/hello.txt"), repeats),
            "read_file tool": median_ms(lambda: read_file.invoke({"path": "/home/hello.txt"}), repeats),
        }
    finally:
        environment.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="helium-bench-") as scratch:
        results = {provider: measure(provider, Path(scratch, provider), args.repeats) for provider in ("local", "docker")}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    table = Table(title=f"Environment overhead, ms (median of {args.repeats})")
    for column in ("step", "local", "docker", "docker / local"):
        table.add_column(column)
    for step in results["local"]:
        local, docker = results["local"][step], results["docker"][step]
        table.add_row(step, f"{local:.1f}", f"{docker:.1f}", f"{docker / local:.1f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
