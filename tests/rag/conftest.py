"""RAG fixtures: a real project store and a real Chroma store with the offline embedding model."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from helium.config import Settings
from helium.rag.index import RagIndex, open_rag_index
from helium.state.store import ProjectStore
from tests.conftest import Cli
from tests.support.embeddings_server import base_url, embeddings_server

DOCS = Path(__file__).resolve().parents[1] / "data" / "docs"
CORPUS = sorted(p.name for p in DOCS.iterdir() if p.name != "LICENSES.md")


def make_pdf(path: Path, pages: list[str]) -> Path:
    """A real PDF with extractable text, one page per string (TrueType fonts, so pypdf can read it back)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(path) as pdf:
        for text in pages:
            figure = plt.figure(figsize=(6, 4))
            figure.text(0.05, 0.5, text)
            pdf.savefig(figure)
            plt.close(figure)
    return path


def open_index(workspace: Path) -> tuple[ProjectStore, RagIndex]:
    store = ProjectStore(workspace / ".helium" / "helium.db")
    return store, open_rag_index(Settings(workspace=workspace), store)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def index(workspace: Path) -> Iterator[RagIndex]:
    store, rag = open_index(workspace)
    yield rag
    store.close()


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RagIndex]:
    """The test documents indexed once per module (embedding them is the slow part)."""
    root = tmp_path_factory.mktemp("corpus")
    shutil.copytree(DOCS, root / "docs")
    store, rag = open_index(root)
    rag.add(["docs"])
    yield rag
    store.close()


@pytest.fixture
def rag_cli(cli: Cli) -> Iterator[Cli]:
    """The CLI with its embeddings from a local OpenAI-compatible /embeddings server (bag of words), so each
    subprocess is spared loading the MiniLM model; in-process tests use the real model."""
    with embeddings_server() as server:
        cli.env["HELIUM_EMBEDDING_BASE_URL"] = base_url(server)
        yield cli


@contextmanager
def slow_embeddings_server() -> Iterator[str]:
    """An /embeddings endpoint that takes 0.8 s per request, so a test can stop `helium rag add` between
    two files."""
    with embeddings_server(delay=0.8) as server:
        yield base_url(server)
