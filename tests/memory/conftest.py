"""Memory fixtures: the real offline embedder (loaded once per test process) and a fresh project store per test
for in-process tests; the CLI with memory switched on and a local embeddings endpoint for subprocess tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helium.memory.store import MemoryStore
from helium.state.store import ProjectStore
from helium.state.vectors import LocalEmbedder, VectorStore
from tests.conftest import Cli
from tests.support.embeddings_server import base_url, embeddings_server


@pytest.fixture
def project_store(tmp_path: Path) -> Iterator[ProjectStore]:
    with ProjectStore(tmp_path / ".helium" / "helium.db") as store:
        yield store


@pytest.fixture
def vectors(tmp_path: Path) -> VectorStore:
    """Real Chroma on disk with the real MiniLM model (the model itself is loaded once per process)."""
    return VectorStore(tmp_path / ".helium" / "chroma", LocalEmbedder())


@pytest.fixture
def memory(project_store: ProjectStore, vectors: VectorStore) -> MemoryStore:
    return MemoryStore.open(project_store, vectors)


@pytest.fixture(scope="session")
def embeddings_endpoint() -> Iterator[str]:
    """The base URL of a local OpenAI-compatible /embeddings server (see embeddings_server.py)."""
    with embeddings_server() as server:
        yield base_url(server)


@pytest.fixture
def memory_cli(cli: Cli, embeddings_endpoint: str) -> Cli:
    """The helium CLI with memory on, embedding through the local endpoint instead of loading MiniLM per process."""
    cli.env.update({"HELIUM_MEMORY": "on", "HELIUM_EMBEDDING_BASE_URL": embeddings_endpoint})
    return cli
