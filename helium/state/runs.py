"""The runs index: one row per run (a LangGraph thread) with what `helium runs` shows."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from typing import Literal

from helium.errors import RunNotFoundError

RunStatus = Literal["running", "waiting-approval", "interrupted", "done", "failed"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    flow TEXT NOT NULL,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    model TEXT NOT NULL,
    tokens_in INTEGER NOT NULL DEFAULT 0,
    tokens_out INTEGER NOT NULL DEFAULT 0,
    cost REAL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    parent_id TEXT,
    parent_checkpoint TEXT,
    pid INTEGER,
    error TEXT,
    extra TEXT NOT NULL DEFAULT '{}'
)
"""


@dataclass
class RunRecord:
    id: str
    flow: str
    title: str
    status: RunStatus
    model: str
    tokens_in: int
    tokens_out: int
    cost: float | None
    created: float
    updated: float
    parent_id: str | None
    parent_checkpoint: str | None
    pid: int | None
    error: str | None
    extra: dict

    def to_json(self) -> dict:
        data = asdict(self)
        data.pop("pid")
        return data


class RunsIndex:
    """Create, find, list and update runs; a `running` run whose process is gone reads as `interrupted`."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock) -> None:
        self._conn = conn
        self._lock = lock
        with self._lock, self._conn:
            self._conn.execute(_SCHEMA)

    def create(self, flow: str, title: str, model: str, *, parent_id: str | None = None,
               parent_checkpoint: str | None = None, extra: dict | None = None) -> RunRecord:
        run_id = uuid.uuid4().hex[:12]
        now = time.time()
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT INTO runs (id, flow, title, status, model, created, updated, parent_id, parent_checkpoint,"
                " pid, extra) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)",
                (run_id, flow, _one_line(title), model, now, now, parent_id, parent_checkpoint, os.getpid(),
                 json.dumps(extra or {})),
            )
        return self.get(run_id)

    def get(self, run_id: str) -> RunRecord:
        """Find a run by its id or a unique prefix of it."""
        with self._lock:
            rows = self._conn.execute("SELECT * FROM runs WHERE id = ? OR id LIKE ? ORDER BY id = ? DESC",
                                      (run_id, run_id.replace("%", "") + "%", run_id)).fetchall()
        if not rows or not run_id:
            raise RunNotFoundError(f"no run {run_id!r} in this project: `helium runs` lists them")
        if len(rows) > 1 and rows[0][0] != run_id:
            raise RunNotFoundError(f"run id {run_id!r} is ambiguous ({len(rows)} runs start with it): give more of it")
        return self._live(_record(rows[0]))

    def list(self, *, flow: str | None = None, limit: int | None = None) -> list[RunRecord]:
        query = "SELECT * FROM runs" + (" WHERE flow = ?" if flow else "") + " ORDER BY updated DESC"
        params: tuple = (flow,) if flow else ()
        if limit:
            query += " LIMIT ?"
            params += (limit,)
        with self._lock:
            rows = self._conn.execute(query, params).fetchall()
        return [self._live(_record(row)) for row in rows]

    def set_status(self, run_id: str, status: RunStatus, *, error: str | None = None) -> None:
        """Record a status change; `running` also claims the run for this process."""
        with self._lock, self._conn:
            self._conn.execute("UPDATE runs SET status = ?, error = ?, updated = ?, pid = ? WHERE id = ?",
                               (status, error, time.time(), os.getpid() if status == "running" else None, run_id))

    def set_usage(self, run_id: str, tokens_in: int, tokens_out: int, cost: float | None) -> None:
        with self._lock, self._conn:
            self._conn.execute("UPDATE runs SET tokens_in = ?, tokens_out = ?, cost = ?, updated = ? WHERE id = ?",
                               (tokens_in, tokens_out, cost, time.time(), run_id))

    def set_extra(self, run_id: str, extra: dict) -> None:
        """Replace the run's extra fields (a task trial records its reward and error here when it ends)."""
        with self._lock, self._conn:
            self._conn.execute("UPDATE runs SET extra = ?, updated = ? WHERE id = ?",
                               (json.dumps(extra), time.time(), run_id))

    def _live(self, record: RunRecord) -> RunRecord:
        """A run marked running whose process died (kill -9, crash) is really interrupted."""
        if record.status == "running" and record.pid and not _process_alive(record.pid):
            self.set_status(record.id, "interrupted", error="the process running it stopped")
            record.status, record.error, record.pid = "interrupted", "the process running it stopped", None
        return record


def set_status_from_another_thread(db_path: str, run_id: str, status: RunStatus, error: str | None) -> None:
    """Record a status on a fresh connection: for a signal handler, which must not take the shared lock."""
    with sqlite3.connect(db_path, timeout=2) as conn:
        conn.execute("UPDATE runs SET status = ?, error = ?, updated = ?, pid = NULL WHERE id = ?",
                     (status, error, time.time(), run_id))


def _record(row: tuple) -> RunRecord:
    values = list(row)
    values[-1] = json.loads(values[-1] or "{}")
    return RunRecord(*values)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _not_zombie(pid)


def _not_zombie(pid: int) -> bool:
    """A killed child that its parent has not reaped yet still answers kill(pid, 0)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def _one_line(text: str, width: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"
