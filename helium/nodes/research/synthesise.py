"""Synthesise: the model writes the report from numbered sources and their evidence excerpts.

Sources are numbered by source-policy score, then URL: [1] is the best-scored page that was read.
The Sources list itself is written by `write_report`, not by the model.
"""

from __future__ import annotations

import re

from langgraph.runtime import Runtime

from helium.errors import HeliumError
from helium.nodes.research.context import ResearchContext
from helium.nodes.research.plan import question_of
from helium.nodes.research.progress import emit
from helium.nodes.research.prompts import SYNTHESISE_PROMPT
from helium.nodes.research.structured import usage_of
from helium.state.research import ResearchState

EXCERPTS_PER_SOURCE = 3
EXCERPT_CHARS = 900
_SOURCES_HEADING = re.compile(r"^#{1,6}\s*(sources|references)\b.*", re.IGNORECASE | re.MULTILINE)


def read_sources(state: ResearchState) -> list[str]:
    """Keys of the pages read and indexed, in citation order."""
    pages, sources = state.get("pages", {}), state.get("sources", {})
    read = [k for k, p in pages.items() if p.get("ok") and p.get("chunks")]
    return sorted(read, key=lambda k: (-sources[k]["score"], k))


def synthesise(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict:
    ctx = runtime.context
    emit("stage", stage="synthesise")
    cited = read_sources(state)
    if not cited:
        skipped = [f"{p['url']} ({p.get('reason')})" for p in state.get("pages", {}).values() if not p.get("ok")]
        raise HeliumError("no page could be read, so there is nothing to write a report from"
                          + (f"; skipped: {', '.join(skipped[:5])}" if skipped else "; the searches found nothing"))
    evidence_ids: dict[str, list[str]] = {key: [] for key in cited}
    for item in state.get("evidence", []):
        for chunk in item["chunks"]:
            key = chunk["id"]
            owner = next((k for k in cited if state["pages"][k]["url"] == chunk["url"]), None)
            if owner and key not in evidence_ids[owner] and len(evidence_ids[owner]) < EXCERPTS_PER_SOURCE:
                evidence_ids[owner].append(key)
    texts = {h.id: h.text for h in ctx.vectors.get(ctx.collection, ids=[i for ids in evidence_ids.values()
                                                                         for i in ids])}
    blocks = []
    for number, key in enumerate(cited, start=1):
        page = state["pages"][key]
        excerpts = [texts[i] for i in evidence_ids[key] if i in texts]
        if not excerpts:  # a page no sub-question ranked: its opening still tells the model what it holds
            excerpts = [h.text for h in ctx.vectors.get(ctx.collection, where={"source": key})[:1]]
        body = "\n".join(f"> {' '.join(e.split())[:EXCERPT_CHARS]}" for e in excerpts)
        blocks.append(f"[{number}] {page.get('title') or key}\n{page['url']}\n{body}")
    prompt = SYNTHESISE_PROMPT.format(question=question_of(state),
                                      sub_questions="\n".join(f"- {s['question']}" for s in state["plan"]),
                                      sources="\n\n".join(blocks))
    reply = ctx.model.invoke(prompt)
    draft = _SOURCES_HEADING.split(reply.text, maxsplit=1)[0].rstrip() if _SOURCES_HEADING.search(reply.text) \
        else reply.text.strip()
    return {"draft": draft, "cited": cited, "usage": usage_of(reply)}
