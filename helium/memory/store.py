"""The memory store: facts, their triples and conversation summaries in the project's SQLite file,
with the facts' vectors in the project's Chroma store (collection `memory-facts`).

Facts are found by keyword (SQLite FTS5 with Porter stemming, BM25-ranked) and by meaning
(embedding similarity), and the two rankings are merged by reciprocal rank.  SQLite is the record;
Chroma holds only vectors keyed by fact id, so a fact forgotten in SQLite is never recalled from Chroma.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from helium.errors import HeliumError
from helium.memory.secrets import looks_like_secret, redact_secrets
from helium.memory.triples import Extraction, Triple, entities_in
from helium.state.store import ProjectStore
from helium.state.vectors import VectorStore

COLLECTION = "memory-facts"
MAX_FACT_CHARS = 1000
RRF_K = 60
"""Reciprocal rank fusion constant: a hit's merged score is the sum of 1 / (RRF_K + rank) over rankings."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memory_facts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    text TEXT NOT NULL UNIQUE,
    run_id TEXT,
    created REAL NOT NULL,
    extraction TEXT NOT NULL DEFAULT ''
);
CREATE VIRTUAL TABLE IF NOT EXISTS memory_facts_fts USING fts5(
    text, content='memory_facts', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS memory_facts_ai AFTER INSERT ON memory_facts BEGIN
    INSERT INTO memory_facts_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS memory_facts_ad AFTER DELETE ON memory_facts BEGIN
    INSERT INTO memory_facts_fts(memory_facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TABLE IF NOT EXISTS memory_triples (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    fact_id INTEGER NOT NULL REFERENCES memory_facts(id),
    subject TEXT NOT NULL,
    predicate TEXT NOT NULL,
    object TEXT NOT NULL,
    method TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memory_triples_subject ON memory_triples(subject);
CREATE TABLE IF NOT EXISTS memory_summaries (
    run_id TEXT PRIMARY KEY,
    flow TEXT NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    created REAL NOT NULL
);
"""

_STOPWORDS = frozenset("""a an the and or but if of to in on at for with from by as is are was were be been am do does did
what which who whom whose when where why how i me my we our you your it its this that these those there here
have has had not no yes can could should would will shall may might must about into than then so too very
just also any some all tell know remember recall please""".split())


class MemoryRefused(HeliumError):
    """A fact that must not be remembered (it looks like a secret, or is empty or too long)."""


@dataclass(frozen=True)
class StoredTriple(Triple):
    fact_id: int = 0
    method: str = "model"


@dataclass
class Fact:
    id: int
    text: str
    run_id: str | None
    created: float
    triples: list[StoredTriple] = field(default_factory=list)
    extraction: str = ""
    """How the triples were found: `model`, or `fallback: why`."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["triples"] = [{"subject": t.subject, "predicate": t.predicate, "object": t.object, "method": t.method}
                           for t in self.triples]
        return data


@dataclass(frozen=True)
class FactHit:
    fact: Fact
    matched: Literal["keyword", "meaning", "both"]
    score: float
    """The merged rank score (higher is better)."""
    similarity: float | None
    """Cosine similarity to the query, when the fact was found by meaning."""


@dataclass(frozen=True)
class Summary:
    run_id: str
    flow: str
    title: str
    text: str
    created: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class MemoryStore:
    """Facts, triples and summaries of one project; one instance per process and store connection."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock, vectors: VectorStore) -> None:
        self._conn = conn
        self._lock = lock
        self.vectors = vectors
        with self._lock, self._conn:
            self._conn.executescript(_SCHEMA)

    @classmethod
    def open(cls, store: ProjectStore, vectors: VectorStore) -> MemoryStore:
        """Memory in the project store's SQLite file, sharing its connection and lock."""
        return cls(store.conn, store.checkpointer.lock, vectors)

    # -- facts ---------------------------------------------------------------------------------------------
    @staticmethod
    def check_fact(text: str, known_secrets: tuple[str, ...] = ()) -> str:
        """The fact as it would be stored, or MemoryRefused saying why it cannot be."""
        text = " ".join(text.split())
        if not text:
            raise MemoryRefused("there is nothing to remember: the fact is empty")
        if len(text) > MAX_FACT_CHARS:
            raise MemoryRefused(f"a fact is at most {MAX_FACT_CHARS} characters (this one is {len(text)}); "
                                "remember the point of it in a sentence or two")
        if looks_like_secret(text, known_secrets):
            raise MemoryRefused("refused: the text looks like an API key, token or password, and memory is "
                                "never used for secrets (keep them in environment variables or config)")
        return text

    def find(self, text: str) -> Fact | None:
        with self._lock:
            row = self._conn.execute("SELECT id FROM memory_facts WHERE text = ?", (" ".join(text.split()),)).fetchone()
        return self.fact(row[0]) if row else None

    def add(self, text: str, extraction: Extraction, *, run_id: str | None = None) -> Fact:
        """Store a checked fact with its triples, and its vector in Chroma (embedded first: a fact that
        cannot be embedded is not stored at all)."""
        text = self.check_fact(text)
        [vector] = self.vectors.embed([text])
        how = extraction.method + (f": {extraction.note}" if extraction.note else "")
        with self._lock, self._conn:
            cursor = self._conn.execute("INSERT INTO memory_facts (text, run_id, created, extraction) VALUES (?, ?, ?, ?)",
                                        (text, run_id, time.time(), how))
            fact_id = int(cursor.lastrowid or 0)
            self._conn.executemany(
                "INSERT INTO memory_triples (fact_id, subject, predicate, object, method) VALUES (?, ?, ?, ?, ?)",
                [(fact_id, t.subject, t.predicate, t.object, extraction.method) for t in extraction.triples])
        self.vectors.upsert(COLLECTION, [str(fact_id)], [text], [{"fact_id": fact_id}], embeddings=[vector])
        fact = self.fact(fact_id)
        assert fact is not None
        return fact

    def fact(self, fact_id: int) -> Fact | None:
        facts = self._facts("WHERE id = ?", (fact_id,))
        return facts[0] if facts else None

    def facts(self, *, limit: int | None = None) -> list[Fact]:
        """Newest first."""
        return self._facts("ORDER BY id DESC" + (" LIMIT ?" if limit else ""), (limit,) if limit else ())

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM memory_facts").fetchone()[0])

    def forget(self, fact_id: int) -> Fact:
        """Delete a fact, its triples and its vector."""
        fact = self.fact(fact_id)
        if fact is None:
            raise HeliumError(f"there is no remembered fact {fact_id}: `helium memory list` shows them")
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM memory_triples WHERE fact_id = ?", (fact_id,))
            self._conn.execute("DELETE FROM memory_facts WHERE id = ?", (fact_id,))
        self.vectors.delete(COLLECTION, ids=[str(fact_id)])
        return fact

    # -- recall --------------------------------------------------------------------------------------------
    def keyword_search(self, query: str, k: int = 10) -> list[int]:
        """Fact ids whose text shares words (stemmed) with the query, best BM25 first."""
        words = [w for w in re.findall(r"\w+", query.lower()) if w not in _STOPWORDS]
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
        with self._lock:
            rows = self._conn.execute("SELECT rowid FROM memory_facts_fts WHERE memory_facts_fts MATCH ? "
                                      "ORDER BY bm25(memory_facts_fts) LIMIT ?", (match, k)).fetchall()
        return [int(row[0]) for row in rows]

    def similar(self, query: str | None = None, *, embedding: Sequence[float] | None = None, k: int = 10,
                threshold: float = 0.0) -> list[tuple[int, float]]:
        """(fact id, cosine similarity) for facts near the query in meaning, at or above `threshold`.
        Nothing is embedded when memory holds no facts."""
        if self.count() == 0:
            return []
        hits = self.vectors.query(COLLECTION, query, embedding=embedding, k=k)
        return [(int(h.id), h.score) for h in hits if h.score is not None and h.score >= threshold]

    def search(self, query: str, *, k: int = 5, threshold: float = 0.2) -> list[FactHit]:
        """Keyword and meaning rankings merged by reciprocal rank; each hit says how it was found."""
        keyword = self.keyword_search(query, k * 2)
        meaning = dict(self.similar(query, k=k * 2, threshold=threshold))
        scores: dict[int, float] = {}
        for rank, fact_id in enumerate(keyword):
            scores[fact_id] = scores.get(fact_id, 0.0) + 1.0 / (RRF_K + rank)
        for rank, fact_id in enumerate(meaning):
            scores[fact_id] = scores.get(fact_id, 0.0) + 1.0 / (RRF_K + rank)
        hits = []
        for fact_id, score in sorted(scores.items(), key=lambda item: -item[1]):
            fact = self.fact(fact_id)
            if fact is None:
                continue  # forgotten in SQLite; its vector is stale
            matched = "both" if fact_id in meaning and fact_id in keyword else (
                "meaning" if fact_id in meaning else "keyword")
            hits.append(FactHit(fact, matched, score, meaning.get(fact_id)))
        return hits[:k]

    def triples_about(self, query: str, *, limit: int = 20) -> list[StoredTriple]:
        """Triples whose subject or object is an entity the query names ("what do I prefer?" -> the user's);
        triples whose predicate the query also mentions come first."""
        with self._lock:
            rows = self._conn.execute("SELECT DISTINCT subject FROM memory_triples UNION "
                                      "SELECT DISTINCT lower(object) FROM memory_triples").fetchall()
        entities = entities_in(query, {row[0] for row in rows})
        if not entities:
            return []
        marks = ",".join("?" * len(entities))
        with self._lock:
            rows = self._conn.execute(
                f"SELECT subject, predicate, object, fact_id, method FROM memory_triples WHERE subject IN ({marks}) "
                f"OR lower(object) IN ({marks}) ORDER BY id DESC", (*entities, *entities)).fetchall()
        stems = {w[:5] for w in re.findall(r"\w+", query.lower()) if w not in _STOPWORDS and len(w) > 2}
        triples = [StoredTriple(*row) for row in rows]
        triples.sort(key=lambda t: not any(p[:5] in stems for p in t.predicate.split()))
        return triples[:limit]

    # -- summaries -----------------------------------------------------------------------------------------
    def save_summary(self, run_id: str, flow: str, title: str, text: str) -> Summary:
        """Store (or replace) a run's summary, with anything key-shaped redacted from it and its title."""
        summary = Summary(run_id, flow, redact_secrets(title), redact_secrets(text.strip()), time.time())
        with self._lock, self._conn:
            self._conn.execute("INSERT OR REPLACE INTO memory_summaries (run_id, flow, title, text, created) "
                               "VALUES (?, ?, ?, ?, ?)",
                               (summary.run_id, flow, summary.title, summary.text, summary.created))
        return summary

    def summaries(self, *, limit: int | None = None, exclude: str | None = None) -> list[Summary]:
        """Newest first."""
        query = "SELECT run_id, flow, title, text, created FROM memory_summaries WHERE run_id != ? ORDER BY created DESC"
        params: tuple = (exclude or "",)
        if limit:
            query += " LIMIT ?"
            params += (limit,)
        with self._lock:
            return [Summary(*row) for row in self._conn.execute(query, params).fetchall()]

    def search_summaries(self, query: str, *, limit: int = 5) -> list[Summary]:
        """Summaries containing any of the query's words."""
        words = [w for w in re.findall(r"\w+", query.lower()) if w not in _STOPWORDS]
        if not words:
            return []
        where = " OR ".join("lower(text) LIKE ?" for _ in words)
        with self._lock:
            rows = self._conn.execute(f"SELECT run_id, flow, title, text, created FROM memory_summaries WHERE {where} "
                                      "ORDER BY created DESC LIMIT ?", (*[f"%{w}%" for w in words], limit)).fetchall()
        return [Summary(*row) for row in rows]

    def forget_summary(self, run_id: str) -> Summary:
        with self._lock:
            rows = self._conn.execute("SELECT run_id, flow, title, text, created FROM memory_summaries "
                                      "WHERE run_id = ? OR run_id LIKE ?", (run_id, run_id + "%")).fetchall()
        if len(rows) != 1:
            raise HeliumError(f"{'no' if not rows else 'more than one'} summary of a run {run_id!r}: "
                              "`helium memory list` shows them")
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM memory_summaries WHERE run_id = ?", (rows[0][0],))
        return Summary(*rows[0])

    # -- helpers -------------------------------------------------------------------------------------------
    def _facts(self, clause: str, params: tuple) -> list[Fact]:
        with self._lock:
            rows = self._conn.execute(f"SELECT id, text, run_id, created, extraction FROM memory_facts {clause}",
                                      params).fetchall()
            if not rows:
                return []
            marks = ",".join("?" * len(rows))
            triples = self._conn.execute(f"SELECT subject, predicate, object, fact_id, method FROM memory_triples "
                                         f"WHERE fact_id IN ({marks}) ORDER BY id", [r[0] for r in rows]).fetchall()
        by_fact: dict[int, list[StoredTriple]] = {}
        for row in triples:
            by_fact.setdefault(row[3], []).append(StoredTriple(*row))
        return [Fact(r[0], r[1], r[2], r[3], by_fact.get(r[0], []), r[4]) for r in rows]


def export_records(memory: MemoryStore) -> list[dict[str, Any]]:
    """Every fact (with its triples) and summary as plain records, oldest first, for `helium memory export`."""
    records = [{"kind": "fact", **f.to_json()} for f in reversed(memory.facts())]
    records += [{"kind": "summary", **s.to_json()} for s in reversed(memory.summaries())]
    return records


def dumps_records(records: list[dict[str, Any]], *, as_json: bool) -> str:
    """JSON lines (one record a line), or one JSON document with `facts` and `summaries`."""
    if not as_json:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    return json.dumps({"facts": [r for r in records if r["kind"] == "fact"],
                       "summaries": [r for r in records if r["kind"] == "summary"]}, indent=2, ensure_ascii=False) + "\n"
