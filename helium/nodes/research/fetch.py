"""Fetch (one branch per selected URL), extract and index.

A page is recorded in the page store the moment its fetch ends, so after a crash a resumed run
reads it from there and never fetches it again.  Each fetch branch extracts its page as soon as it
arrives, overlapping extraction with the pages still on their way; the extract node then brings
every page's metadata (or why it was skipped) into the state, extracting any page a crash left
unread.  Extraction and indexing record their progress in the store and run once per page however
often they are resumed.
"""

from __future__ import annotations

import hashlib

from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from helium.nodes.research.context import ResearchContext
from helium.nodes.research.progress import emit
from helium.state.pages import StoredPage
from helium.state.research import PageOutcome, ResearchState
from helium.tools.web.extract import NoMainText, chunk_text, extract_page


class FetchTask(TypedDict):
    key: str
    url: str
    of: int
    """How many pages the round fetches: the progress display's M in "N/M", also after a resume."""


def fetch_page(task: FetchTask, runtime: Runtime[ResearchContext]) -> dict:
    ctx = runtime.context
    stored = ctx.pages.get(ctx.run_id, task["url"])
    if stored is None:
        result = ctx.fetcher.fetch(task["url"])
        ctx.pages.record_fetch(ctx.run_id, task["url"], final_url=result.final_url, status=result.status,
                               content_type=result.content_type, body=result.body, error=result.error)
        error, again = result.error, False
        if result.ok:  # read it now, while other branches still wait for their pages
            stored = ctx.pages.get(ctx.run_id, task["url"])
            error = _extract(ctx, stored).error if stored else None
    else:
        error, again = stored.error, True
    emit("fetched", url=task["url"], ok=error is None, reason=error, cached=again, total=task["of"])
    return {"pages": {task["key"]: PageOutcome(url=task["url"], ok=error is None, reason=error)}}


def extract_pages(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict:
    """Main text and metadata of every page fetched this round that is not read yet."""
    ctx = runtime.context
    emit("stage", stage="extract", round=state["round"])
    updates: dict[str, PageOutcome] = {}
    for key in state.get("selected", []):
        outcome = state.get("pages", {}).get(key)
        if not outcome or not outcome["ok"]:
            continue
        stored = ctx.pages.get(ctx.run_id, outcome["url"])
        if stored is None:
            continue
        if stored.text is None and stored.error is None:
            stored = _extract(ctx, stored)
        if stored.error:
            updates[key] = PageOutcome(url=outcome["url"], ok=False, reason=stored.error)
            emit("skipped", url=outcome["url"], reason=stored.error)
        else:
            updates[key] = PageOutcome(url=outcome["url"], ok=True, reason=None, title=stored.title or "",
                                       author=stored.author, date=stored.date)
    return {"pages": updates}


def _extract(ctx: ResearchContext, stored: StoredPage) -> StoredPage:
    body = ctx.pages.body(ctx.run_id, stored.url) or b""
    try:
        page = extract_page(body, stored.final_url or stored.url, stored.content_type or "text/html")
    except NoMainText as exc:
        ctx.pages.record_extraction(ctx.run_id, stored.url, error=str(exc))
    else:
        ctx.pages.record_extraction(ctx.run_id, stored.url, title=page.title, author=page.author, date=page.date,
                                    text=page.text)
    return ctx.pages.get(ctx.run_id, stored.url) or stored


def chunk_id(url: str, index: int) -> str:
    return f"{hashlib.sha1(url.encode()).hexdigest()[:16]}-{index}"


def index_pages(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict:
    """Chunks of every page read this round into the run's Chroma collection, embedded in one batch."""
    ctx = runtime.context
    emit("stage", stage="index", round=state["round"])
    ids: list[str] = []
    texts: list[str] = []
    metadatas: list[dict] = []
    counts: dict[str, tuple[str, int]] = {}
    for key in state.get("selected", []):
        outcome = state.get("pages", {}).get(key)
        if not outcome or not outcome["ok"]:
            continue
        stored = ctx.pages.get(ctx.run_id, outcome["url"])
        if stored is None or stored.text is None or stored.chunks is not None:
            continue
        chunks = chunk_text(stored.text)
        counts[key] = (outcome["url"], len(chunks))
        for i, chunk in enumerate(chunks):
            ids.append(chunk_id(key, i))
            texts.append(chunk)
            metadatas.append({"source": key, "url": outcome["url"], "title": stored.title or "", "chunk": i})
    ctx.vectors.upsert(ctx.collection, ids, texts, metadatas)
    for url, count in counts.values():
        ctx.pages.record_chunks(ctx.run_id, url, count)
    emit("indexed", chunks=len(ids), pages=len(counts))
    return {"pages": {key: {**state["pages"][key], "chunks": count} for key, (_, count) in counts.items()}}
