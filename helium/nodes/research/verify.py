"""Verify citations: every [n] must name a source that was read, and the sentence carrying it must be
supported by a chunk of that source (cosine similarity at or above `citation_threshold`).

Unsupported citations are removed from the sentence and listed with the reason; the report says
how many of its citations held.
"""

from __future__ import annotations

import re

from langgraph.runtime import Runtime

from helium.nodes.research.context import ResearchContext
from helium.nodes.research.progress import emit
from helium.state.research import CitationCheck, ResearchState

_MARKER = re.compile(r"\s?\[(\d+(?:\s*,\s*\d+)*)\]")
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?![\s\[]|$))*?(?:[.!?](?:\s?\[\d+(?:\s*,\s*\d+)*\])*(?=\s|$)|\n|$)")


def sentences_with_citations(text: str) -> list[tuple[int, int, str]]:
    """(start, end, sentence) for every sentence holding a [n] marker; markers after the full stop count."""
    found = []
    for match in _SENTENCE.finditer(text):
        if match.group(0) and _MARKER.search(match.group(0)):
            found.append((match.start(), match.end(), match.group(0)))
    return found


def claim_of(sentence: str) -> str:
    """The sentence as prose: without its markers, list bullets or emphasis."""
    return " ".join(_MARKER.sub("", sentence).replace("*", "").lstrip("-# ").split())


def verify_citations(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict:
    ctx = runtime.context
    emit("stage", stage="verify")
    draft, cited = state["draft"], state["cited"]
    spans = sentences_with_citations(draft)
    claims = [claim_of(sentence) for _, _, sentence in spans]
    vectors: dict[str, list[float]] = {}
    if claims:
        unique = list(dict.fromkeys(claims))
        vectors = dict(zip(unique, ctx.vectors.embed(unique), strict=True))
    checks: list[CitationCheck] = []
    pieces, position = [], 0
    for (start, end, sentence), claim in zip(spans, claims, strict=True):
        kept_sentence = sentence
        for marker in list(_MARKER.finditer(sentence)):
            numbers = [int(n) for n in marker.group(1).split(",")]
            kept = []
            for number in numbers:
                check = _check(ctx, number, claim, vectors[claim], cited)
                checks.append(check)
                if check["verified"]:
                    kept.append(number)
            replacement = f" [{', '.join(map(str, kept))}]" if kept else ""
            kept_sentence = kept_sentence.replace(marker.group(0), replacement, 1)
        pieces += [draft[position:start], kept_sentence]
        position = end
    body = "".join([*pieces, draft[position:]])
    verified = sum(c["verified"] for c in checks)
    emit("verified", verified=verified, total=len(checks))
    return {"report": body, "citations": checks}


def _check(ctx: ResearchContext, number: int, claim: str, embedding: list[float], cited: list[str]) -> CitationCheck:
    if not 1 <= number <= len(cited):
        return CitationCheck(number=number, sentence=claim, url=None, score=None, verified=False,
                             reason=f"there is no source [{number}] (the report has {len(cited)})")
    key = cited[number - 1]
    hits = ctx.vectors.query(ctx.collection, embedding=embedding, k=1, where={"source": key})
    score = round(hits[0].score or 0.0, 3) if hits else 0.0
    threshold = ctx.settings.citation_threshold
    supported = score >= threshold
    reason = (f"supported by a passage of the source (similarity {score:.2f})" if supported else
              f"no passage of the source supports it (best similarity {score:.2f}, needs {threshold:.2f})")
    url = hits[0].metadata.get("url") if hits else None
    return CitationCheck(number=number, sentence=claim, url=url, score=score, verified=supported, reason=reason)
