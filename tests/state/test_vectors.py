"""The project's vector store: real Chroma on disk, the real offline model, a real /embeddings endpoint."""

from __future__ import annotations

import math
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from helium.config import load_settings
from helium.errors import ConfigError, HeliumError
from helium.state.vectors import (
    EndpointEmbedder,
    LocalEmbedder,
    VectorStore,
    cosine_similarity,
    open_vector_store,
)
from tests.support.embeddings_server import bag_of_words, base_url, embeddings_server

DOCS = {
    "cats": "Cats are small domestic felines that purr and chase mice.",
    "sqlite": "SQLite stores a whole relational database in a single file on disk.",
    "rust": "The Rust compiler checks ownership and borrowing at compile time.",
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> VectorStore:
    store = VectorStore(tmp_path_factory.mktemp("chroma"), LocalEmbedder())
    store.upsert("test-docs", list(DOCS), list(DOCS.values()), [{"topic": k, "n": i} for i, k in enumerate(DOCS)])
    return store


def test_the_nearest_text_answers_a_question_by_meaning(store: VectorStore) -> None:
    hits = store.query("test-docs", "which database keeps everything in one file?", k=2)
    assert hits[0].id == "sqlite"
    assert hits[0].metadata["topic"] == "sqlite"
    assert hits[0].score is not None and hits[0].score > hits[1].score  # type: ignore[operator]


def test_filters_lookups_and_deletes(store: VectorStore) -> None:
    assert [h.id for h in store.query("test-docs", "animals", where={"topic": "rust"})] == ["rust"]
    assert store.get("test-docs", ids=["cats"])[0].text == DOCS["cats"]
    store.upsert("test-scratch", ["a", "b"], ["one", "two"], [{"keep": True}, {"keep": False}])
    store.delete("test-scratch", where={"keep": False})
    assert [h.id for h in store.get("test-scratch")] == ["a"]
    assert store.query("test-empty", "anything") == []


def test_vectors_persist_for_a_new_process(store: VectorStore) -> None:
    reopened = VectorStore(store.path, LocalEmbedder())
    assert reopened.count("test-docs") == len(DOCS)


def test_unit_vectors_and_cosine() -> None:
    a, b = LocalEmbedder().embed(["a red apple", "a green apple"])
    assert abs(cosine_similarity(a, a) - 1.0) < 1e-5
    assert 0.3 < cosine_similarity(a, b) < 1.0


@pytest.fixture
def embeddings() -> Iterator[ThreadingHTTPServer]:
    with embeddings_server() as server:
        yield server


def test_an_openai_compatible_endpoint_can_embed(embeddings: ThreadingHTTPServer, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    url = base_url(embeddings)
    monkeypatch.setenv("HELIUM_EMBEDDING_BASE_URL", url)
    monkeypatch.setenv("HELIUM_EMBEDDING_MODEL", "nomic-embed")
    monkeypatch.setenv("HELIUM_API_KEY", "sk-test")
    store = open_vector_store(load_settings(tmp_path))
    vectors = store.embed(["red apples", "green pears"])
    path, auth, body = embeddings.requests[0]
    assert (path, auth, body["model"]) == ("/v1/embeddings", "Bearer sk-test", "nomic-embed")
    # The server sends rows in reverse order: they are put back in input order, then normalised.
    for vector, text in zip(vectors, ["red apples", "green pears"], strict=True):
        raw = bag_of_words(text)
        assert vector == pytest.approx([x / math.sqrt(sum(y * y for y in raw)) for x in raw])
    assert store.path == tmp_path / ".helium" / "chroma"


def test_a_bad_endpoint_is_one_clear_error(embeddings: ThreadingHTTPServer) -> None:
    url = base_url(embeddings)
    with pytest.raises(HeliumError, match="not an OpenAI embeddings response"):
        EndpointEmbedder(url, "broken").embed(["x"])
    with pytest.raises(HeliumError, match="failed"):
        EndpointEmbedder("http://127.0.0.1:9/v1", "m", timeout=2).embed(["x"])


def test_switching_models_on_an_existing_collection_is_refused(tmp_path: Path,
                                                               embeddings: ThreadingHTTPServer) -> None:
    url = base_url(embeddings)
    VectorStore(tmp_path, EndpointEmbedder(url, "small")).upsert("test-x", ["a"], ["a"], [{}])
    with pytest.raises(ConfigError, match="made with 'small'"):
        VectorStore(tmp_path, EndpointEmbedder(url, "other")).count("test-x")
