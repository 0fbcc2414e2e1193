"""`helium rag ask`: retrieve the passages nearest to a question, have the model answer from them, check
every citation in the answer against the index.

It is one model call over retrieved text, not an agent run: nothing is checkpointed.  A conversation
over files is a chat with `@path` mentions or the `search_files` tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from helium.errors import HeliumError
from helium.rag.citations import Citation, find_citations, flag_invalid
from helium.rag.index import Passage, RagIndex, render_passages
from helium.rag.prompts import ANSWER_SYSTEM_PROMPT, ANSWER_USER_PROMPT

DEFAULT_K = 5


@dataclass
class RagAnswer:
    """What `rag ask` shows: the answer, each citation in it (checked), and the passages it was given."""

    question: str
    answer: str
    """The model's answer, invalid citations marked in place."""
    citations: list[Citation]
    sources: list[Passage]
    tokens_in: int = 0
    tokens_out: int = 0

    @property
    def invalid(self) -> list[Citation]:
        return [c for c in self.citations if not c.valid]

    def to_json(self) -> dict[str, Any]:
        return {"question": self.question, "answer": self.answer,
                "citations": [c.to_json() for c in self.citations],
                "invalid_citations": [c.label for c in self.invalid],
                "sources": [p.to_json() for p in self.sources],
                "tokens_in": self.tokens_in, "tokens_out": self.tokens_out}


def answer_question(index: RagIndex, model: BaseChatModel, question: str, k: int = DEFAULT_K) -> RagAnswer:
    """Retrieve the `k` nearest passages, ask the model to answer from them, check its citations."""
    passages = index.search(question, k) if index.files() else []
    if not passages:
        raise HeliumError("nothing is indexed yet: add files first with `helium rag add PATHS`")
    reply = model.invoke([SystemMessage(ANSWER_SYSTEM_PROMPT),
                          HumanMessage(ANSWER_USER_PROMPT.format(question=question,
                                                                 excerpts=render_passages(passages)))])
    citations = find_citations(reply.text, index.catalog)
    usage = getattr(reply, "usage_metadata", None) or {}
    return RagAnswer(question, flag_invalid(reply.text, citations), citations, passages,
                     usage.get("input_tokens", 0), usage.get("output_tokens", 0))
