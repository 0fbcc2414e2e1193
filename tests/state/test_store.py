"""The project store on a real SQLite file: runs index, liveness, audit idempotency, ledger, corruption."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helium.errors import RunNotFoundError, StoreError
from helium.state.store import ProjectStore


@pytest.fixture
def store(tmp_path: Path):
    with ProjectStore(tmp_path / ".helium" / "helium.db") as opened:
        yield opened


def test_runs_are_found_by_prefix_and_listed_newest_first(store: ProjectStore) -> None:
    first = store.runs.create("chat", "first   run\nwith lines", "m")
    second = store.runs.create("chat", "second", "m")
    assert store.runs.get(first.id[:6]).title == "first run with lines"
    assert [r.id for r in store.runs.list()] == [second.id, first.id]
    with pytest.raises(RunNotFoundError, match="no run 'zzz'"):
        store.runs.get("zzz")
    with pytest.raises(RunNotFoundError, match="no run"):
        store.runs.get("")


def test_a_running_run_whose_process_died_reads_as_interrupted(store: ProjectStore) -> None:
    run = store.runs.create("chat", "t", "m")
    dead = subprocess.Popen(["true"])
    dead.wait()
    store.conn.execute("UPDATE runs SET pid = ? WHERE id = ?", (dead.pid, run.id))
    assert store.runs.get(run.id).status == "interrupted"
    store.runs.set_status(run.id, "running")
    assert store.runs.get(run.id).status == "running"  # this process is alive


def test_audit_records_each_call_once(store: ProjectStore) -> None:
    for _ in range(2):  # a gate node re-run after a crash records the same decision again
        store.audit.record("r1", "cp1", "call_1", "bash", {"command": "ls"}, True, "policy", "read-only: ls")
    [entry] = store.audit.entries("r1")
    assert (entry.decision, entry.decided_by, entry.arguments) == ("approved", "policy", {"command": "ls"})


def test_ledger_remembers_started_and_finished_calls(store: ProjectStore) -> None:
    store.ledger.started("r1", "c1", "bash")
    assert store.ledger.lookup("r1", "c1") == ("started", None, False)
    store.ledger.finished("r1", "c1", "bash", "ok", False)
    assert store.ledger.lookup("r1", "c1") == ("done", "ok", False)
    store.ledger.forget_other_calls("r1", ["c2"])
    assert store.ledger.lookup("r1", "c1") is None


def test_a_corrupt_file_is_reported_plainly(tmp_path: Path) -> None:
    path = tmp_path / "helium.db"
    path.write_bytes(b"garbage" * 1000)
    with pytest.raises(StoreError, match="is corrupt .* move it aside"):
        ProjectStore(path)
