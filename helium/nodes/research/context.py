"""Run-time context of a research run: what its nodes need that must never be checkpointed
(the model with its key, the providers, the HTTP client, the stores)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel

from helium.nodes.research.settings import MAX_QUERIES, ResearchSettings
from helium.state.pages import PageStore
from helium.state.vectors import VectorStore
from helium.tools.web.fetch import PageFetcher
from helium.tools.web.search import SearchProvider

if TYPE_CHECKING:
    from helium.environments import Environment
    from helium.state.store import ProjectStore

NODES_PER_ROUND = 8
"""search, merge, fetch, extract, index, evidence, reflect, plus one of slack."""


@dataclass
class ResearchContext:
    run_id: str
    model: BaseChatModel
    store: ProjectStore
    pages: PageStore
    vectors: VectorStore
    providers: list[SearchProvider]
    fetcher: PageFetcher
    settings: ResearchSettings
    output_dir: Path
    environment: Environment | None = field(default=None)
    """Research runs no commands; the driver looks for an environment to stop."""

    @property
    def collection(self) -> str:
        """The run's own Chroma collection (3-63 characters of [a-z0-9_-])."""
        return f"research-{self.run_id.lower()}"[:63]

    def provider(self, name: str) -> SearchProvider:
        return next(p for p in self.providers if p.name == name)

    def graph_config(self) -> dict[str, Any]:
        """The step budget (every round's nodes, plus plan and the final four) and enough worker threads
        for every search branch, and for the fetch fan-out to reach its limit (LangGraph's default pool
        has cpus + 4 threads)."""
        rounds = self.settings.max_rounds
        return {"recursion_limit": rounds * NODES_PER_ROUND + 10,
                "max_concurrency": max(self.settings.fetch_concurrency, MAX_QUERIES * len(self.providers))}
