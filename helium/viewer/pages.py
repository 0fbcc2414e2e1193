"""What the viewer's pages show, read from the project store through the same functions the CLI's
`runs`, `history`, `show` and `audit` use: runs, a run's checkpoints and state changes, its messages and
tool calls with their decisions, the graph with the run's position, and research and task outputs.

Nothing here writes. Run `extra` keys that look like secrets are never shown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from markdown_it import MarkdownIt

from helium.cli.driver import summarise_args
from helium.cli.session import message_json, thread_config
from helium.config import Settings
from helium.errors import HeliumError
from helium.graphs import CONVERSATION_FLOWS, FORKABLE_FLOWS, flow_module
from helium.graphs.drawing import render
from helium.state.audit import AuditEntry
from helium.state.runs import RunRecord
from helium.state.store import ProjectStore
from helium.viewer.timeline import TIMELINE_LIMIT, Step, TimelineCache

SECRET_NAME = re.compile(r"key|token|secret|passw|auth|credential|cookie|bearer", re.IGNORECASE)
TEXT_LIMIT = 20_000
"""Characters of one tool output, file or value shown on a page; the rest is cut with a note."""
FILE_LIMIT = 200_000
STATUSES = ("running", "waiting-approval", "interrupted", "done", "failed")



def cut(text: str, limit: int = TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+@")
"""The `user:password@` of a URL (a SearXNG address, say), shown as `***@`."""


def shown_extra(extra: dict[str, Any]) -> dict[str, str]:
    """The run's options for display, without anything whose name looks like a secret or a URL's password."""
    return {k: URL_CREDENTIALS.sub("***@", v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))
            for k, v in sorted(extra.items()) if not SECRET_NAME.search(k)}


def reward_of(run: RunRecord) -> float | None:
    value = run.extra.get("reward")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def list_runs(store: ProjectStore, flow: str | None, status: str | None) -> list[RunRecord]:
    runs = store.runs.list(flow=flow or None)
    return [r for r in runs if not status or r.status == status]


def runs_version(store: ProjectStore) -> str:
    """Changes whenever the runs list would: a run added, or any run's status or usage updated."""
    runs = store.runs.list()  # also marks runs whose process died as interrupted
    return f"{len(runs)}|{max((r.updated for r in runs), default=0)}|{sum(r.status == 'running' for r in runs)}"


def flows_in(store: ProjectStore) -> list[str]:
    return sorted({r.flow for r in store.runs.list()})


# -- one run -------------------------------------------------------------------------------------------------
@dataclass
class ToolCallView:
    id: str
    name: str
    args: str
    output: str | None = None
    status: str | None = None
    decision: AuditEntry | None = None


@dataclass
class MessageView:
    role: str
    content: str
    calls: list[ToolCallView] = field(default_factory=list)


@dataclass
class RunView:
    run: RunRecord
    extra: dict[str, str]
    reward: float | None
    steps: list[Step] = field(default_factory=list)
    messages: list[MessageView] = field(default_factory=list)
    audit: list[AuditEntry] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)
    position: tuple[str, ...] = ()
    graph_svg: str | None = None
    graph_text: str | None = None
    can_fork: bool = False
    takes_messages: bool = False
    complete: bool = True
    """`steps` are all the run's checkpoints (else the newest `TIMELINE_LIMIT`)."""
    problem: str | None = None
    research: dict[str, Any] | None = None
    task: dict[str, Any] | None = None
    children: list[RunRecord] = field(default_factory=list)


def run_view(store: ProjectStore, settings: Settings, run_id: str, timeline: TimelineCache, *,
             every_step: bool = False) -> RunView:
    run = store.runs.get(run_id)
    view = RunView(run, shown_extra(run.extra), reward_of(run), audit=store.audit.entries(run.id),
                   can_fork=run.flow in FORKABLE_FLOWS, takes_messages=run.flow in CONVERSATION_FLOWS)
    view.children = [r for r in store.runs.list() if r.parent_id == run.id]
    try:
        graph = flow_module(run.flow).build_graph(store.checkpointer)
    except HeliumError as exc:
        view.problem = f"{exc}: this Helium cannot read the checkpoints of a {run.flow!r} run"
        graph = None
    values: dict[str, Any] = {}
    if graph is not None:
        snapshot = graph.get_state(thread_config(run.id))
        values = snapshot.values
        view.steps, view.complete = timeline.steps(store, graph, run.id, None if every_step else TIMELINE_LIMIT)
        view.messages = _messages(values.get("messages", []), view.audit)
        view.pending = [call for i in snapshot.interrupts if isinstance(i.value, dict)
                        for call in i.value.get("calls", [])]
        view.position = tuple(snapshot.next) or (("__end__",) if view.steps else ("__start__",))
        view.graph_svg, view.graph_text = graph_picture(run.flow, view.position)
    view.research = research_section(settings.workspace, run, values)
    view.task = task_section(settings.workspace, run)
    return view


def run_version(store: ProjectStore, run_id: str) -> str:
    """Changes whenever the run's page would: its status, its last update or its newest checkpoint."""
    run = store.runs.get(run_id)
    saved = store.checkpointer.get_tuple(thread_config(run.id))
    checkpoint = saved.config["configurable"]["checkpoint_id"] if saved else "-"
    return f"{run.status}|{run.updated}|{checkpoint}"


def _messages(messages: list[BaseMessage], audit: list[AuditEntry]) -> list[MessageView]:
    """The transcript, each tool call with its input, its output and the gate's decision on it."""
    decisions = {e.tool_call_id: e for e in audit}
    outputs = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    views = []
    for message in messages:
        if isinstance(message, ToolMessage):
            continue  # shown under the call it answers
        entry = message_json(message)
        view = MessageView({"human": "user", "ai": "assistant"}.get(message.type, message.type),
                           cut(entry["content"]))
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                answer = outputs.get(call["id"])
                view.calls.append(ToolCallView(
                    call["id"], call["name"], json.dumps(call["args"], indent=2, ensure_ascii=False),
                    cut(answer.text) if answer else None, answer.status if answer else None,
                    decisions.get(call["id"])))
        views.append(view)
    return views


@lru_cache(maxsize=64)
def graph_picture(flow: str, position: tuple[str, ...]) -> tuple[str | None, str | None]:
    """(inline SVG, None) drawn by Graphviz with the run's next nodes highlighted; (None, ASCII) without it."""
    graph = flow_module(flow).build_graph()
    try:
        svg = render(graph, "svg", highlight=position)
    except HeliumError:
        where = ", ".join(position)
        return None, f"{render(graph, 'ascii')}\nthe run is at: {where}"
    text = svg.decode() if isinstance(svg, bytes) else svg
    return text[text.find("<svg"):], None


# -- research and task runs ----------------------------------------------------------------------------------
_MARKDOWN = MarkdownIt("commonmark", {"html": False})


def _inside(workspace: Path, value: Any) -> Path | None:
    """A file named by a run, if it lies inside the workspace (the viewer serves nothing outside it)."""
    if not isinstance(value, str) or not value:
        return None
    path = Path(value)
    path = (path if path.is_absolute() else workspace / path).resolve()
    return path if path.is_relative_to(workspace.resolve()) and path.is_file() else None


def _read(path: Path, limit: int = FILE_LIMIT) -> str:
    with path.open(encoding="utf-8", errors="replace") as handle:
        return cut(handle.read(limit + 1), limit)


def research_section(workspace: Path, run: RunRecord, values: dict[str, Any]) -> dict[str, Any] | None:
    """The report (rendered Markdown, raw HTML escaped) and the sources of a research run."""
    report_name = values.get("report_path") or run.extra.get("report_path")
    sources_name = values.get("sources_path") or run.extra.get("sources_path")
    if run.flow != "research" and not report_name:
        return None
    section: dict[str, Any] = {"report_path": report_name, "sources_path": sources_name}
    report = _inside(workspace, report_name)
    if report:
        section["report_html"] = _MARKDOWN.render(_read(report))
    sources = _inside(workspace, sources_name)
    if sources:
        text = _read(sources)
        section["sources"], section["sources_text"] = _records(text), text
    return section


def _records(text: str) -> list[dict[str, str]] | None:
    """A JSON list of objects (or an object holding one), or JSON lines, as table rows; else None."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError:
            return None
    if isinstance(data, dict):  # the research flow's sources.json: {"question": …, "sources": [...], …}
        data = data.get("sources", next((v for v in data.values() if isinstance(v, list)), None))
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        return None
    return [{k: _text(v) for k, v in item.items() if not SECRET_NAME.search(k)} for item in data]


def task_section(workspace: Path, run: RunRecord) -> dict[str, Any] | None:
    """A task run's verifier output, reward, result and trajectory, from the run's output folder."""
    if run.flow != "task" and "output_dir" not in run.extra:
        return None
    section: dict[str, Any] = {"task": run.extra.get("task"), "reward": reward_of(run), "error": run.extra.get("error"),
                               "output_dir": run.extra.get("output_dir"), "verifier": [], "trajectory": None}
    name = run.extra.get("output_dir")
    if not isinstance(name, str) or not name:
        return section
    folder = Path(name) if Path(name).is_absolute() else workspace / name
    if not folder.is_dir():
        section["missing"] = True
        return section
    verifier = folder / "verifier"
    if verifier.is_dir():
        section["verifier"] = [(p.relative_to(verifier).as_posix(), _read(p, TEXT_LIMIT))
                               for p in sorted(verifier.rglob("*")) if p.is_file()]
    result = folder / "result.json"
    if result.is_file():
        section["result"] = _read(result, TEXT_LIMIT)
    trajectory = folder / "agent" / "trajectory.json"
    if trajectory.is_file():
        section["trajectory"] = trajectory_steps(_read(trajectory))
    return section


def trajectory_steps(text: str) -> list[dict[str, str]] | str:
    """An ATIF trajectory's steps (source, message, tool calls, observations); the raw text if it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text
    steps = data.get("steps") if isinstance(data, dict) else data
    if not isinstance(steps, list):
        return text
    rows = []
    for number, step in enumerate(steps, 1):
        if not isinstance(step, dict):
            continue
        calls = step.get("tool_calls") or []
        results = (step.get("observation") or {}).get("results") or [] if isinstance(step.get("observation"), dict) \
            else []
        rows.append({
            "id": str(step.get("step_id", number)),
            "source": str(step.get("source", "")),
            "message": cut(_text(step.get("message")), 4_000),
            "calls": "\n".join(f"{c.get('function_name') or c.get('name')} {_arguments(c.get('arguments'))}"
                               for c in calls if isinstance(c, dict)),
            "observations": cut("\n".join(_text(r.get("content")) for r in results if isinstance(r, dict)), 4_000),
        })
    return rows


def _arguments(value: Any) -> str:
    return summarise_args(value, 300) if isinstance(value, dict) else cut(_text(value), 300)


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
