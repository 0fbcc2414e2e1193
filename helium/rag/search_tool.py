"""The search_files tool: the model searches the RAG index by meaning and gets passages it can cite.

It lives with the index rather than in `helium/tools`, so the dependency runs one way: rag uses tools (tiers,
workspace confinement), never the reverse.
"""

from __future__ import annotations

from langchain_core.tools import BaseTool, StructuredTool

from helium.rag.index import DEFAULT_K, RagIndex, render_passages
from helium.rag.prompts import NO_PASSAGES
from helium.tools.tiers import Tier

MAX_PASSAGES = 12


def search_files_tool(index: RagIndex) -> BaseTool:
    """Bound to one index; `index` should be confined, so the model cannot index files outside the workspace."""

    def search_files(query: str, paths: list[str] | None = None, k: int = DEFAULT_K) -> str:
        """Search the user's indexed files by meaning; returns the best passages, each under its [file:start-end]
        label: cite those labels. paths: files, directories or globs (e.g. "docs/*.md") to index if new or
        changed and to search within; without paths, everything indexed is searched."""
        keys: list[str] | None = None
        notes: list[str] = []
        if paths:
            report = index.add(paths)
            notes += [f"no such path: {spec}" for spec in report.missing]
            notes += [f"skipped {o.path}: {o.reason}" for o in report.with_status("skipped")]
            keys = [o.path for o in report.outcomes if o.status in ("indexed", "unchanged")]
            if not keys:
                return "\n".join([*notes, NO_PASSAGES])
        else:
            index.refresh()
        passages = index.search(query, max(1, min(k, MAX_PASSAGES)), keys)
        return "\n".join([*notes, render_passages(passages) if passages else NO_PASSAGES])

    return StructuredTool.from_function(search_files, metadata={"tier": Tier.SAFE})
