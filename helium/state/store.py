"""The project store: one SQLite file (`.helium/helium.db`, WAL) for everything durable.

It holds LangGraph's checkpoints (via `SqliteSaver`), the runs index, the permission
audit log and the tool ledger.  One connection per process, shared with the
checkpointer under the checkpointer's own lock, so `Send` fan-outs on worker threads
are safe; a busy timeout lets several processes share the file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

from helium.errors import StoreError
from helium.state.audit import AuditLog
from helium.state.ledger import ToolLedger
from helium.state.runs import RunsIndex
from helium.state.serializer import CompressingSerializer

BUSY_TIMEOUT_SECONDS = 10.0


class ProjectStore:
    """Opens `.helium/helium.db` and exposes the checkpointer, runs index, audit log and tool ledger."""

    def __init__(self, db_path: Path) -> None:
        self.path = db_path
        try:
            db_path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(db_path, check_same_thread=False, timeout=BUSY_TIMEOUT_SECONDS)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the project store {db_path}: {exc}") from None
        self.checkpointer = SqliteSaver(self.conn, serde=CompressingSerializer())
        lock = self.checkpointer.lock
        try:
            with lock:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
            self.checkpointer.setup()
            self.runs = RunsIndex(self.conn, lock)
            self.audit = AuditLog(self.conn, lock)
            self.ledger = ToolLedger(self.conn, lock)
        except sqlite3.Error as exc:
            self.conn.close()
            raise describe_store_error(exc, db_path) from None

    def close(self) -> None:
        with self.checkpointer.lock:
            self.conn.close()

    def __enter__(self) -> ProjectStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def describe_store_error(exc: sqlite3.Error, db_path: Path) -> StoreError:
    """One line naming what is wrong with the store file and what to do about it."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreError(f"the project store {db_path} is locked by another process; wait for it to finish, "
                          "or stop it, and try again")
    if "not a database" in text or "malformed" in text or type(exc) is sqlite3.DatabaseError:
        return StoreError(f"the project store {db_path} is corrupt ({text}); move it aside "
                          f"(mv {db_path} {db_path}.bad) to start a fresh one")
    return StoreError(f"the project store {db_path} failed: {text}")
