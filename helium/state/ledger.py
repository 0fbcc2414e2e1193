"""The tool ledger: which tool calls started and finished, so a resumed run never repeats a side effect.

LangGraph re-runs an interrupted node from its start.  The tools node records each
call here before and after running it; on a re-run a finished call returns its
recorded output and a call that started but never finished (the process was
killed mid-call) is reported to the model instead of being run a second time.
Entries of earlier turns are dropped as the run moves on, so the ledger stays small.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Literal

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tool_ledger (
    run_id TEXT NOT NULL,
    tool_call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    state TEXT NOT NULL,
    output TEXT,
    is_error INTEGER NOT NULL DEFAULT 0,
    updated REAL NOT NULL,
    PRIMARY KEY (run_id, tool_call_id)
)
"""

LedgerState = Literal["started", "done"]


class ToolLedger:
    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock) -> None:
        self._conn = conn
        self._lock = lock
        with self._lock, self._conn:
            self._conn.execute(_SCHEMA)

    def lookup(self, run_id: str, tool_call_id: str) -> tuple[LedgerState, str | None, bool] | None:
        """(state, output, is_error) of a call this run already started, or None."""
        with self._lock:
            row = self._conn.execute("SELECT state, output, is_error FROM tool_ledger WHERE run_id = ? AND "
                                     "tool_call_id = ?", (run_id, tool_call_id)).fetchone()
        return (row[0], row[1], bool(row[2])) if row else None

    def started(self, run_id: str, tool_call_id: str, tool: str) -> None:
        with self._lock, self._conn:
            self._conn.execute("INSERT OR REPLACE INTO tool_ledger VALUES (?, ?, ?, 'started', NULL, 0, ?)",
                               (run_id, tool_call_id, tool, time.time()))

    def forget_other_calls(self, run_id: str, keep: list[str]) -> None:
        """Drop entries of earlier turns: their results are in a checkpoint by the time a later turn runs."""
        marks = ",".join("?" * len(keep))
        with self._lock, self._conn:
            self._conn.execute(f"DELETE FROM tool_ledger WHERE run_id = ? AND tool_call_id NOT IN ({marks})",
                               (run_id, *keep))

    def finished(self, run_id: str, tool_call_id: str, tool: str, output: str, is_error: bool) -> None:
        with self._lock, self._conn:
            self._conn.execute("INSERT OR REPLACE INTO tool_ledger VALUES (?, ?, ?, 'done', ?, ?, ?)",
                               (run_id, tool_call_id, tool, output, int(is_error), time.time()))
