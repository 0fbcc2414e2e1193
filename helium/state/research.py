"""The research flow's state: queries, hits, sources and outcomes by URL, never page text.

Page text lives in the page store (`helium.state.pages`) and its chunks in Chroma; the state keeps
URLs and chunk ids, so checkpoints stay small however many pages a run reads.
"""

from __future__ import annotations

import operator
from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.graph.message import _messages_delta_reducer
from typing_extensions import TypedDict

from helium.state.schema import MESSAGE_SNAPSHOT_EVERY, Usage, add_usage


class SubQuestion(TypedDict):
    question: str
    queries: list[str]


class Hit(TypedDict):
    url: str
    title: str
    snippet: str
    rank: int


class SearchRecord(TypedDict):
    """One (query x provider) search of a round: its hits, or why it failed."""

    round: int
    query: str
    provider: str
    hits: list[Hit]
    error: str | None


class Source(TypedDict):
    """A candidate page, by its normalised URL: where to fetch it, how it scored, who found it."""

    key: str
    url: str
    title: str
    snippet: str
    providers: list[str]
    found_by: int
    """How many searches found it (any query, any provider, any round)."""
    rank: int
    """Its best position in a search's results (0 is first)."""
    tier: str
    score: float
    round: int


class PageOutcome(TypedDict, total=False):
    """What became of a selected page: fetched and read (with its metadata), or skipped and why."""

    url: str
    ok: bool
    reason: str | None
    title: str
    author: str | None
    date: str | None
    chunks: int


class EvidenceChunk(TypedDict):
    id: str
    url: str
    score: float


class Evidence(TypedDict):
    question: str
    chunks: list[EvidenceChunk]


class CitationCheck(TypedDict):
    number: int
    sentence: str
    url: str | None
    score: float | None
    verified: bool
    reason: str


def merge_by_key(old: dict | None, new: dict | None) -> dict:
    """Reducer: dictionaries by URL, later entries replacing earlier ones (parallel branches each add one)."""
    return {**(old or {}), **(new or {})}


class ResearchState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], DeltaChannel(_messages_delta_reducer,
                                                       snapshot_frequency=MESSAGE_SNAPSHOT_EVERY)]
    """The question (first message), warnings as they happen, and the final report."""
    plan: list[SubQuestion]
    providers: list[str]
    """The search providers of the run, fixed when it is planned."""
    round: int
    queries: list[str]
    """The queries of the current round."""
    searches: Annotated[list[SearchRecord], operator.add]
    sources: Annotated[dict[str, Source], merge_by_key]
    selected: list[str]
    """Normalised URLs chosen to fetch in the current round."""
    pages: Annotated[dict[str, PageOutcome], merge_by_key]
    evidence: list[Evidence]
    draft: str
    cited: list[str]
    """Source keys in citation order: [1] is cited[0]."""
    citations: list[CitationCheck]
    report: str
    report_path: str
    sources_path: str
    warnings: Annotated[list[str], operator.add]
    usage: Annotated[Usage, add_usage]
    result: dict
    """What the CLI reports when the run ends: paths, citation counts, warnings."""
