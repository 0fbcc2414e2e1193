"""RAG over files: retrieval recall@5 on labelled questions, indexing chunks/s, query latency p50/p95.

The corpus is `tests/data/docs/` (real documents, see its LICENSES.md), indexed into a fresh project
with the offline MiniLM model; the questions, each with the file and lines that answer it, are in
`benchmarks/data/rag_questions.json`.  A question is answered at rank r when the r-th passage comes
from its file and overlaps its lines.

    python -m benchmarks.rag [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from helium.config import Settings
from helium.rag import documents
from helium.rag.chunking import chunk_plain
from helium.rag.index import COLLECTION, Passage, RagIndex, open_rag_index
from helium.state.store import ProjectStore

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "tests" / "data" / "docs"
QUESTIONS = Path(__file__).resolve().parent / "data" / "rag_questions.json"
K = 5


def answering_rank(passages: list[Passage], file: str, lines: list[int]) -> int | None:
    """1-based rank of the first passage from `file` overlapping `lines`, or None."""
    for rank, passage in enumerate(passages, 1):
        if passage.path == file and passage.start <= lines[1] and passage.end >= lines[0]:
            return rank
    return None


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


@contextmanager
def line_windows_only() -> Iterator[None]:
    """The baseline: every file cut into blank-line windows, ignoring headings and definitions."""
    saved = documents.chunk_markdown, documents.chunk_python, documents.chunk_code
    documents.chunk_markdown = documents.chunk_python = documents.chunk_code = chunk_plain
    try:
        yield
    finally:
        documents.chunk_markdown, documents.chunk_python, documents.chunk_code = saved


def timed_embedding(index: RagIndex) -> list[float]:
    """Count the seconds spent embedding (the rest of indexing is reading, chunking and Chroma)."""
    spent = [0.0]
    embed = index.vectors.embed

    def timed(texts: Any) -> list[list[float]]:
        start = time.perf_counter()
        try:
            return embed(texts)
        finally:
            spent[0] += time.perf_counter() - start

    index.vectors.embed = timed  # type: ignore[method-assign]
    return spent


def run(repeats: int) -> dict[str, Any]:
    questions = json.loads(QUESTIONS.read_text())["questions"]
    with tempfile.TemporaryDirectory(prefix="helium-rag-bench-") as tmp:
        workspace = Path(tmp)
        shutil.copytree(DOCS, workspace / "docs", ignore=shutil.ignore_patterns("LICENSES.md"))
        with ProjectStore(workspace / ".helium" / "helium.db") as store:
            index = open_rag_index(Settings(workspace=workspace), store)
            start = time.perf_counter()
            index.vectors.embed(["load the model"])
            model_load = time.perf_counter() - start

            embedding = timed_embedding(index)
            start = time.perf_counter()
            report = index.add(["docs"])
            indexing = time.perf_counter() - start
            embedding_s = embedding[0]
            chunks = sum(o.chunks for o in report.with_status("indexed"))
            texts = [hit.text for hit in index.vectors.get(COLLECTION)]

            start = time.perf_counter()
            unchanged = index.add(["docs"])
            recheck = time.perf_counter() - start
            assert not unchanged.with_status("indexed"), "a second add must not index anything again"

            latencies: list[float] = []
            rows = []
            for item in questions:
                for _ in range(repeats):
                    start = time.perf_counter()
                    passages = index.search(item["question"], k=K)
                    latencies.append(time.perf_counter() - start)
                rank = answering_rank(passages, item["file"], item["lines"])
                rows.append({**item, "rank": rank, "top": passages[0].label if passages else None})
    found = [r["rank"] for r in rows]
    return {
        "documents": len(report.with_status("indexed")),
        "chunks": chunks,
        "model_load_s": model_load,
        "indexing_s": indexing,
        "chunks_per_s": chunks / indexing,
        "mean_chunk_chars": statistics.mean(len(t) for t in texts),
        "embedding_share": embedding_s / indexing,
        "recheck_unchanged_s": recheck,
        "questions": len(rows),
        "recall_at_1": sum(r == 1 for r in found) / len(rows),
        "recall_at_5": sum(r is not None for r in found) / len(rows),
        "mrr": sum(1 / r for r in found if r) / len(rows),
        "query_p50_ms": statistics.median(latencies) * 1000,
        "query_p95_ms": percentile(latencies, 0.95) * 1000,
        "queries_timed": len(latencies),
        "rows": rows,
    }


def print_tables(result: dict[str, Any], baseline: dict[str, Any]) -> None:
    console = Console()
    summary = Table(title=f"RAG over tests/data/docs ({result['documents']} files, {result['questions']} questions, "
                          f"k={K})")
    for column in ("measure", "structure-aware chunks", "line windows only (baseline)"):
        summary.add_column(column, justify="left" if column == "measure" else "right")
    rows = [
        ("chunks (mean characters)", lambda r: f"{r['chunks']} ({r['mean_chunk_chars']:.0f})"),
        ("recall@5", lambda r: f"{r['recall_at_5']:.0%}"),
        ("recall@1", lambda r: f"{r['recall_at_1']:.0%}"),
        ("MRR@5", lambda r: f"{r['mrr']:.2f}"),
        ("indexing chunks/s", lambda r: f"{r['chunks_per_s']:.1f} ({r['indexing_s']:.1f} s, "
                                        f"{r['embedding_share']:.0%} embedding)"),
        ("re-add with nothing changed", lambda r: f"{r['recheck_unchanged_s'] * 1000:.0f} ms"),
        ("query latency p50 / p95", lambda r: f"{r['query_p50_ms']:.0f} / {r['query_p95_ms']:.0f} ms"),
    ]
    for name, cell in rows:
        summary.add_row(name, cell(result), cell(baseline))
    console.print(summary)
    console.print(f"model load, once per process: {result['model_load_s']:.1f} s; "
                  f"latencies over {result['queries_timed']} timed queries")
    detail = Table(title="Questions (structure-aware chunks)")
    for column in ("question", "expected", "rank", "top passage", "baseline rank"):
        detail.add_column(column)
    for row, base in zip(result["rows"], baseline["rows"], strict=True):
        detail.add_row(row["question"], f"{row['file']}:{row['lines'][0]}-{row['lines'][1]}",
                       str(row["rank"] or "-"), row["top"] or "-", str(base["rank"] or "-"))
    console.print(detail)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="times each query is timed")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    result = run(args.repeats)
    with line_windows_only():
        baseline = run(args.repeats)
    if args.json:
        print(json.dumps({"structure_aware": result, "line_windows": baseline}, indent=2))
    else:
        print_tables(result, baseline)


if __name__ == "__main__":
    main()
