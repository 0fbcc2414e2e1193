"""Rich renderings of runs, checkpoints, transcripts and audit logs."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from helium.cli.session import format_time
from helium.memory.recall import describe_recalled
from helium.skills import Skill
from helium.state.audit import AuditEntry
from helium.state.runs import RunRecord

STATUS_STYLE = {"done": "green", "failed": "red", "running": "cyan", "waiting-approval": "yellow",
                "interrupted": "magenta"}


def _console() -> Console:
    return Console(highlight=False)


def print_runs(records: list[RunRecord]) -> None:
    if not records:
        _console().print("no runs yet in this project; start one with: helium run chat \"hello\"")
        return
    table = Table(box=None)
    table.add_column("id", no_wrap=True, min_width=12)
    for column in ("flow", "title", "status", "model", "tokens in/out", "cost", "updated"):
        table.add_column(column)
    for r in records:
        cost = "-" if r.cost is None else f"${r.cost:.4f}"
        style = STATUS_STYLE.get(r.status, "")
        table.add_row(r.id, r.flow, escape(r.title), f"[{style}]{r.status}[/]", escape(r.model),
                      f"{r.tokens_in:,}/{r.tokens_out:,}", cost, format_time(r.updated))
    _console().print(table)


def print_history(steps: list[dict[str, Any]]) -> None:
    table = Table(box=None)
    for column in ("step", "node", "time"):
        table.add_column(column)
    table.add_column("checkpoint", no_wrap=True, min_width=36)
    table.add_column("summary")
    for s in steps:
        table.add_row(str(s["step"]), s["node"], format_time(s["time"]), s["checkpoint_id"], escape(s["summary"]))
    _console().print(table)


def print_transcript(run: RunRecord, messages: list[dict[str, Any]], recalled: dict[str, Any] | None = None) -> None:
    console = _console()
    console.print(f"[bold]run {run.id}[/] · {run.flow} · {run.status} · {escape(run.model)} · "
                  f"{run.tokens_in:,} in / {run.tokens_out:,} out tokens")
    if run.parent_id:
        console.print(f"[dim]forked from run {run.parent_id} at checkpoint {run.parent_checkpoint}[/]")
    if run.error:
        console.print(f"[red]error: {escape(run.error)}[/]")
    for line in describe_recalled(recalled):  # type: ignore[arg-type]
        console.print(f"[magenta]{escape(line)}[/]")  # what memory and contextual skills added to the prompt
    for m in messages:
        role = m["role"]
        if role == "human":
            console.print(f"\n[bold blue]user[/]\n{escape(m['content'])}")
        elif role == "ai":
            if m["content"]:
                console.print(f"\n[bold green]assistant[/]\n{escape(m['content'])}")
            for call in m.get("tool_calls", []):
                console.print(f"[cyan]→ {escape(call['name'])}[/] "
                              f"{escape(json.dumps(call['args'], ensure_ascii=False))}")
        elif role == "tool":
            style = "red" if m.get("status") == "error" else "dim"
            console.print(f"[{style}]← {escape(m.get('name') or 'tool')}:[/]\n[{style}]{escape(m['content'])}[/]")
        else:
            console.print(f"\n[bold]{escape(role)}[/]\n{escape(m['content'])}")


def print_audit(run: RunRecord, entries: list[AuditEntry]) -> None:
    console = _console()
    if not entries:
        console.print(f"run {run.id} made no tool calls that needed a decision")
        return
    table = Table(box=None)
    table.add_column("time")
    table.add_column("checkpoint", no_wrap=True, min_width=36)
    for column in ("tool", "arguments", "decision", "decided by", "reason"):
        table.add_column(column)
    for e in entries:
        style = "green" if e.decision == "approved" else "red"
        table.add_row(format_time(e.created), e.checkpoint_id or "-", e.tool,
                      escape(json.dumps(e.arguments, ensure_ascii=False)[:80]), f"[{style}]{e.decision}[/]",
                      e.decided_by, escape(e.reason))
    console.print(table)


def skill_json(skill: Skill) -> dict[str, Any]:
    return {"name": skill.name, "type": skill.type, "trigger": skill.trigger, "description": skill.description,
            "allowed_tools": list(skill.allowed_tools), "path": str(skill.path)}


def print_skills(skills: list[Skill]) -> None:
    if not skills:
        _console().print("no skills yet: create one with `helium skills new NAME`")
        return
    table = Table(box=None)
    for column in ("name", "type", "trigger", "allowed tools", "description", "file"):
        table.add_column(column)
    for s in skills:
        table.add_row(s.name, s.type, s.trigger, ", ".join(s.allowed_tools) or "all", escape(s.description),
                      str(s.path))
    _console().print(table)
