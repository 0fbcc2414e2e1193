"""The viewer's timeline says what `helium history` says, row for row, however it was built: the newest
rows first, older ones on request, and new checkpoints added as a run goes on."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from helium.cli.session import checkpoint_history, thread_config
from helium.config import Settings
from helium.graphs import chat
from helium.state.store import ProjectStore
from helium.viewer.timeline import TimelineCache
from tests.support.scripted_model import ScriptedChatModel


def reads(first: int, count: int) -> list[AIMessage]:
    return [AIMessage("", tool_calls=[{"name": "read_file", "args": {"path": "a.txt"}, "id": f"call_{i}"}])
            for i in range(first, first + count)]


@pytest.fixture
def chat_run(tmp_path: Path):
    (tmp_path / "a.txt").write_text("alpha\n")
    settings = Settings(workspace=tmp_path)
    with ProjectStore(settings.db_path) as store:
        run = store.runs.create("chat", "read a lot", "scripted")
        graph = chat.build_graph(store.checkpointer)

        def turn(message: str, replies: list[AIMessage]) -> None:
            context = replace(chat.build_context(settings, store, run, "auto"),
                              model=ScriptedChatModel(turns=replies), max_turns=50)
            graph.invoke({"messages": [HumanMessage(message)]}, thread_config(run.id) | {"recursion_limit": 200},
                         context=context)

        turn("read a.txt six times", [*reads(0, 6), AIMessage("read it six times")])
        yield store, graph, run.id, turn


def rows(steps) -> list[tuple]:
    return [(s.checkpoint_id, s.step, s.node, s.summary) for s in steps]


def expected(store: ProjectStore, run_id: str) -> list[tuple]:
    return [(s["checkpoint_id"], s["step"], s["node"], s["summary"]) for s in checkpoint_history(store, run_id)]


def test_newest_rows_first_then_older_on_request_then_new_ones(chat_run) -> None:
    store, graph, run_id, turn = chat_run
    history = expected(store, run_id)
    assert len(history) > 12
    cache = TimelineCache()

    newest, complete = cache.steps(store, graph, run_id, limit=5)
    assert rows(newest) == history[-5:] and not complete
    more, complete = cache.steps(store, graph, run_id, limit=9)  # extends the cached rows backwards
    assert rows(more) == history[-9:] and not complete
    everything, complete = cache.steps(store, graph, run_id, limit=None)
    assert rows(everything) == history and complete
    assert all(s.changes for s in everything if s.node == "model")  # turns and usage change at every model step

    turn("and once more", [*reads(6, 1), AIMessage("once more")])
    grown = expected(store, run_id)
    assert len(grown) > len(history)
    again, complete = cache.steps(store, graph, run_id, limit=None)
    assert rows(again) == grown and complete
    assert rows(cache.steps(store, graph, run_id, limit=4)[0]) == grown[-4:]


def test_a_cold_cache_with_no_limit_reads_the_whole_history(chat_run) -> None:
    store, graph, run_id, _ = chat_run
    steps, complete = TimelineCache().steps(store, graph, run_id, limit=None)
    assert rows(steps) == expected(store, run_id) and complete
    assert steps[0].node == "input" and not steps[0].forkable and steps[1].forkable


def test_rows_left_behind_by_a_run_that_moved_on_are_not_mixed_in(chat_run) -> None:
    store, graph, run_id, turn = chat_run
    cache = TimelineCache()
    cache.steps(store, graph, run_id, limit=3)
    turn("twice more", [*reads(6, 2), AIMessage("twice more")])  # many checkpoints since the cached rows
    grown = expected(store, run_id)
    newest, complete = cache.steps(store, graph, run_id, limit=2)
    assert rows(newest) == grown[-2:] and not complete
    everything, complete = cache.steps(store, graph, run_id, limit=None)
    assert rows(everything) == grown and complete
