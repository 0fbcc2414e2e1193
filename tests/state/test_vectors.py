"""The project's vector store: real Chroma on disk, the real offline model, a real /embeddings endpoint."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from helium.config import load_settings
from helium.errors import ConfigError, HeliumError
from helium.state.vectors import EndpointEmbedder, LocalEmbedder, VectorStore, cosine_similarity, open_vector_store

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


class _EmbeddingsHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, self.headers.get("Authorization"), body))  # type: ignore[attr-defined]
        if body["model"] == "broken":
            payload = b'{"nope": 1}'
        else:
            rows = [{"index": i, "embedding": [float(len(t)), 0.0, 1.0]} for i, t in enumerate(body["input"])]
            payload = json.dumps({"object": "list", "data": rows[::-1]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def embeddings_server() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingsHandler)
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_an_openai_compatible_endpoint_can_embed(embeddings_server: ThreadingHTTPServer, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{embeddings_server.server_port}/v1"
    monkeypatch.setenv("HELIUM_EMBEDDING_BASE_URL", url)
    monkeypatch.setenv("HELIUM_EMBEDDING_MODEL", "nomic-embed")
    monkeypatch.setenv("HELIUM_API_KEY", "sk-test")
    store = open_vector_store(load_settings(tmp_path))
    vectors = store.embed(["ab", "abcd"])
    path, auth, body = embeddings_server.requests[0]  # type: ignore[attr-defined]
    assert (path, auth, body["model"]) == ("/v1/embeddings", "Bearer sk-test", "nomic-embed")
    assert vectors[0][0] < vectors[1][0]  # rows put back in input order, then normalised
    assert abs(sum(x * x for x in vectors[1]) - 1.0) < 1e-9
    assert store.path == tmp_path / ".helium" / "chroma"


def test_a_bad_endpoint_is_one_clear_error(embeddings_server: ThreadingHTTPServer) -> None:
    url = f"http://127.0.0.1:{embeddings_server.server_port}/v1"
    with pytest.raises(HeliumError, match="not an OpenAI embeddings response"):
        EndpointEmbedder(url, "broken").embed(["x"])
    with pytest.raises(HeliumError, match="failed"):
        EndpointEmbedder("http://127.0.0.1:9/v1", "m", timeout=2).embed(["x"])


def test_switching_models_on_an_existing_collection_is_refused(tmp_path: Path,
                                                               embeddings_server: ThreadingHTTPServer) -> None:
    url = f"http://127.0.0.1:{embeddings_server.server_port}/v1"
    VectorStore(tmp_path, EndpointEmbedder(url, "small")).upsert("test-x", ["a"], ["a"], [{}])
    with pytest.raises(ConfigError, match="made with 'small'"):
        VectorStore(tmp_path, EndpointEmbedder(url, "other")).count("test-x")
