"""Select evidence per sub-question, and reflect: does it cover the question, or is another round
of searching (with the model's follow-up queries) worth it?"""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from helium.nodes.research.context import ResearchContext
from helium.nodes.research.plan import question_of
from helium.nodes.research.progress import emit
from helium.nodes.research.prompts import REFLECT_PROMPT
from helium.nodes.research.settings import MAX_QUERIES
from helium.nodes.research.structured import ask_structured
from helium.state.research import Evidence, EvidenceChunk, ResearchState

EXCERPT_CHARS = 240


class Reflection(BaseModel):
    enough: bool
    follow_up_queries: list[str] = Field(default_factory=list, max_length=8)


def select_evidence(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict:
    """The best chunks for each sub-question, from every page read so far."""
    ctx = runtime.context
    emit("stage", stage="evidence", round=state["round"])
    k = ctx.settings.evidence_per_question
    evidence = []
    for sub in state["plan"]:
        hits = ctx.vectors.query(ctx.collection, sub["question"], k=k)
        evidence.append(Evidence(question=sub["question"], chunks=[
            EvidenceChunk(id=h.id, url=str(h.metadata.get("url", "")), score=round(h.score or 0.0, 4))
            for h in hits]))
    return {"evidence": evidence}


def reflect(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict:
    """Ask for follow-up queries while rounds remain; the last round goes straight to writing."""
    ctx = runtime.context
    round_, max_rounds = state["round"], ctx.settings.max_rounds
    if round_ >= max_rounds:
        return {}
    emit("stage", stage="reflect", round=round_)
    ids = list(dict.fromkeys(c["id"] for e in state["evidence"] for c in e["chunks"]))
    texts = {hit.id: hit.text for hit in ctx.vectors.get(ctx.collection, ids=ids)} if ids else {}
    coverage = "\n".join(f"- {e['question']}\n" + _excerpts(e, texts) for e in state["evidence"])
    prompt = REFLECT_PROMPT.format(round=round_, max_rounds=max_rounds, question=question_of(state), coverage=coverage)
    reflection, usage = ask_structured(ctx.model, prompt, Reflection, "reflection")
    asked = {r["query"].lower() for r in state.get("searches", [])}
    follow_ups = [q for q in dict.fromkeys(" ".join(q.split()) for q in reflection.follow_up_queries)
                  if q and q.lower() not in asked][:MAX_QUERIES]
    emit("reflected", enough=reflection.enough, follow_ups=follow_ups)
    if reflection.enough or not follow_ups:
        return {"usage": usage}
    return {"usage": usage, "round": round_ + 1, "queries": follow_ups}


def _excerpts(evidence: Evidence, texts: dict[str, str]) -> str:
    lines = [f"  * ({c['score']:.2f}) {' '.join(texts.get(c['id'], '').split())[:EXCERPT_CHARS]}"
             for c in evidence["chunks"]]
    return "\n".join(lines) or "  * nothing found"
