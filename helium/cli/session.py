"""What the commands do with runs: start, resume, fork, report, and read history and transcripts."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StateSnapshot
from rich.console import Console

from helium.cli.driver import RunDriver, RunOutcome, summarise_args
from helium.config import ApprovalMode, Settings
from helium.errors import HeliumError
from helium.graphs import CONVERSATION_FLOWS, FORKABLE_FLOWS, flow_module
from helium.graphs.research_steps import describe_research_step
from helium.memory.recall import describe_recalled
from helium.skills import load_skills
from helium.state.runs import RunRecord
from helium.state.store import ProjectStore

# Which node's completion leads to a checkpoint whose next node is the key (for forking into a new thread).
_AS_NODE_FOR_NEXT = {"model": "tools", "gate": "model", "tools": "gate", "subagent": "gate"}


def approval_mode(settings: Settings) -> tuple[ApprovalMode, bool]:
    """(mode, can ask): ask on a terminal, deny without one; `ask` without a terminal pauses the run."""
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    mode: ApprovalMode = settings.approve or ("ask" if terminal else "deny")
    return mode, terminal


@contextmanager
def open_driver(settings: Settings, *, json_output: bool = False) -> Iterator[RunDriver]:
    mode, terminal = approval_mode(settings)
    with ProjectStore(settings.db_path) as store:
        console = Console(highlight=False, soft_wrap=True)
        yield RunDriver(settings, store, console, approval=mode, interactive=terminal and not json_output,
                        quiet=json_output)


def report(outcome: RunOutcome, json_output: bool) -> int:
    """Print how the run ended (stdout for --json, stderr otherwise) and return the exit code."""
    if json_output:
        print(json.dumps(outcome.to_json(), indent=2))
        return outcome.exit_code
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    cost = "" if outcome.cost is None else f" · ${outcome.cost:.4f}"
    err.print(f"[dim]run {outcome.run_id} · {outcome.status} · {outcome.tokens_in:,} tokens in / "
              f"{outcome.tokens_out:,} out{cost}[/]")
    if outcome.hit_turn_limit:
        err.print(f"[yellow]stopped at the turn limit; continue with: helium resume {outcome.run_id} --message "
                  "\"go on\"[/]")
    if outcome.denied:
        err.print(f"[red]denied {len(outcome.denied)} call(s):[/]")
        for entry in outcome.denied:
            err.print(f"  {entry['tool']} {summarise_args(entry['args'])} ({entry['reason']})", markup=False)
        err.print("[dim]allow them with --auto-approve, a rule in .helium/permissions.toml, or on a terminal[/]")
    if outcome.status == "waiting-approval":
        err.print(f"run {outcome.run_id} is waiting for approval: helium resume {outcome.run_id}", markup=False)
    elif outcome.status == "interrupted":
        err.print(f"interrupted; continue with: helium resume {outcome.run_id}", markup=False)
    elif outcome.status == "failed":
        err.print(f"error: {outcome.error}", markup=False)
        err.print(f"the run is saved; after fixing that: helium resume {outcome.run_id}", markup=False)
    return outcome.exit_code


def run_skill(driver: RunDriver, name: str, arguments: str) -> RunOutcome:
    """Start a fresh run of a skill: its body in the system prompt, its arguments as the user's message."""
    catalog = load_skills(driver.settings.workspace)
    warn(catalog.warnings)
    skill = catalog.get(name)
    return driver.start("skill", arguments or f"Run the {skill.name} skill.", {"skill": skill.name})


def warn(warnings: list[str]) -> None:
    """One line per problem on stderr, such as a malformed SKILL.md that was skipped."""
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)


def _graph_for(store: ProjectStore, run: RunRecord) -> CompiledStateGraph:
    return flow_module(run.flow).build_graph(store.checkpointer)


def thread_config(run_id: str) -> dict:
    """The LangGraph config naming a run's thread."""
    return {"configurable": {"thread_id": run_id}}


def resume_run(driver: RunDriver, run_id: str, message: str | None) -> RunOutcome:
    run = driver.store.runs.get(run_id)
    if run.status == "running":
        raise HeliumError(f"run {run.id} is still running (process {run.pid}); stop it first")
    snapshot = _graph_for(driver.store, run).get_state(thread_config(run.id))
    if snapshot.next:
        if message:
            raise HeliumError(f"run {run.id} has unfinished steps; resume it first, then add a message")
        return driver.drive(run, None)
    if not message:
        raise HeliumError(f"run {run.id} is {run.status} with nothing left to do; add --message to continue "
                          "the conversation, or fork it")
    if run.flow == "research":
        raise HeliumError(f"research run {run.id} is {run.status}; it takes no messages: research a new "
                          "question with `helium run research`")
    return driver.drive(run, {"messages": [HumanMessage(message)]})


def fork_run(driver: RunDriver, run_id: str, at: str, message: str | None) -> RunOutcome:
    """Copy the state at checkpoint `at` into a new run and continue it there."""
    return driver.drive(start_fork(driver, run_id, at, message), None)


def start_fork(driver: RunDriver, run_id: str, at: str, message: str | None) -> RunRecord:
    """Create the new run holding the state at checkpoint `at` (with `message` put in), ready to drive;
    the viewer drives it in the background, the CLI at once."""
    store = driver.store
    parent = store.runs.get(run_id)
    if parent.flow not in FORKABLE_FLOWS:
        raise HeliumError(f"a {parent.flow} run cannot be forked (only {', '.join(FORKABLE_FLOWS)} runs)")
    if message and parent.flow not in CONVERSATION_FLOWS:
        raise HeliumError(f"a {parent.flow} run takes no message; fork it without one")
    graph = _graph_for(store, parent)
    snapshot = find_checkpoint(graph, parent.id, at)
    values = dict(snapshot.values)
    messages = list(values.get("messages", []))
    if message:
        if messages and isinstance(messages[-1], HumanMessage):
            messages[-1] = HumanMessage(message)
        else:
            messages.append(HumanMessage(message))
        as_node = "tools" if "tools" in graph.nodes else "__start__"  # other flows start over from the message
    elif snapshot.next:
        as_node = ((_AS_NODE_FOR_NEXT.get(snapshot.next[0]) or "tools") if "tools" in graph.nodes
                   else _node_that_wrote(graph, snapshot))
    else:
        as_node = "model"
    checkpoint_id = snapshot.config["configurable"]["checkpoint_id"]
    child = store.runs.create(parent.flow, message or parent.title, driver.settings.model, parent_id=parent.id,
                              parent_checkpoint=checkpoint_id, extra=parent.extra)
    values["messages"] = messages
    graph.update_state(thread_config(child.id), values, as_node=as_node)
    driver.console.print(f"[dim]forked run {parent.id} at checkpoint {checkpoint_id} "
                         f"(step {snapshot.metadata.get('step')}) into run {child.id}[/]", highlight=False)
    return child


def _node_that_wrote(graph: CompiledStateGraph, snapshot: StateSnapshot) -> str:
    """The node whose step produced `snapshot` (a research step), so the fork goes on from there."""
    before = graph.get_state(snapshot.parent_config) if snapshot.parent_config else None
    return before.tasks[0].name if before is not None and before.tasks else "__start__"


def find_checkpoint(graph: CompiledStateGraph, run_id: str, at: str) -> StateSnapshot:
    """A checkpoint of the run by id, unique id prefix, or step number."""
    history = list(graph.get_state_history(thread_config(run_id)))
    by_step = [s for s in history if at.lstrip("-").isdigit() and s.metadata.get("step") == int(at)]
    by_id = [s for s in history if s.config["configurable"]["checkpoint_id"].startswith(at)]
    found = by_step or by_id
    if len(found) != 1:
        problem = "matches no" if not found else f"matches {len(found)}"
        raise HeliumError(f"{at!r} {problem} checkpoint of run {run_id}; pick one from `helium history {run_id}`")
    return found[0]


def checkpoint_history(store: ProjectStore, run_id: str) -> list[dict[str, Any]]:
    """Oldest first: step, the node that produced the checkpoint, time, id, what it changed."""
    run = store.runs.get(run_id)
    snapshots = list(_graph_for(store, run).get_state_history(thread_config(run.id)))[::-1]
    steps = []
    previous: StateSnapshot | None = None
    for snap in snapshots:
        node = "input" if previous is None else ",".join(t.name for t in previous.tasks) or "update"
        steps.append({
            "step": snap.metadata.get("step"),
            "node": node,
            "next": list(snap.next),
            "time": snap.created_at,
            "checkpoint_id": snap.config["configurable"]["checkpoint_id"],
            "summary": describe_step(previous, snap, node),
        })
        previous = snap
    return sorted(steps + subagent_checkpoints(store, run.id), key=lambda step: step["time"])


def subagent_checkpoints(store: ProjectStore, run_id: str) -> list[dict[str, Any]]:
    """Checkpoints that subagents wrote in their own namespaces of the run's thread."""
    steps = []
    for saved in store.checkpointer.list(thread_config(run_id)):
        namespace = saved.config["configurable"].get("checkpoint_ns", "")
        if not namespace:
            continue
        values = saved.checkpoint["channel_values"]
        name = values.get("agent_name")
        where = f"namespace {namespace.split(':')[0]}:{namespace.split(':')[-1][:8]}"
        steps.append({
            "step": saved.metadata.get("step"),
            "node": f"subagent {name}" if name else "subagent",
            "next": [],
            "time": saved.checkpoint["ts"],
            "checkpoint_id": saved.config["configurable"]["checkpoint_id"],
            "summary": (f"{name}: turn {values.get('turns', 0)} of at most {values.get('max_turns')} ({where})"
                        if name else f"subagent input ({where})"),
        })
    return steps


def describe_step(previous: StateSnapshot | None, snap: StateSnapshot, node: str) -> str:
    """One line on what a checkpoint added: the new messages, the gate's decisions, a pending question."""
    old = len(previous.values.get("messages", [])) if previous else 0
    new_messages = snap.values.get("messages", [])[old:]
    parts = [_message_line(m) for m in new_messages]
    research = describe_research_step(node.split(",")[0], previous.values if previous else {}, snap.values)
    if research:
        parts.insert(0, research)
    if node == "gate":
        decisions = snap.values.get("decisions", {})
        approved = sum(d["approved"] for d in decisions.values())
        parts.append(f"gate: {approved} approved, {len(decisions) - approved} denied")
    if snap.values.get("recalled") and not (previous and previous.values.get("recalled")):
        parts += describe_recalled(snap.values["recalled"])  # what memory and contextual skills put in the prompt
    if snap.interrupts:
        parts.append("waiting for approval: " + ", ".join(c["tool"] for i in snap.interrupts
                                                           for c in i.value.get("calls", [])))
    return "; ".join(parts) or "-"


def _message_line(message: BaseMessage, width: int = 70) -> str:
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = ", ".join(f"{c['name']}({summarise_args(c['args'], 40)})" for c in message.tool_calls)
        return f"assistant calls {calls}"
    role = {"human": "user", "ai": "assistant", "tool": f"tool {getattr(message, 'name', '')}"}.get(message.type,
                                                                                                     message.type)
    text = " ".join(message.text.split())
    return f"{role}: {text[:width]}{'…' if len(text) > width else ''}"


def transcript(store: ProjectStore, run_id: str) -> tuple[RunRecord, list[dict[str, Any]]]:
    run = store.runs.get(run_id)
    snapshot = _graph_for(store, run).get_state(thread_config(run.id))
    return run, [message_json(m) for m in snapshot.values.get("messages", [])]


def recalled_context(store: ProjectStore, run: RunRecord) -> dict[str, Any] | None:
    """What memory and contextual skills put into the run's system prompt (facts, summaries, skills), if any."""
    recalled = _graph_for(store, run).get_state(thread_config(run.id)).values.get("recalled")
    return dict(recalled) if recalled else None


def message_json(message: BaseMessage) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": message.type, "content": message.text}
    if isinstance(message, AIMessage) and message.tool_calls:
        entry["tool_calls"] = [{"id": c["id"], "name": c["name"], "args": c["args"]} for c in message.tool_calls]
    if isinstance(message, ToolMessage):
        entry.update(tool_call_id=message.tool_call_id, name=message.name, status=message.status)
    return entry


def format_time(value: float | str) -> str:
    moment = datetime.fromtimestamp(value) if isinstance(value, (int, float)) else datetime.fromisoformat(value)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")
