"""The permission audit log: every gate decision, with run, checkpoint, tool, arguments and who decided."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass

_SCHEMA = """
CREATE TABLE IF NOT EXISTS audit (
    run_id TEXT NOT NULL,
    checkpoint_id TEXT,
    tool_call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    decision TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    reason TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (run_id, tool_call_id)
)
"""


@dataclass(frozen=True)
class AuditEntry:
    run_id: str
    checkpoint_id: str | None
    tool_call_id: str
    tool: str
    arguments: dict
    decision: str  # approved | denied
    decided_by: str
    reason: str
    created: float


class AuditLog:
    """Append-only; re-recording a tool call's decision (a node re-run after a crash) is a no-op."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock) -> None:
        self._conn = conn
        self._lock = lock
        with self._lock, self._conn:
            self._conn.execute(_SCHEMA)

    def record(self, run_id: str, checkpoint_id: str | None, tool_call_id: str, tool: str, arguments: dict,
               approved: bool, decided_by: str, reason: str) -> None:
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR IGNORE INTO audit VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, checkpoint_id, tool_call_id, tool, json.dumps(arguments, ensure_ascii=False),
                 "approved" if approved else "denied", decided_by, reason, time.time()),
            )

    def entries(self, run_id: str) -> list[AuditEntry]:
        with self._lock:
            rows = self._conn.execute("SELECT * FROM audit WHERE run_id = ? ORDER BY created, rowid",
                                      (run_id,)).fetchall()
        return [AuditEntry(r[0], r[1], r[2], r[3], json.loads(r[4]), *r[5:]) for r in rows]
