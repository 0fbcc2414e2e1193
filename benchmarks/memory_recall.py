"""Memory: remembering (embed + SQLite + Chroma) facts/s, recall latency p50/p95 by keyword, by meaning and
merged, entity queries, and what choosing a new run's recalled context costs.

Facts are generated from templates (services, tools, people, preferences) into a fresh project with the
offline MiniLM model; the model load is timed once, apart from everything else.

    python -m benchmarks.memory_recall [--facts 200] [--queries 40] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from helium.memory.recall import ContextChooser
from helium.memory.store import MemoryStore
from helium.memory.triples import Extraction, fallback_triples
from helium.state.store import ProjectStore
from helium.state.vectors import LocalEmbedder, VectorStore

SERVICES = ["billing", "search", "auth", "payments", "reporting", "notifications", "gateway", "scheduler"]
TOOLS = ["PostgreSQL", "Redis", "Kafka", "SQLite", "Elasticsearch", "RabbitMQ", "S3", "gRPC", "FastAPI", "Celery"]
PEOPLE = ["Ada", "Grace", "Linus", "Barbara", "Ken", "Margaret", "Dennis", "Frances"]
LIKES = ["tabs over spaces", "short functions", "type hints everywhere", "dark mode", "pytest fixtures",
         "small commits", "British spelling", "early returns", "dataclasses", "rebase over merge"]
QUERIES = ["which database does the billing service use?", "what do I prefer?", "who owns the gateway?",
           "how should I format my code?", "what queue do we use for notifications?", "where are payments stored?",
           "what does the search service depend on?", "who maintains the scheduler?"]
SKILLS = {"reviewer": "Review Python code for bugs and style problems",
          "sql": "Write and explain SQL queries and PostgreSQL migrations",
          "git": "Explain git commands and resolve merge conflicts"}


def generated_facts(count: int) -> list[str]:
    templates = itertools.cycle([
        lambda i: f"The {SERVICES[i % 8]} service uses {TOOLS[i % 10]} version {i % 7 + 1}",
        lambda i: f"I prefer {LIKES[i % 10]} in project {i}",
        lambda i: f"{PEOPLE[i % 8]} maintains the {SERVICES[(i + 3) % 8]} component number {i}",
        lambda i: f"The {SERVICES[(i + 5) % 8]} service depends on {TOOLS[(i + 2) % 10]} for job {i}",
    ])
    return [next(templates)(i) for i in range(count)]


def timed(action: Callable[[], Any], repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def measure(facts: int, queries: int) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="helium-memory-bench-"))
    embedder = LocalEmbedder()
    start = time.perf_counter()
    embedder.embed(["warm up"])
    model_load = time.perf_counter() - start
    store = ProjectStore(root / ".helium" / "helium.db")
    memory = MemoryStore.open(store, VectorStore(root / ".helium" / "chroma", embedder))
    texts = generated_facts(facts)
    start = time.perf_counter()
    for text in texts:
        memory.add(text, Extraction(fallback_triples(text), "fallback"))
    remember_s = time.perf_counter() - start
    asked = [QUERIES[i % len(QUERIES)] for i in range(queries)]
    cycle = itertools.cycle(asked)
    rows = {
        "keyword (FTS5)": timed(lambda: memory.keyword_search(next(cycle)), queries),
        "meaning (embed + Chroma)": timed(lambda: memory.similar(next(cycle)), queries),
        "recall: both, merged": timed(lambda: memory.search(next(cycle)), queries),
        "entity triples": timed(lambda: memory.triples_about(next(cycle)), queries),
    }
    skills = root / ".helium" / "skills"
    for name, description in SKILLS.items():
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(f"---\ndescription: {description}\ntype: contextual\n---\nDo it.\n")
    chooser = ContextChooser(root, "bench", memory.vectors, memory, 0.25, 0.35)
    rows[f"new run's context ({facts} facts, 3 skills)"] = timed(lambda: chooser.choose(next(cycle)), queries)
    empty_root = Path(tempfile.mkdtemp(prefix="helium-memory-empty-"))
    empty_store = ProjectStore(empty_root / ".helium" / "helium.db")
    empty = MemoryStore.open(empty_store, VectorStore(empty_root / ".helium" / "chroma", embedder))
    bare = ContextChooser(empty_root, "bench", empty.vectors, empty, 0.25, 0.35)
    rows["new run's context (empty memory, no skills)"] = timed(lambda: bare.choose(next(cycle)), queries)
    return {"facts": facts, "queries": queries, "model_load_s": model_load, "remember_facts_per_s": facts / remember_s,
            "latency_ms": {name: {"p50": statistics.median(s), "p95": statistics.quantiles(s, n=20)[18],
                                  "mean": statistics.fmean(s)} for name, s in rows.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--facts", type=int, default=200)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    result = measure(args.facts, args.queries)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    console = Console()
    console.print(f"model load, once per process: {result['model_load_s']:.1f} s; remembering "
                  f"{result['facts']} facts (embed + SQLite + Chroma, one at a time): "
                  f"{result['remember_facts_per_s']:.1f} facts/s")
    table = Table(title=f"memory look-ups over {result['facts']} facts ({result['queries']} queries each)")
    for column in ("operation", "p50 ms", "p95 ms", "mean ms"):
        table.add_column(column, justify="right" if column != "operation" else "left")
    for name, stats in result["latency_ms"].items():
        table.add_row(name, f"{stats['p50']:.1f}", f"{stats['p95']:.1f}", f"{stats['mean']:.1f}")
    console.print(table)


if __name__ == "__main__":
    main()
