"""The research page store: a table in the project store holding every page a research run fetched.

It is what makes fetching idempotent across crashes: a page is recorded the moment its fetch
ends (body or reason), and a resumed run looks here before going to the network.  Page text
lives here (and its chunks in Chroma), never in the graph state.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass

_SCHEMA = """
CREATE TABLE IF NOT EXISTS research_pages (
    run_id TEXT NOT NULL,
    url TEXT NOT NULL,
    final_url TEXT,
    status INTEGER,
    content_type TEXT,
    error TEXT,
    body BLOB,
    title TEXT,
    author TEXT,
    date TEXT,
    text TEXT,
    chunks INTEGER,
    fetched REAL NOT NULL,
    PRIMARY KEY (run_id, url)
)
"""


@dataclass(frozen=True)
class StoredPage:
    url: str
    final_url: str | None
    status: int | None
    content_type: str | None
    error: str | None
    title: str | None
    author: str | None
    date: str | None
    text: str | None
    chunks: int | None


class PageStore:
    """Fetched pages by (run, url): raw body until extracted, then text and metadata."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock) -> None:
        self._conn = conn
        self._lock = lock
        with self._lock, self._conn:
            self._conn.execute(_SCHEMA)

    def record_fetch(self, run_id: str, url: str, *, final_url: str, status: int | None, content_type: str,
                     body: bytes | None, error: str | None) -> None:
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO research_pages (run_id, url, final_url, status, content_type, error, body,"
                " fetched) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, url, final_url, status, content_type, error, body, time.time()))

    def get(self, run_id: str, url: str) -> StoredPage | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT url, final_url, status, content_type, error, title, author, date, text, chunks"
                " FROM research_pages WHERE run_id = ? AND url = ?", (run_id, url)).fetchone()
        return StoredPage(*row) if row else None

    def body(self, run_id: str, url: str) -> bytes | None:
        with self._lock:
            row = self._conn.execute("SELECT body FROM research_pages WHERE run_id = ? AND url = ?",
                                     (run_id, url)).fetchone()
        return row[0] if row else None

    def record_extraction(self, run_id: str, url: str, *, title: str | None = None, author: str | None = None,
                          date: str | None = None, text: str | None = None, error: str | None = None) -> None:
        """Keep the text (or why there is none) and drop the raw body, which is no longer needed."""
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE research_pages SET title = ?, author = ?, date = ?, text = ?, error = ?, body = NULL"
                " WHERE run_id = ? AND url = ?", (title, author, date, text, error, run_id, url))

    def record_chunks(self, run_id: str, url: str, chunks: int) -> None:
        with self._lock, self._conn:
            self._conn.execute("UPDATE research_pages SET chunks = ? WHERE run_id = ? AND url = ?",
                               (chunks, run_id, url))

    def fetched_urls(self, run_id: str) -> list[str]:
        with self._lock:
            rows = self._conn.execute("SELECT url FROM research_pages WHERE run_id = ? ORDER BY fetched",
                                      (run_id,)).fetchall()
        return [row[0] for row in rows]
