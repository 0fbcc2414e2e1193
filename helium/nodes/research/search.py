"""Search (one branch per query x provider) and merge: the round's hits become scored, de-duplicated
sources, and the best new ones are selected for fetching.

A provider failing is a warning.  Every search of the first round failing (after one more try) ends the
run with one clear line; the merge node asks again on resume, so `helium resume` carries on once the
providers are back.  In a later round the report is written from what earlier rounds found.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from helium.errors import HeliumError
from helium.nodes.research.context import ResearchContext
from helium.nodes.research.progress import emit
from helium.state.research import Hit, ResearchState, SearchRecord, Source
from helium.tools.web.search import SearchFailed
from helium.tools.web.urls import normalise_url


class SearchTask(TypedDict):
    query: str
    provider: str
    round: int


def run_search(ctx: ResearchContext, task: SearchTask) -> SearchRecord:
    """One query at one provider; failures come back as the record's error, never raised."""
    try:
        found = ctx.provider(task["provider"]).search(task["query"], ctx.settings.results_per_query)
        hits = [Hit(url=h.url, title=h.title, snippet=h.snippet[:300], rank=i) for i, h in enumerate(found)]
        error = None
    except SearchFailed as exc:
        hits, error = [], str(exc)
    emit("searched", query=task["query"], provider=task["provider"], hits=len(hits), error=error)
    return SearchRecord(round=task["round"], query=task["query"], provider=task["provider"], hits=hits, error=error)


def search(task: SearchTask, runtime: Runtime[ResearchContext]) -> dict:
    return {"searches": [run_search(runtime.context, task)]}


def merge_sources(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict:
    ctx = runtime.context
    round_ = state["round"]
    emit("stage", stage="merge", round=round_)
    records = [r for r in state.get("searches", []) if r["round"] == round_]
    retried: list[SearchRecord] = []
    if records and all(r["error"] for r in records):
        retried = [run_search(ctx, SearchTask(query=r["query"], provider=r["provider"], round=round_))
                   for r in records]
        if all(r["error"] for r in retried) and not state.get("sources"):
            reasons = sorted({r["error"] or "" for r in retried})
            raise HeliumError(f"every search failed ({'; '.join(reasons)}); start SearxNG (--searxng-url, "
                              "HELIUM_SEARXNG_URL) or check the network, then resume the run")
        records = retried  # a later round whose searches all failed goes on with what earlier rounds found
    warnings = _provider_warnings(records)
    for warning in warnings:
        emit("warning", text=warning)
    sources = dict(state.get("sources", {}))
    fresh: dict[str, Source] = {}
    for record in records:
        for hit in record["hits"]:
            key = normalise_url(hit["url"])
            known = fresh.get(key) or sources.get(key)
            if known is None:
                tier = ctx.settings.policy.classify(hit["url"])
                fresh[key] = Source(key=key, url=hit["url"], title=hit["title"], snippet=hit["snippet"],
                                    providers=[record["provider"]], found_by=1, rank=hit["rank"], tier=tier,
                                    score=ctx.settings.policy.score(hit["url"], hit["rank"], 1), round=round_)
            else:
                providers = sorted({*known["providers"], record["provider"]})
                found_by, rank = known["found_by"] + 1, min(known["rank"], hit["rank"])
                fresh[key] = {**known, "providers": providers, "found_by": found_by, "rank": rank,
                              "score": ctx.settings.policy.score(known["url"], rank, found_by)}
    fetched = set(state.get("pages", {}))
    candidates = [s for k, s in {**sources, **fresh}.items() if k not in fetched and s["tier"] != "blocked"]
    candidates.sort(key=lambda s: (-s["score"], s["round"], s["key"]))
    selected = [s["key"] for s in candidates[:ctx.settings.max_sources]]
    emit("selected", total=len(selected), candidates=len(candidates))
    update: dict = {"sources": fresh, "selected": selected, "warnings": warnings}
    if retried:
        update["searches"] = retried
    if warnings:
        update["messages"] = [AIMessage("\n".join(f"warning: {w}" for w in warnings), name="research")]
    return update


def _provider_warnings(records: list[SearchRecord]) -> list[str]:
    """One line per failing provider: how many of its searches failed, why, and who carried on."""
    warnings = []
    providers = sorted({r["provider"] for r in records})
    for provider in providers:
        mine = [r for r in records if r["provider"] == provider]
        failed = [r for r in mine if r["error"]]
        if failed:
            others = [p for p in providers if p != provider]
            carried = f"; {', '.join(others)} carried on" if others else ""
            warnings.append(f"{provider} failed {len(failed)} of {len(mine)} searches "
                            f"({failed[0]['error']}){carried}")
    return warnings
