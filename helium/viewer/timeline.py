"""A run's timeline for the viewer: one row per checkpoint (step, node, time, what happened, which state
keys changed), computed once per checkpoint and kept for the life of the viewer process.

LangGraph rebuilds a snapshot's message list from its deltas, so each snapshot costs time in proportion
to the run's length and a whole history costs the square of it (about 26 s for a 200-turn run here).
Checkpoints never change, so rows are computed once; a live page only computes the checkpoints that are
new since its last refresh, and a first view computes the newest `limit` rows, not the whole history.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StateSnapshot

from helium.cli.session import describe_step, format_time, subagent_checkpoints, thread_config
from helium.state.store import ProjectStore

TIMELINE_LIMIT = 100
"""Checkpoints a run page shows unless asked for all of them."""


@dataclass
class Change:
    key: str
    before: str
    after: str


@dataclass
class Step:
    step: int | None
    node: str
    time: str
    checkpoint_id: str
    summary: str
    next: list[str]
    changes: list[Change] = field(default_factory=list)
    forkable: bool = False
    order: str = ""
    """The raw timestamp, to sort rows from the run's own and its subagents' checkpoints together."""


@dataclass
class _RunRows:
    rows: dict[str, Step] = field(default_factory=dict)
    """Rows of a gapless range of the run's checkpoints, from `oldest` to the newest computed."""
    oldest: str | None = None
    newest: str | None = None
    """Its row is made again on every look: pending writes (an interrupt, say) still change what it says."""
    complete: bool = False
    """The range reaches back to the run's first checkpoint."""
    lock: threading.Lock = field(default_factory=threading.Lock)


class TimelineCache:
    """Rows by checkpoint id, for the most recently viewed runs."""

    def __init__(self, runs: int = 64) -> None:
        self._runs: OrderedDict[str, _RunRows] = OrderedDict()
        self._size = runs
        self._lock = threading.Lock()

    def steps(self, store: ProjectStore, graph: CompiledStateGraph, run_id: str,
              limit: int | None = TIMELINE_LIMIT) -> tuple[list[Step], bool]:
        """The newest `limit` rows (all with None), oldest first, with the run's subagent checkpoints among
        them; and whether these are all the run's checkpoints."""
        cached = self._for(run_id)
        config = thread_config(run_id)
        with cached.lock:
            if cached.newest:
                cached.rows.pop(cached.newest, None)
            before = dict(cached.rows)
            ended, oldest = _add_rows(cached.rows, graph.get_state_history(config), stop_at_cached=True, limit=limit)
            if ended == "limit":  # the new rows do not reach the cached ones: keep only the new, gapless range
                cached.rows = {k: v for k, v in cached.rows.items() if k not in before}
            if ended != "cached":
                cached.oldest, cached.complete = oldest, ended == "start"
            if not cached.complete and cached.oldest and (limit is None or len(cached.rows) < limit):
                older = graph.get_state_history(config, before={"configurable": {
                    "thread_id": run_id, "checkpoint_id": cached.oldest}})
                wanted = None if limit is None else limit - len(cached.rows)
                ended, oldest = _add_rows(cached.rows, older, stop_at_cached=False, limit=wanted)
                cached.oldest, cached.complete = oldest or cached.oldest, ended == "start"
            rows = sorted(cached.rows.values(), key=lambda s: s.order)
            cached.newest = rows[-1].checkpoint_id if rows else None
            complete = cached.complete
        shown = rows if limit is None else rows[-limit:]
        everything = complete and len(shown) == len(rows)
        since = "" if everything or not shown else shown[0].order
        subagents = [_subagent_step(row) for row in subagent_checkpoints(store, run_id) if row["time"] >= since]
        return sorted(shown + subagents, key=lambda s: s.order), everything

    def _for(self, run_id: str) -> _RunRows:
        with self._lock:
            cached = self._runs.pop(run_id, None) or _RunRows()
            self._runs[run_id] = cached
            while len(self._runs) > self._size:
                self._runs.popitem(last=False)
            return cached


def _add_rows(rows: dict[str, Step], snapshots: Iterator[StateSnapshot], *, stop_at_cached: bool,
              limit: int | None) -> tuple[str, str | None]:
    """Walk snapshots newest to oldest, giving each one a row once its older neighbour is known.

    Stops at a snapshot that already has a row (`stop_at_cached`), after `limit` new rows, or at the run's
    first checkpoint (the input, with nothing before it). Returns why it stopped ("cached", "limit" or
    "start") and the oldest checkpoint given a row.
    """
    newer: StateSnapshot | None = None
    oldest: str | None = None
    added = 0
    for snap in snapshots:
        if newer is not None:
            if _id(newer) not in rows:
                rows[_id(newer)] = _row(snap, newer)
                added += 1
            oldest = _id(newer)
        if stop_at_cached and _id(snap) in rows:
            return "cached", oldest
        if limit is not None and added >= limit:
            return "limit", oldest
        newer = snap
    if newer is None:
        return "start", oldest
    rows.setdefault(_id(newer), _row(None, newer))
    return "start", _id(newer)


def _id(snap: StateSnapshot) -> str:
    return snap.config["configurable"]["checkpoint_id"]


def _row(previous: StateSnapshot | None, snap: StateSnapshot) -> Step:
    """What `helium history` says of a checkpoint (same node naming and summary), plus its state changes."""
    node = "input" if previous is None else ",".join(t.name for t in previous.tasks) or "update"
    step = snap.metadata.get("step")
    return Step(step, node, format_time(snap.created_at), _id(snap), describe_step(previous, snap, node),
                list(snap.next), _changes(previous, snap), forkable=(step or 0) >= 0, order=snap.created_at)


def _changes(previous: StateSnapshot | None, snap: StateSnapshot) -> list[Change]:
    before = previous.values if previous else {}
    found = []
    for key in sorted(set(before) | set(snap.values)):
        old, new = before.get(key), snap.values.get(key)
        if key == "messages":
            added = len(new or []) - len(old or [])
            if added:
                found.append(Change(key, f"{len(old or [])} messages", f"+{added} → {len(new or [])}"))
        elif old != new:
            found.append(Change(key, _value(old), _value(new)))
    return found


def _value(value: Any, limit: int = 2_000) -> str:
    if value is None:
        return "—"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


def _subagent_step(row: dict[str, Any]) -> Step:
    return Step(row["step"], row["node"], format_time(row["time"]), row["checkpoint_id"], row["summary"],
                row["next"], order=row["time"])
