"""Drives a flow's graph for the CLI: streams tokens, asks for approvals, keeps the runs index true.

Every run is a LangGraph thread in the project store.  The driver records its
status (running, waiting-approval, interrupted, done, failed), its token usage and
cost, and turns failures into one-line messages; the run stays resumable.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langgraph.errors import GraphRecursionError
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, StateSnapshot
from rich.console import Console
from rich.markup import escape
from rich.prompt import Prompt

from helium.cli.research_view import ResearchProgress
from helium.config import ApprovalMode, Settings
from helium.errors import HeliumError
from helium.graphs import flow_module
from helium.graphs.agent_loop import recursion_limit
from helium.models import build_chat_model, describe_model_error, estimate_cost, route_model
from helium.nodes.context import AgentContext
from helium.nodes.research.context import ResearchContext
from helium.state.runs import RunRecord, RunStatus, set_status_from_another_thread
from helium.state.store import ProjectStore, describe_store_error
from helium.tools.todo import render_todos

EXIT_OK, EXIT_ERROR, EXIT_DENIED, EXIT_WAITING, EXIT_INTERRUPTED = 0, 1, 3, 4, 130


@dataclass
class RunOutcome:
    """What a user learns when a run stops: status, answer, denials, usage."""

    run_id: str
    status: RunStatus
    answer: str = ""
    denied: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    hit_turn_limit: bool = False
    result: dict[str, Any] = field(default_factory=dict)
    """What the flow reports beyond its answer (its state's `result`: a research run's report path, …)."""

    @property
    def exit_code(self) -> int:
        if self.status == "failed":
            return EXIT_ERROR
        if self.status == "interrupted":
            return EXIT_INTERRUPTED
        if self.status == "waiting-approval":
            return EXIT_WAITING
        return EXIT_DENIED if self.denied else EXIT_OK

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "status": self.status, "answer": self.answer, "denied": self.denied,
                "error": self.error, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "cost": self.cost, "hit_turn_limit": self.hit_turn_limit,
                **({"result": self.result} if self.result else {})}


class RunDriver:
    """Runs graphs of one project for one CLI invocation."""

    def __init__(self, settings: Settings, store: ProjectStore, console: Console, *, approval: ApprovalMode,
                 interactive: bool, quiet: bool = False) -> None:
        self.settings = settings
        self.store = store
        self.console = console
        self.approval = approval
        self.interactive = interactive
        self.quiet = quiet
        self._mid_line = False
        self._indent = ""
        self._calls: dict[str, dict[str, Any]] = {}
        self._progress: ResearchProgress | None = None

    def start(self, flow: str, prompt: str, options: dict[str, Any] | None = None, *,
              message: HumanMessage | None = None) -> RunOutcome:
        """Create a run and drive it from the user's first message; `options` (environment, max_turns) stay
        with the run, so a resume runs it the same way. `message` (the prompt with attached context, such as
        `@path` excerpts) is what the model gets; the run is titled by the prompt."""
        build_chat_model(self.settings)  # a missing key or extra fails here, before anything is recorded
        run = self.store.runs.create(flow, prompt, self.settings.model, extra=options)
        return self.drive(run, {"messages": [message or HumanMessage(prompt)]})

    def drive(self, run: RunRecord, payload: Any) -> RunOutcome:
        """Stream the run until it finishes, fails, is interrupted or waits for an approval nobody can give."""
        module = flow_module(run.flow)
        graph = module.build_graph(self.store.checkpointer)
        context = module.build_context(self.settings, self.store, run, self.approval)
        try:
            return self._drive(graph, context, run, payload)
        finally:
            if context.environment is not None:
                context.environment.stop()

    def _drive(self, graph: CompiledStateGraph, context: AgentContext | ResearchContext, run: RunRecord,
               payload: Any) -> RunOutcome:
        limits = (context.graph_config() if isinstance(context, ResearchContext)
                  else {"recursion_limit": recursion_limit(context.max_turns)})
        config = {"configurable": {"thread_id": run.id}, **limits}
        outcome = RunOutcome(run.id, "running")
        self._remember_calls(graph.get_state(config))
        while True:
            self.store.runs.set_status(run.id, "running")
            try:
                with self._ctrl_c_stops(run.id):
                    for namespace, mode, data in graph.stream(payload, config, context=context,
                                                              stream_mode=["messages", "updates", "custom"],
                                                              subgraphs=True):
                        self._show(mode, data, outcome, inside_subagent=bool(namespace))
            except KeyboardInterrupt:
                self._end_line()
                return self._finish(graph, config, outcome, "interrupted", "stopped with Ctrl-C")
            except Exception as exc:  # noqa: BLE001 - every failure becomes one line; the run stays resumable
                self._end_line()
                return self._finish(graph, config, outcome, "failed", self._explain(exc))
            self._end_line()
            snapshot = graph.get_state(config)
            if not snapshot.interrupts:
                outcome.hit_turn_limit = bool(isinstance(context, AgentContext)
                                              and snapshot.values.get("turns", 0) >= context.max_turns
                                              and _ends_with_tool_results(snapshot))
                return self._finish(graph, config, outcome, "done", None)
            if not self.interactive:
                return self._finish(graph, config, outcome, "waiting-approval", None)
            payload = Command(resume={i.id: self._ask(i.value) for i in snapshot.interrupts})

    @contextmanager
    def _ctrl_c_stops(self, run_id: str) -> Iterator[None]:
        """Ctrl-C ends the process at once, leaving the run at its last checkpoint, resumable.

        A KeyboardInterrupt would only surface once the node running in LangGraph's worker
        thread finished (a slow model call, a long command); stopping at once is as safe as
        a kill -9, which the checkpoints and the tool ledger are built for.
        """
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def stop(signum: int, frame: object) -> None:
            self._end_line()
            if self._progress is not None:
                self._progress.abandon()
            try:
                set_status_from_another_thread(str(self.store.path), run_id, "interrupted", "stopped with Ctrl-C")
            except sqlite3.Error:
                pass  # a run whose process is gone reads as interrupted anyway
            print(f"interrupted; continue with: helium resume {run_id}", file=sys.stderr, flush=True)
            os._exit(EXIT_INTERRUPTED)

        previous = signal.signal(signal.SIGINT, stop)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    def _finish(self, graph: CompiledStateGraph, config: dict, outcome: RunOutcome, status: RunStatus,
                error: str | None) -> RunOutcome:
        outcome.status, outcome.error = status, error
        if self._progress is not None:
            self._progress.close()
            self._progress = None
        try:
            snapshot = graph.get_state(config)
        except sqlite3.Error:
            snapshot = None
        if snapshot is not None:
            usage = snapshot.values.get("usage") or {}
            outcome.tokens_in = usage.get("input_tokens", 0)
            outcome.tokens_out = usage.get("output_tokens", 0)
            outcome.answer = final_answer(snapshot)
            outcome.result = dict(snapshot.values.get("result") or {})
        outcome.cost = estimate_cost(self.settings.model, outcome.tokens_in, outcome.tokens_out, self.settings.prices)
        run_id = config["configurable"]["thread_id"]
        self.store.runs.set_usage(run_id, outcome.tokens_in, outcome.tokens_out, outcome.cost)
        self.store.runs.set_status(run_id, status, error=error)
        return outcome

    def _explain(self, exc: BaseException) -> str:
        if os.environ.get("HELIUM_DEBUG"):
            traceback.print_exception(exc)
        if isinstance(exc, HeliumError):
            return str(exc)
        if isinstance(exc, sqlite3.Error):
            return str(describe_store_error(exc, self.store.path))
        if isinstance(exc, GraphRecursionError):
            return "the run exceeded its step budget; raise max_turns in config.toml"
        described = describe_model_error(exc, route_model(self.settings), self.settings.max_retries)
        if described is not None:
            return str(described)
        return f"unexpected {type(exc).__name__}: {exc} (set HELIUM_DEBUG=1 for a traceback)"

    # -- rendering -------------------------------------------------------------------------------------------
    def _show(self, mode: str, data: Any, outcome: RunOutcome, *, inside_subagent: bool) -> None:
        """Stream the main agent's tokens; show every agent's tool calls, results and denials (subagents indented)."""
        self._indent = "    " if inside_subagent else ""
        if mode == "custom":  # progress events of a research run
            if not self.quiet and isinstance(data, dict) and "research" in data:
                self._progress = self._progress or ResearchProgress(self.console)
                self._progress.update(data)
            return
        if mode == "messages":
            chunk, meta = data
            if isinstance(chunk, AIMessageChunk) and meta.get("langgraph_node") == "model" and chunk.text \
                    and not inside_subagent:
                if not self.quiet:
                    self.console.file.write(chunk.text)
                    self.console.file.flush()
                    self._mid_line = True
            return
        for node, update in data.items():
            if not isinstance(update, dict):
                continue
            if node == "gate":
                self._show_decisions(update.get("decisions", {}), outcome)
            if "todos" in update:
                self._line("[bold]todo[/]\n" + escape(render_todos(update["todos"])))
            for message in update.get("messages", []):
                if isinstance(message, AIMessage):
                    self._end_line()
                    for call in message.tool_calls:
                        self._calls[call["id"]] = call
                        self._line(f"[cyan]→ {escape(call['name'])}[/] {escape(summarise_args(call['args']))}")
                elif isinstance(message, ToolMessage):
                    self._show_tool_result(message)

    def _show_decisions(self, decisions: dict[str, dict], outcome: RunOutcome) -> None:
        for call_id, decision in decisions.items():
            if decision["approved"]:
                continue
            call = self._calls.get(call_id, {"name": "?", "args": {}})
            outcome.denied.append({"tool": call["name"], "args": call["args"], "reason": decision["reason"],
                                   "decided_by": decision["decided_by"]})
            self._line(f"[red]✗ denied {escape(call['name'])}[/] {escape(summarise_args(call['args']))} "
                       f"[dim]({escape(decision['decided_by'])}: {escape(decision['reason'])})[/]")

    def _remember_calls(self, snapshot: StateSnapshot) -> None:
        """A resumed run's pending calls were shown by an earlier process; name them in denials all the same."""
        for message in snapshot.values.get("messages", [])[-1:]:
            if isinstance(message, AIMessage):
                self._calls.update({call["id"]: call for call in message.tool_calls})

    def _show_tool_result(self, message: ToolMessage) -> None:
        lines = message.text.splitlines() or [""]
        more = f" … ({len(lines)} lines)" if len(lines) > 1 else ""
        style = "red" if message.status == "error" else "dim"
        self._line(f"[{style}]  ← {escape(message.name or 'tool')}: {escape(lines[0][:120])}{more}[/]")

    def _line(self, markup: str) -> None:
        if not self.quiet:
            self._end_line()
            self.console.print(self._indent + markup, highlight=False)

    def _end_line(self) -> None:
        if self._mid_line:
            self.console.file.write("\n")
            self._mid_line = False

    def _ask(self, request: dict[str, Any]) -> dict[str, str]:
        """Ask the user about each pending call: y (once), n, a (always: saved to permissions.toml)."""
        answers = {}
        for call in request.get("calls", []):
            self.console.print(f"[yellow]? {escape(call['tool'])}[/] {escape(summarise_args(call['args'], 400))}"
                               f"  [dim]({escape(call['reason'])})[/]", highlight=False)
            choice = Prompt.ask("  allow?", choices=["y", "n", "a"], default="n", console=self.console)
            answers[call["id"]] = {"y": "yes", "a": "always"}.get(choice, "no")
        return answers


def final_answer(snapshot: StateSnapshot) -> str:
    messages = snapshot.values.get("messages", [])
    if messages and isinstance(messages[-1], AIMessage):
        return messages[-1].text
    return ""


def _ends_with_tool_results(snapshot: StateSnapshot) -> bool:
    messages = snapshot.values.get("messages", [])
    return bool(messages) and isinstance(messages[-1], ToolMessage)


def summarise_args(args: dict[str, Any], width: int = 100) -> str:
    """A call's arguments on one line: the command or path first, long values cut."""
    main = args.get("command", args.get("path"))
    text = str(main) if isinstance(main, str) else ", ".join(f"{k}={v!r}" for k, v in args.items())
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
