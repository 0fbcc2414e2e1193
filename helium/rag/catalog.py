"""Which files are in the RAG index, with the content hash they were indexed at (a table in the project store).

The chunks and their vectors live in Chroma (collection `rag-files`); this table is what decides
whether a file must be indexed again (its SHA-256 changed) and how far a citation may point into
it (its number of lines, or pages for a PDF).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rag_files (
    path TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    kind TEXT NOT NULL,
    unit TEXT NOT NULL,
    extent INTEGER NOT NULL,
    chunks INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    indexed_at REAL NOT NULL
)
"""


@dataclass(frozen=True)
class IndexedFile:
    """One indexed file: its content hash, kind, citation unit and extent, chunks, size and when."""

    path: str
    """Relative to the workspace (with `/`), or absolute for a file outside it."""
    sha256: str
    kind: str
    unit: str
    extent: int
    chunks: int
    bytes: int
    indexed_at: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class FileCatalog:
    """The `rag_files` table, sharing the project store's connection and lock."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock) -> None:
        self._conn = conn
        self._lock = lock
        with self._lock, self._conn:
            self._conn.execute(_SCHEMA)

    def get(self, path: str) -> IndexedFile | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM rag_files WHERE path = ?", (path,)).fetchone()
        return IndexedFile(*row) if row else None

    def all(self) -> list[IndexedFile]:
        with self._lock:
            rows = self._conn.execute("SELECT * FROM rag_files ORDER BY path").fetchall()
        return [IndexedFile(*row) for row in rows]

    def put(self, path: str, sha256: str, kind: str, unit: str, extent: int, chunks: int, size: int) -> None:
        with self._lock, self._conn:
            self._conn.execute("INSERT OR REPLACE INTO rag_files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                               (path, sha256, kind, unit, extent, chunks, size, time.time()))

    def delete(self, path: str) -> None:
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM rag_files WHERE path = ?", (path,))
