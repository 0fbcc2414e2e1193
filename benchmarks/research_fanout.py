"""Research fetch fan-out: wall time to fetch and extract 24 pages, each served with 300 ms of latency, with the
research graph's own fetch (`Send` per URL) and extract nodes on SQLite checkpoints, against the same pages
fetched and extracted one by one.  Target: at least 8x faster than sequential.

The pages are the local web's six real pages, four copies each, served from six loopback addresses
(127.0.0.1-6) so they come from six hosts, as a research run's pages do.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from dataclasses import replace
from contextlib import ExitStack
from pathlib import Path

from langgraph.graph import END, START, StateGraph
from rich.console import Console
from rich.table import Table

from helium.config import load_settings
from helium.graphs.research import route_fetches
from helium.nodes.research.context import ResearchContext
from helium.nodes.research.fetch import extract_pages, fetch_page
from helium.nodes.research.settings import ResearchSettings
from helium.state.pages import PageStore
from helium.state.research import ResearchState, Source
from helium.state.store import ProjectStore
from helium.state.vectors import open_vector_store
from helium.tools.web.extract import extract_page
from helium.tools.web.fetch import PageFetcher
from helium.tools.web.urls import normalise_url
from tests.research.local_web import LocalWeb
from tests.support.scripted_model import ScriptedChatModel

PAGES = 24
LATENCY = 0.3
HOSTS = 6
REPEATS = 5


def page_urls(webs: list[LocalWeb]) -> list[str]:
    urls = []
    for i in range(PAGES):
        web = webs[i % len(webs)]
        path = sorted(web.pages)[i % len(web.pages)]
        urls.append(f"{web.base_url}{path}?copy={i}")
    return urls


def sequential(urls: list[str]) -> float:
    fetcher = PageFetcher(ResearchSettings().fetch_limits)
    start = time.perf_counter()
    for url in urls:
        result = fetcher.fetch(url)
        assert result.body is not None, result.error
        extract_page(result.body, url, result.content_type)
    elapsed = time.perf_counter() - start
    fetcher.close()
    return elapsed


def fanned_out(urls: list[str], workspace: Path, research: ResearchSettings) -> float:
    settings = load_settings(workspace)
    with ProjectStore(settings.db_path) as store:
        run = store.runs.create("research", "benchmark", "scripted")
        context = ResearchContext(run_id=run.id, model=ScriptedChatModel(), store=store,
                                  pages=PageStore(store.conn, store.checkpointer.lock),
                                  vectors=open_vector_store(settings), providers=[],
                                  fetcher=PageFetcher(research.fetch_limits), settings=research,
                                  output_dir=workspace / "out")
        builder = StateGraph(ResearchState, context_schema=ResearchContext)
        builder.add_node("fetch", fetch_page)
        builder.add_node("extract", extract_pages)
        builder.add_conditional_edges(START, route_fetches, ["fetch", "extract"])
        builder.add_edge("fetch", "extract")
        builder.add_edge("extract", END)
        graph = builder.compile(checkpointer=store.checkpointer)
        sources = {normalise_url(u): Source(key=normalise_url(u), url=u, title="", snippet="", providers=["bench"],
                                            found_by=1, rank=0, tier="unknown", score=0.5, round=1) for u in urls}
        start = time.perf_counter()
        final = graph.invoke({"sources": sources, "selected": list(sources), "round": 1},
                             {"configurable": {"thread_id": run.id}, **context.graph_config()}, context=context)
        elapsed = time.perf_counter() - start
        assert sum(p["ok"] for p in final["pages"].values()) == PAGES, final["pages"]
        context.fetcher.close()
    return elapsed


def main() -> None:
    with ExitStack() as stack:
        webs = [stack.enter_context(LocalWeb(latency=LATENCY, host=f"127.0.0.{i + 1}")) for i in range(HOSTS)]
        urls = page_urls(webs)
        extract_page((Path(__file__).parents[1] / "tests/data/web/pages/what-is-rustc.html").read_bytes(),
                     "http://warm.up/", "text/html")  # trafilatura's first call loads its models
        variants = [ResearchSettings(), replace(ResearchSettings(), fetch_concurrency=8)]
        fan: dict[int, list[float]] = {v.fetch_concurrency: [] for v in variants}
        sequentials = []
        for _ in range(REPEATS):  # interleaved, so a shared machine's load weighs on every variant alike
            sequentials.append(sequential(urls))
            for research in variants:
                with tempfile.TemporaryDirectory() as tmp:
                    fan[research.fetch_concurrency].append(fanned_out(urls, Path(tmp), research))
        seq = statistics.median(sequentials)
    table = Table(title=f"Fetch and extract {PAGES} pages, {LATENCY * 1000:.0f} ms latency each, {HOSTS} hosts "
                        f"(median of {REPEATS})")
    for column in ("variant", "wall time", "pages/s", "speed-up"):
        table.add_column(column)
    table.add_row("one by one (fetch, extract, next)", f"{seq:.2f} s", f"{PAGES / seq:.1f}", "1.0x")
    for research in variants:
        best = statistics.median(fan[research.fetch_concurrency])
        default = " (default)" if research == ResearchSettings() else ""
        table.add_row(f"research graph: Send per URL, {research.fetch_concurrency} at once{default}, "
                      f"{research.fetch_per_host} per host", f"{best:.2f} s", f"{PAGES / best:.1f}",
                      f"{seq / best:.1f}x")
    Console().print(table)
    Console().print(f"target: at least 8x faster than one by one; load average {os.getloadavg()[0]:.1f} on "
                    f"{os.cpu_count()} cores")


if __name__ == "__main__":
    main()
