"""The memory tools the chat and coding models call: remember and recall (safe), forget (risky).

`forget` deletes what the user may have asked to keep, so it needs approval like a file edit;
`remember` only adds, and refuses anything that looks like a secret.  They run through the
tools node's ledger, so a resumed run never remembers (or forgets) the same call twice.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool, StructuredTool

from helium.memory.store import FactHit, MemoryStore, StoredTriple, Summary
from helium.memory.triples import Extraction, extract_triples
from helium.tools.tiers import Tier

RECALL_LIMIT = 5


def memory_tools(memory: MemoryStore, model: BaseChatModel | None, *, run_id: str,
                 known_secrets: tuple[str, ...] = ()) -> list[BaseTool]:
    """remember, recall and forget over the project's memory; `model` extracts each new fact's triples."""

    def remember(fact: str) -> str:
        """Remember a fact for future conversations in this project: a preference, a decision, a name or a
        project detail, as one self-contained sentence in the user's words (e.g. "I prefer tabs over spaces").
        Never pass secrets such as API keys or passwords: they are refused."""
        text = memory.check_fact(fact, known_secrets)
        existing = memory.find(text)
        if existing is not None:
            return f"already remembered as [{existing.id}]: {existing.text}"
        extraction = extract_triples(model, text)
        stored = memory.add(text, extraction, run_id=run_id)
        return f"remembered [{stored.id}]: {stored.text}\n{describe_extraction(extraction)}"

    def recall(query: str) -> str:
        """Search what you remember in this project, by keyword and by meaning. A question that names someone or
        something (e.g. "what do I prefer?", "what does the api use?") also returns that entity's relations."""
        return render_recall(memory.search(query, k=RECALL_LIMIT), memory.triples_about(query),
                             memory.search_summaries(query, limit=3), query)

    def forget(id: int) -> str:
        """Forget a remembered fact by its id (the number in brackets that recall shows)."""
        fact = memory.forget(id)
        return f"forgot [{fact.id}]: {fact.text}"

    return [StructuredTool.from_function(remember, metadata={"tier": Tier.SAFE}),
            StructuredTool.from_function(recall, metadata={"tier": Tier.SAFE}),
            StructuredTool.from_function(forget, metadata={"tier": Tier.RISKY})]


def describe_extraction(extraction: Extraction) -> str:
    if not extraction.triples:
        return f"relations: none ({extraction.note})"
    how = "by the model" if extraction.method == "model" else f"by the sentence parser ({extraction.note})"
    return "relations " + how + ":\n" + "\n".join(f"- {t}" for t in extraction.triples)


def render_recall(hits: list[FactHit], triples: list[StoredTriple], summaries: list[Summary], query: str) -> str:
    """The recall tool's answer: facts (with how each matched), relations of named entities, summaries."""
    if not (hits or triples or summaries):
        return f"nothing remembered matches {query!r}"
    parts = []
    if hits:
        parts.append("facts:\n" + "\n".join(f"- [{h.fact.id}] {h.fact.text} ({h.matched})" for h in hits))
    if triples:
        parts.append("relations:\n" + "\n".join(f"- {t} [{t.fact_id}]" for t in triples))
    if summaries:
        parts.append("earlier conversations:\n" + "\n".join(f"- run {s.run_id}: {' '.join(s.text.split())}"
                                                            for s in summaries))
    return "\n".join(parts)
