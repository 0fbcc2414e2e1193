"""The agent loop in-process, with the scripted chat model and a real SQLite store."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool
from langgraph.types import Command

from helium.graphs.agent_loop import build_agent_loop, recursion_limit
from helium.nodes.context import AgentContext
from helium.state.store import ProjectStore
from helium.tools.permissions import PermissionRules, Rule
from helium.tools.tiers import Tier
from tests.support.scripted_model import ScriptedChatModel


class Counter:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def tools(self) -> list[StructuredTool]:
        def note(text: str) -> str:
            """Write a note (a side effect)."""
            self.calls.append(text)
            return f"noted {text}"

        def look(text: str) -> str:
            """Read-only lookup."""
            return f"looked {text}"

        return [StructuredTool.from_function(note, metadata={"tier": Tier.RISKY}),
                StructuredTool.from_function(look, metadata={"tier": Tier.SAFE})]


def turn(*calls: tuple[str, str, str], text: str = "") -> AIMessage:
    return AIMessage(content=text, tool_calls=[{"name": n, "args": {"text": a}, "id": i} for n, a, i in calls])


@pytest.fixture
def store(tmp_path: Path):
    with ProjectStore(tmp_path / ".helium" / "helium.db") as opened:
        yield opened


def context(store: ProjectStore, tmp_path: Path, turns: list[AIMessage], counter: Counter, approval="ask",
            max_turns: int = 10) -> AgentContext:
    run = store.runs.create("chat", "t", "scripted")
    return AgentContext(run_id=run.id, model=ScriptedChatModel(turns=turns), tools=counter.tools(), store=store,
                        system_prompt="test", approval=approval,
                        permissions_path=tmp_path / ".helium" / "permissions.toml", max_turns=max_turns)


def config(ctx: AgentContext) -> dict:
    return {"configurable": {"thread_id": ctx.run_id}, "recursion_limit": recursion_limit(ctx.max_turns)}


def test_ask_mode_interrupts_and_always_writes_a_rule(store, tmp_path) -> None:
    counter = Counter()
    ctx = context(store, tmp_path, [turn(("note", "a", "c1"), ("look", "b", "c2")), AIMessage("done")], counter)
    graph = build_agent_loop(store.checkpointer, name="chat")
    graph.invoke({"messages": [HumanMessage("go")]}, config(ctx), context=ctx)
    snapshot = graph.get_state(config(ctx))
    [pending] = snapshot.interrupts
    assert [c["tool"] for c in pending.value["calls"]] == ["note"]  # the safe call needs no question
    assert counter.calls == []

    graph.invoke(Command(resume={pending.id: {"c1": "always"}}), config(ctx), context=ctx)
    assert counter.calls == ["a"]
    assert graph.get_state(config(ctx)).values["messages"][-1].content == "done"
    assert PermissionRules.load(ctx.permissions_path).allow == (Rule("note"),)
    assert [(e.tool, e.decided_by) for e in store.audit.entries(ctx.run_id)] == [("note", "user"), ("look", "policy")]


def test_a_rerun_tools_node_does_not_repeat_finished_calls(store, tmp_path) -> None:
    counter = Counter()
    ctx = context(store, tmp_path, [turn(("note", "a", "c1"), ("note", "b", "c2")), AIMessage("done")], counter,
                  approval="auto")
    store.ledger.finished(ctx.run_id, "c1", "note", "noted a (recorded)", False)  # as if run before a crash
    graph = build_agent_loop(store.checkpointer, name="chat")
    graph.invoke({"messages": [HumanMessage("go")]}, config(ctx), context=ctx)
    assert counter.calls == ["b"]
    results = [m.content for m in graph.get_state(config(ctx)).values["messages"] if isinstance(m, ToolMessage)]
    assert results == ["noted a (recorded)", "noted b"]


def test_the_turn_limit_stops_the_loop(store, tmp_path) -> None:
    counter = Counter()
    turns = [turn(("look", str(i), f"c{i}")) for i in range(5)]
    ctx = context(store, tmp_path, turns, counter, max_turns=2)
    graph = build_agent_loop(store.checkpointer, name="chat")
    graph.invoke({"messages": [HumanMessage("go")]}, config(ctx), context=ctx)
    values = graph.get_state(config(ctx)).values
    assert values["turns"] == 2 and isinstance(values["messages"][-1], ToolMessage)


def test_checkpoints_store_message_deltas_not_the_whole_list(store, tmp_path) -> None:
    counter = Counter()
    turns = [turn(("look", "x" * 2000 + str(i), f"c{i}")) for i in range(30)] + [AIMessage("done")]
    ctx = context(store, tmp_path, turns, counter, max_turns=40)
    graph = build_agent_loop(store.checkpointer, name="chat")
    graph.invoke({"messages": [HumanMessage("go")]}, config(ctx), context=ctx)
    stored = store.conn.execute("SELECT SUM(LENGTH(checkpoint)) + (SELECT SUM(LENGTH(value)) FROM writes) "
                                "FROM checkpoints").fetchone()[0]
    transcript = sum(len(m.model_dump_json()) for m in graph.get_state(config(ctx)).values["messages"])
    assert stored < 4 * transcript  # a full list per checkpoint would be ~30x
