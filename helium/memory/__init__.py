"""Persistent memory of a project: facts (remember, recall, forget), a knowledge graph of triples
extracted from them, and summaries of past conversations; all in `.helium/helium.db`, with the
facts' vectors in `.helium/chroma/` (collection `memory-facts`)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool

from helium.config import Settings
from helium.memory.recall import ContextChooser
from helium.memory.store import MemoryStore
from helium.memory.tools import memory_tools
from helium.state.store import ProjectStore
from helium.state.vectors import open_vector_store

__all__ = ["ContextChooser", "MemoryStore", "memory_for_run", "open_memory"]


def open_memory(settings: Settings, store: ProjectStore) -> MemoryStore:
    """The project's memory, in its store's SQLite file and Chroma folder."""
    return MemoryStore.open(store, open_vector_store(settings))


def memory_for_run(settings: Settings, store: ProjectStore, run_id: str,
                   model: BaseChatModel) -> tuple[list[BaseTool], ContextChooser]:
    """A run's memory tools (none when `memory = false`) and the chooser of what its prompt recalls."""
    vectors = open_vector_store(settings)
    memory = MemoryStore.open(store, vectors) if settings.memory else None
    tools = memory_tools(memory, model, run_id=run_id, known_secrets=(settings.api_key or "",)) if memory else []
    chooser = ContextChooser(settings.workspace, run_id, vectors, memory, settings.memory_threshold,
                             settings.skill_threshold)
    return tools, chooser
