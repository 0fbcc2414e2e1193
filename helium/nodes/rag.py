"""Nodes of the rag flow (`helium rag ask`): retrieve passages, answer from them, check the answer's citations.

The passages travel in the state as small JSON records (label, range, section, score, text), so the
transcript, `helium history` and a resumed follow-up question all see what the model was given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langgraph.graph.message import add_messages
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from helium.environments import Environment
from helium.rag.citations import find_citations, flag_invalid
from helium.rag.index import DEFAULT_K, Passage, RagIndex, render_passages
from helium.rag.prompts import ANSWER_SYSTEM_PROMPT, ANSWER_USER_PROMPT
from helium.state.schema import Usage, add_usage


class RagState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    """The user's questions and the model's answers."""
    sources: list[dict[str, Any]]
    """The passages the latest question retrieved (`Passage.to_json()`)."""
    result: dict[str, Any]
    """What the run reports beyond its answer: the answer with invalid citations marked, each citation
    checked, and the sources (the driver puts it into `--json` output)."""
    usage: Annotated[Usage, add_usage]


@dataclass
class RagContext:
    """Run-time context: the index and the model (never checkpointed: the model holds the API key)."""

    run_id: str
    index: RagIndex
    model: BaseChatModel
    k: int = DEFAULT_K
    system_prompt: str = ANSWER_SYSTEM_PROMPT
    """The answering prompt, with the project's AGENTS.md instructions when it has them."""
    max_turns: int = 1
    """One answer per question; the driver's step budget is derived from it."""
    environment: Environment | None = field(default=None)
    """No commands run here; the driver looks for an environment to stop."""


def retrieve(state: RagState, runtime: Runtime[RagContext]) -> dict:
    """The `k` passages nearest to the latest question."""
    passages = runtime.context.index.search(_question(state), runtime.context.k)
    return {"sources": [p.to_json() for p in passages]}


def answer(state: RagState, runtime: Runtime[RagContext]) -> dict:
    """The model answers from the passages, citing their labels; earlier questions and answers come along."""
    passages = [Passage(**{k: v for k, v in source.items() if k != "label"}) for source in state["sources"]]
    prompt = ANSWER_USER_PROMPT.format(question=_question(state), excerpts=render_passages(passages))
    reply = runtime.context.model.invoke([SystemMessage(runtime.context.system_prompt), *state["messages"][:-1],
                                          HumanMessage(prompt)])
    meta = reply.usage_metadata or {}
    return {"messages": [reply], "usage": {"input_tokens": meta.get("input_tokens", 0),
                                           "output_tokens": meta.get("output_tokens", 0)}}


def check_citations(state: RagState, runtime: Runtime[RagContext]) -> dict:
    """Every `path:range` in the answer is checked against the index; invalid ones are marked in the result."""
    reply = state["messages"][-1]
    text = reply.text if isinstance(reply, AIMessage) else ""
    citations = find_citations(text, runtime.context.index.catalog)
    return {"result": {"answer": flag_invalid(text, citations), "citations": [c.to_json() for c in citations],
                       "invalid_citations": [c.label for c in citations if not c.valid],
                       "sources": state.get("sources", [])}}


def _question(state: RagState) -> str:
    return next(m.text for m in reversed(state["messages"]) if isinstance(m, HumanMessage))
