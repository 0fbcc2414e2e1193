"""A scripted agent run shared by the benchmarks: N tool turns with ~2 KB outputs, then an answer."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.types import Durability

from helium.graphs.agent_loop import build_agent_loop, recursion_limit
from helium.nodes.context import AgentContext
from helium.state.store import ProjectStore
from helium.tools.tiers import Tier
from tests.support.scripted_model import ScriptedChatModel

OUTPUT_BYTES = 2048


def tool_output(turn: int) -> str:
    """About 2 KB of grep-like output, different every turn (so nothing dedupes across turns)."""
    lines, i = [], 0
    while sum(len(line) + 1 for line in lines) < OUTPUT_BYTES:
        lines.append(f"src/pkg/module_{turn % 17}_{i}.py:{turn * 7 + i}: def handler_{turn}_{i}(request, "
                     f"retries={i % 5}): return respond(request, code={200 + i})")
        i += 1
    return "\n".join(lines)[:OUTPUT_BYTES]


def search_tool() -> BaseTool:
    def search(query: str, turn: int) -> str:
        """Search the code base."""
        return tool_output(turn)

    return StructuredTool.from_function(search, metadata={"tier": Tier.SAFE})


def scripted_turns(turns: int) -> list[AIMessage]:
    usage = {"input_tokens": 1000, "output_tokens": 20, "total_tokens": 1020}
    calls = [AIMessage(content=f"Looking at part {t}.", usage_metadata=usage, tool_calls=[
        {"name": "search", "args": {"query": f"handler {t}", "turn": t}, "id": f"call_{t}"}]) for t in range(turns)]
    return [*calls, AIMessage(content="All parts inspected.", usage_metadata=usage)]


def run_graph(db_path: Path, turns: int, durability: Durability = "sync") -> ProjectStore:
    """Run the real agent loop with durable SQLite checkpoints; returns the (open) store."""
    store = ProjectStore(db_path)
    run = store.runs.create("bench", "benchmark", "scripted")
    context = AgentContext(run_id=run.id, model=ScriptedChatModel(turns=scripted_turns(turns)),
                           tools=[search_tool()], store=store, system_prompt="You are a benchmark.",
                           approval="deny", permissions_path=db_path.parent / "permissions.toml",
                           max_turns=turns + 1)
    graph = build_agent_loop(store.checkpointer, name="bench")
    config = {"configurable": {"thread_id": run.id}, "recursion_limit": recursion_limit(turns + 1)}
    graph.invoke({"messages": [HumanMessage("inspect every part")]}, config, context=context, durability=durability)
    return store


def run_plain_loop(turns: int) -> list[BaseMessage]:
    """The same model and tool calls in a plain Python loop, nothing stored."""
    model = ScriptedChatModel(turns=scripted_turns(turns)).bind_tools([search_tool()])
    tool = search_tool()
    messages: list[BaseMessage] = [SystemMessage("You are a benchmark."), HumanMessage("inspect every part")]
    while True:
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return messages
        for call in reply.tool_calls:
            messages.append(ToolMessage(str(tool.invoke(call["args"])), tool_call_id=call["id"], name=call["name"]))


def transcript_bytes(messages: list[BaseMessage]) -> int:
    return sum(len(m.model_dump_json().encode()) for m in messages)


def run_bare_loop(db_path: Path, turns: int, durability: Durability = "sync") -> None:
    """LangGraph alone: the same three nodes as no-ops writing the same messages, with the same store,
    to tell LangGraph's own cost per turn from Helium's."""
    from langgraph.graph import END, START, StateGraph

    from helium.state.schema import AgentState

    def model(state: AgentState) -> dict:
        turn = state.get("turns", 0)
        return {"messages": [AIMessage(content=f"Looking at part {turn}.", id=f"ai-{turn}")], "turns": turn + 1}

    def tools(state: AgentState) -> dict:
        turn = state["turns"]
        return {"messages": [ToolMessage(tool_output(turn), tool_call_id=f"call_{turn}", id=f"tool-{turn}")]}

    builder = StateGraph(AgentState)
    builder.add_node("model", model)
    builder.add_node("gate", lambda state: {"decisions": {}})
    builder.add_node("tools", tools)
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", lambda s: "gate" if s["turns"] <= turns else END, ["gate", END])
    builder.add_edge("gate", "tools")
    builder.add_edge("tools", "model")
    store = ProjectStore(db_path)
    graph = builder.compile(checkpointer=store.checkpointer)
    graph.invoke({"messages": [HumanMessage("inspect every part", id="human")]},
                 {"configurable": {"thread_id": "bare"}, "recursion_limit": recursion_limit(turns + 1)},
                 durability=durability)
    store.close()
