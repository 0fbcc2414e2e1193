"""Research extraction and indexing throughput on the test corpus (tests/data/web/pages: six real pages of the
Rust documentation): pages/s through trafilatura, chunks/s embedded (offline MiniLM) and stored in Chroma."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from helium.config import load_settings
from helium.nodes.research.fetch import chunk_id
from helium.state.vectors import open_vector_store
from helium.tools.web.extract import chunk_text, extract_page
from tests.research.local_web import PAGES

ROUNDS = 5


def main() -> None:
    pages = sorted(PAGES.glob("*.html"))
    bodies = [(p.read_bytes(), f"http://127.0.0.1/pages/{p.name}") for p in pages]
    size = sum(len(b) for b, _ in bodies)
    extract_page(*bodies[0], "text/html")  # trafilatura loads its models on first use
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        texts = [extract_page(body, url, "text/html").text for body, url in bodies]
        times.append(time.perf_counter() - start)
    extract_s = statistics.median(times)
    start = time.perf_counter()
    chunks = [(url, i, c) for (_, url), text in zip(bodies, texts, strict=True) for i, c in enumerate(chunk_text(text))]
    chunk_s = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as tmp:
        store = open_vector_store(load_settings(Path(tmp)))
        start = time.perf_counter()
        store.embed(["warm up"])
        load_s = time.perf_counter() - start
        index_times = []
        for round_ in range(ROUNDS):
            collection = f"research-bench{round_}"
            start = time.perf_counter()
            store.upsert(collection, [chunk_id(url, i) for url, i, _ in chunks], [c for _, _, c in chunks],
                         [{"url": url, "chunk": i} for url, i, _ in chunks])
            index_times.append(time.perf_counter() - start)
        index_s = statistics.median(index_times)
        start = time.perf_counter()
        for _ in range(20):
            store.query("research-bench0", "how does rustdoc run documentation tests", k=4)
        query_ms = (time.perf_counter() - start) * 1000 / 20

    table = Table(title=f"Research extraction and indexing: {len(pages)} pages, {size / 1024:.0f} KB of HTML, "
                        f"{len(chunks)} chunks (median of {ROUNDS})")
    for column in ("stage", "time", "throughput"):
        table.add_column(column)
    table.add_row("extract (trafilatura: text, title, author, date)", f"{extract_s * 1000:.0f} ms",
                  f"{len(pages) / extract_s:.1f} pages/s")
    table.add_row("chunk (sentences, ~700 characters)", f"{chunk_s * 1000:.1f} ms",
                  f"{len(chunks) / chunk_s:,.0f} chunks/s")
    table.add_row("index (embed with MiniLM on the CPU + Chroma upsert)", f"{index_s * 1000:.0f} ms",
                  f"{len(chunks) / index_s:.0f} chunks/s")
    table.add_row("embedding model load (once per process)", f"{load_s:.1f} s", "-")
    table.add_row("evidence query (embed + top 4)", f"{query_ms:.0f} ms", f"{1000 / query_ms:.0f} queries/s")
    Console().print(table)


if __name__ == "__main__":
    main()
