"""The research flow: plan -> search (Send per query x provider) -> merge -> fetch (Send per URL) ->
extract -> index -> evidence -> reflect -> (another round, or) synthesise -> verify -> write.

Page text goes to the page store and Chroma; the state keeps URLs and chunk ids.  Every step is
checkpointed like any run, so a research run killed mid-fetch resumes where it stopped and does not
fetch again a page it already has.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from helium.config import ApprovalMode, Settings
from helium.models import build_chat_model
from helium.nodes.research.context import ResearchContext
from helium.nodes.research.fetch import FetchTask, extract_pages, fetch_page, index_pages
from helium.nodes.research.plan import plan_research
from helium.nodes.research.reflect import reflect, select_evidence
from helium.nodes.research.search import SearchTask, merge_sources, search
from helium.nodes.research.settings import ResearchSettings, research_settings
from helium.nodes.research.synthesise import synthesise
from helium.nodes.research.verify import verify_citations
from helium.nodes.research.write import write_report
from helium.state.pages import PageStore
from helium.state.research import ResearchState
from helium.state.runs import RunRecord
from helium.state.store import ProjectStore
from helium.state.vectors import open_vector_store
from helium.tools.web.fetch import PageFetcher
from helium.tools.web.search import DuckDuckGoProvider, SearchProvider, SearxngProvider

FLOW = "research"
OPTIONS = ("searxng_url", "max_rounds", "output_dir")
"""Options a research run keeps in its `extra`, so a resume runs it the same way."""


def route_searches(state: ResearchState) -> list[Send]:
    """One search branch per (query x provider) of the current round."""
    return [Send("search", SearchTask(query=q, provider=p, round=state["round"]))
            for q in state["queries"] for p in state["providers"]]


def route_fetches(state: ResearchState) -> list[Send] | str:
    """One fetch branch per selected URL; nothing new to fetch goes straight on to extraction."""
    sources = state.get("sources", {})
    selected = state.get("selected", [])
    sends = [Send("fetch", FetchTask(key=key, url=sources[key]["url"], of=len(selected))) for key in selected]
    return sends or "extract"


def route_after_reflect(state: ResearchState) -> list[Send] | str:
    """Another round when reflect moved to one (it raised `round` and set new queries), else write."""
    searched = max((r["round"] for r in state.get("searches", [])), default=0)
    return route_searches(state) if state["round"] > searched else "synthesise"


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    builder = StateGraph(ResearchState, context_schema=ResearchContext)
    builder.add_node("plan", plan_research)
    builder.add_node("search", search)
    builder.add_node("merge", merge_sources)
    builder.add_node("fetch", fetch_page)
    builder.add_node("extract", extract_pages)
    builder.add_node("index", index_pages)
    builder.add_node("evidence", select_evidence)
    builder.add_node("reflect", reflect)
    builder.add_node("synthesise", synthesise)
    builder.add_node("verify", verify_citations)
    builder.add_node("write", write_report)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", route_searches, ["search"])
    builder.add_edge("search", "merge")
    builder.add_conditional_edges("merge", route_fetches, ["fetch", "extract"])
    builder.add_edge("fetch", "extract")
    builder.add_edge("extract", "index")
    builder.add_edge("index", "evidence")
    builder.add_edge("evidence", "reflect")
    builder.add_conditional_edges("reflect", route_after_reflect, ["search", "synthesise"])
    builder.add_edge("synthesise", "verify")
    builder.add_edge("verify", "write")
    builder.add_edge("write", END)
    return builder.compile(checkpointer=checkpointer, name=FLOW)


def open_provider(name: str, settings: ResearchSettings) -> SearchProvider:
    if name == "searxng":
        return SearxngProvider(settings.searxng_url, settings.search_timeout)
    return DuckDuckGoProvider(settings.duckduckgo_url, settings.search_timeout)


def default_output_dir(settings: Settings, run_id: str) -> Path:
    return settings.project_dir / "reports" / run_id


def build_context(settings: Settings, store: ProjectStore, run: RunRecord, approval: ApprovalMode) -> ResearchContext:
    """The run's options (kept in its `extra`) over the `[research]` settings; research asks no approvals."""
    options = {k: run.extra.get(k) for k in OPTIONS}
    research = research_settings(settings, options)
    output = None if run.parent_checkpoint else run.extra.get("output_dir")  # a fork writes a report of its own
    return ResearchContext(
        run_id=run.id,
        model=build_chat_model(settings),
        store=store,
        pages=PageStore(store.conn, store.checkpointer.lock),
        vectors=open_vector_store(settings),
        providers=[open_provider(name, research) for name in research.providers],
        fetcher=PageFetcher(research.fetch_limits),
        settings=research,
        output_dir=Path(output) if output else default_output_dir(settings, run.id),
    )


def start_input(question: str) -> dict[str, Any]:
    return {"messages": [HumanMessage(question)]}


def nested_research(settings: Settings, store: ProjectStore, parent: RunRecord) -> Callable[[str], str]:
    """A function running one research question as a run of its own (its own thread and checkpoints,
    recorded as a child of `parent`), for the chat model's `research` tool; returns the report and
    a JSON list of its sources."""

    def run(question: str) -> str:
        child = store.runs.create(FLOW, question, settings.model, parent_id=parent.id)
        context = build_context(settings, store, child, "deny")
        graph = build_graph(store.checkpointer)
        config = {"configurable": {"thread_id": child.id}, **context.graph_config()}
        # A fresh thread: the call starts outside the chat graph's context, so it is a run of its own,
        # not a subgraph of the tool call that asked for it.
        with ThreadPoolExecutor(max_workers=1) as pool:
            try:
                final = pool.submit(graph.invoke, start_input(question), config, context=context).result()
            except Exception as exc:
                store.runs.set_status(child.id, "failed", error=str(exc))
                raise
            finally:
                context.fetcher.close()
        usage = final.get("usage") or {}
        store.runs.set_usage(child.id, usage.get("input_tokens", 0), usage.get("output_tokens", 0), None)
        store.runs.set_status(child.id, "done")
        report = Path(final["report_path"]).read_text(encoding="utf-8")
        sources = json.loads(Path(final["sources_path"]).read_text(encoding="utf-8"))["sources"]
        listed = [{"number": s["number"], "title": s["title"], "url": s["url"]} for s in sources]
        return (f"research run {child.id}; report at {final['report_path']}\n\n{report}\n"
                f"sources: {json.dumps(listed, ensure_ascii=False)}")

    return run


graph = build_graph()
"""For LangGraph's dev server and Studio (langgraph.json)."""
