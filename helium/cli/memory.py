"""`helium memory …` and the summaries saved when a chat session ends."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from helium.cli.driver import RunDriver
from helium.cli.session import format_time, transcript
from helium.config import Settings
from helium.errors import HeliumError
from helium.memory import MemoryStore, open_memory
from helium.memory.store import dumps_records, export_records
from helium.memory.summaries import has_exchange, summarise
from helium.models import build_chat_model, describe_model_error, route_model
from helium.state.store import ProjectStore

SUMMARISED_FLOWS = ("chat",)


@contextmanager
def opened_memory(settings: Settings) -> Iterator[MemoryStore]:
    with ProjectStore(settings.db_path) as store:
        yield open_memory(settings, store)


def save_session_summaries(driver: RunDriver, run_ids: Iterable[str]) -> None:
    """Summarise each chat run of a session that ended (one model call each) and store it with the run.
    A failure is one warning line: the session's work is already saved."""
    settings = driver.settings
    if not settings.memory:
        return
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    memory = open_memory(settings, driver.store)
    for run_id in dict.fromkeys(run_ids):
        run, messages = transcript(driver.store, run_id)
        if run.flow not in SUMMARISED_FLOWS or not has_exchange(messages):
            continue
        try:
            with err.status(f"saving a summary of run {run.id} to memory…") if driver.interactive else nullcontext():
                text = summarise(build_chat_model(settings), messages, (settings.api_key or "",))
        except Exception as exc:  # noqa: BLE001 - a summary is a bonus: say why it is missing, never fail the run
            described = describe_model_error(exc, route_model(settings), settings.max_retries)
            err.print(f"warning: memory: no summary of run {run.id} was saved: {described or exc}", markup=False)
            continue
        memory.save_summary(run.id, run.flow, run.title, text)
        if not driver.quiet:
            err.print(f"[dim]memory: saved a summary of run {run.id} (helium memory list)[/]")


def list_memory(settings: Settings, *, json_output: bool, limit: int) -> None:
    with opened_memory(settings) as memory:
        facts, summaries = memory.facts(limit=limit), memory.summaries(limit=limit)
    if json_output:
        print(json.dumps({"facts": [f.to_json() for f in facts], "summaries": [s.to_json() for s in summaries]},
                         indent=2, ensure_ascii=False))
        return
    console = Console(highlight=False)
    if not facts and not summaries:
        console.print("nothing remembered yet: models remember facts with the remember tool, and chat sessions "
                      "leave a summary when they end")
        return
    if facts:
        table = Table(title="facts", box=None, title_justify="left")
        for column in ("id", "saved", "fact", "relations", "run"):
            table.add_column(column)
        for f in facts:
            table.add_row(str(f.id), format_time(f.created), escape(f.text),
                          escape("; ".join(str(t) for t in f.triples) or "-"), f.run_id or "-")
        console.print(table)
    if summaries:
        table = Table(title="conversation summaries", box=None, title_justify="left")
        for column in ("run", "saved", "title", "summary"):
            table.add_column(column)
        for s in summaries:
            table.add_row(s.run_id, format_time(s.created), escape(s.title), escape(s.text))
        console.print(table)


def search_memory(settings: Settings, query: str, *, json_output: bool, limit: int) -> None:
    err = Console(stderr=True, highlight=False)
    with opened_memory(settings) as memory:
        with nullcontext() if json_output else err.status("searching memory (the embedding model loads first)…"):
            hits = memory.search(query, k=limit)
        triples = memory.triples_about(query)
        summaries = memory.search_summaries(query, limit=limit)
    if json_output:
        print(json.dumps({
            "query": query,
            "facts": [{**h.fact.to_json(), "matched": h.matched, "similarity": h.similarity} for h in hits],
            "triples": [{"subject": t.subject, "predicate": t.predicate, "object": t.object, "fact_id": t.fact_id}
                        for t in triples],
            "summaries": [s.to_json() for s in summaries],
        }, indent=2, ensure_ascii=False))
        return
    console = Console(highlight=False)
    if not (hits or triples or summaries):
        console.print(f"nothing remembered matches {query!r}", markup=False)
        return
    if hits:
        table = Table(title="facts", box=None, title_justify="left")
        for column in ("id", "fact", "matched", "similarity"):
            table.add_column(column)
        for h in hits:
            table.add_row(str(h.fact.id), escape(h.fact.text), h.matched,
                          "-" if h.similarity is None else f"{h.similarity:.2f}")
        console.print(table)
    if triples:
        table = Table(title="relations", box=None, title_justify="left")
        for column in ("subject", "predicate", "object", "fact"):
            table.add_column(column)
        for t in triples:
            table.add_row(escape(t.subject), escape(t.predicate), escape(t.object), str(t.fact_id))
        console.print(table)
    for s in summaries:
        console.print(f"[bold]run {s.run_id}[/] ({format_time(s.created)}): {escape(s.text)}")


def forget_memory(settings: Settings, memory_id: str) -> str:
    """Forget fact ID (a number), or the summary of a run (`summary:RUN_ID`); returns what was forgotten."""
    with opened_memory(settings) as memory:
        if memory_id.startswith("summary:"):
            summary = memory.forget_summary(memory_id.removeprefix("summary:"))
            return f"forgot the summary of run {summary.run_id}"
        if not memory_id.isdigit():
            raise HeliumError(f"{memory_id!r} is not a memory id: give a fact's number or summary:RUN_ID "
                              "(see `helium memory list`)")
        fact = memory.forget(int(memory_id))
        return f"forgot fact {fact.id}: {fact.text}"


def export_memory(settings: Settings, *, json_output: bool, output: Path | None) -> None:
    with opened_memory(settings) as memory:
        records = export_records(memory)
    text = dumps_records(records, as_json=json_output)
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise HeliumError(f"cannot write {output}: {exc.strerror or exc}") from None
    print(f"wrote {len(records)} record(s) to {output}", file=sys.stderr)

