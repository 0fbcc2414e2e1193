"""The bodies of `helium rag add|ask|list|remove`, and `@path` mentions for chat messages."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from langchain_core.messages import HumanMessage
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn
from rich.table import Table

from helium.cli.driver import EXIT_INTERRUPTED, RunDriver
from helium.cli.session import format_time, open_driver, report, warn
from helium.config import Settings
from helium.errors import HeliumError
from helium.graphs.rag import FLOW as RAG_FLOW
from helium.rag.catalog import FileCatalog
from helium.rag.citations import find_citations, parse_citation
from helium.rag.index import AddReport, open_rag_index
from helium.rag.index import Progress as ProgressCallback
from helium.rag.mentions import attach_mentions
from helium.state.store import ProjectStore

EXIT_OK, EXIT_MISSING = 0, 1


def add(settings: Settings, paths: list[str], json_output: bool) -> int:
    """Index files, directories and globs; exit 1 if any of them named nothing (the rest is still indexed)."""
    with ProjectStore(settings.db_path) as store:
        index = open_rag_index(settings, store)
        try:
            with _progress(json_output, "indexing") as progress:
                report = index.add(paths, progress)
        except KeyboardInterrupt:
            return _stopped("the files indexed so far are kept: run the same command to go on")
    if json_output:
        print(json.dumps(report.to_json(), indent=2))
    else:
        _print_report(report)
    for spec in report.missing:
        warn([f"{spec}: no such file, directory or glob match"])
    return EXIT_MISSING if report.missing else EXIT_OK


def ask(settings: Settings, question: str, k: int, json_output: bool) -> int:
    """Answer from the k nearest passages as a run of the rag flow (streamed); indexed files that changed are
    indexed again first. Exit codes as for `run chat`."""
    with open_driver(settings, json_output=json_output) as driver:
        index = open_rag_index(settings, driver.store)
        try:
            with _progress(json_output, "checking indexed files") as progress:
                index.refresh(progress)
        except KeyboardInterrupt:
            return _stopped("no question was asked")
        if not index.files():
            raise HeliumError("nothing is indexed yet: add files first with `helium rag add PATHS`")
        outcome = driver.start(RAG_FLOW, question, {"k": k})
    result = outcome.result
    if result and not json_output:
        _print_sources(result["sources"])
    warn([f"invalid citation {c['label']}: {c['reason']}" for c in result.get("citations", []) if not c["valid"]])
    return report(outcome, json_output)


def list_files(settings: Settings, json_output: bool) -> None:
    """The indexed files as a table (or JSON): kind, chunks, extent, when."""
    with ProjectStore(settings.db_path) as store:
        files = open_rag_index(settings, store).files()
    if json_output:
        print(json.dumps([f.to_json() for f in files], indent=2))
        return
    console = Console(highlight=False)
    if not files:
        console.print("nothing is indexed; add files with: helium rag add PATHS", markup=False)
        return
    table = Table(title=f"{len(files)} indexed files, {sum(f.chunks for f in files)} chunks")
    for column in ("file", "kind", "chunks", "length", "indexed"):
        table.add_column(column, justify="right" if column == "chunks" else "left")
    for f in files:
        table.add_row(escape(f.path), f.kind, str(f.chunks), f"{f.extent} {f.unit}s",
                      format_time(f.indexed_at))
    console.print(table)


def show(settings: Settings, citation: str, json_output: bool) -> None:
    """Print what a citation points to, numbered (for HTML and PDF files, the extracted text it counts in)."""
    with ProjectStore(settings.db_path) as store:
        index = open_rag_index(settings, store)
        cited = parse_citation(citation, index.catalog)
        rows = index.cited_text(cited.path, cited.start, cited.end)
    if json_output:
        print(json.dumps({**cited.to_json(), "text": [{"number": n, "text": t} for n, t in rows]}, indent=2))
    elif cited.unit == "page":
        print("\n\n".join(f"--- page {n} ---\n{text}" for n, text in rows))
    else:
        print("\n".join(f"{n:6}\t{text}" for n, text in rows))


def remove(settings: Settings, paths: list[str], json_output: bool) -> int:
    """Drop files from the index; exit 1 if a path matched nothing indexed (the rest is still removed)."""
    with ProjectStore(settings.db_path) as store:
        removed, unmatched = open_rag_index(settings, store).remove(paths)
    if json_output:
        print(json.dumps({"removed": removed, "unmatched": unmatched}, indent=2))
    else:
        Console(highlight=False).print(f"removed {len(removed)} file(s) from the index"
                                       + "".join(f"\n  {escape(path)}" for path in removed))
    warn([f"{spec}: not in the index (see helium rag list)" for spec in unmatched])
    return EXIT_MISSING if unmatched else EXIT_OK


def chat_message(driver: RunDriver, text: str) -> HumanMessage:
    """The user's message with the files it mentions (`@path`) indexed and their relevant chunks attached."""
    if "@" not in text:
        return HumanMessage(text)
    err = Console(stderr=True, highlight=False)
    try:
        with err.status("indexing the mentioned files…") if driver.interactive else nullcontext():
            context = attach_mentions(open_rag_index(driver.settings, driver.store), text)
    except KeyboardInterrupt:
        raise HeliumError("stopped indexing the mentioned files (Ctrl-C); the message was not sent") from None
    warn(context.warnings)
    if context.passages:
        indexed = len(context.report.with_status("indexed"))
        err.print(f"[dim]context: {len(context.passages)} excerpt(s) from {', '.join(map(escape, context.files))}"
                  f"{f' ({indexed} file(s) indexed)' if indexed else ''}[/]")
    return context.message


def _stopped(what: str) -> int:
    print(f"stopped with Ctrl-C; {what}", file=sys.stderr)
    return EXIT_INTERRUPTED


def check_citations(driver: RunDriver, answer: str) -> None:
    """Warn about a chat answer's citations of indexed files that point outside them (the answer stands as
    streamed; citations of files that are not indexed may be plain mentions, so they pass)."""
    catalog = FileCatalog(driver.store.conn, driver.store.checkpointer.lock)
    warn([f"invalid citation {c.label}: {c.reason}" for c in find_citations(answer, catalog)
          if not c.valid and catalog.get(c.path) is not None])


def _print_report(report: AddReport) -> None:
    console = Console(highlight=False)
    indexed, unchanged = report.with_status("indexed"), report.with_status("unchanged")
    skipped, removed = report.with_status("skipped"), report.with_status("removed")
    console.print(f"indexed {len(indexed)} file(s) ({sum(o.chunks for o in indexed)} chunks), "
                  f"{len(unchanged)} unchanged, {len(skipped)} skipped, {len(removed)} removed", markup=False)
    if not (indexed or skipped or removed):
        return
    table = Table(show_header=True)
    for column in ("file", "status", "chunks / reason"):
        table.add_column(column)
    for outcome in [*indexed, *skipped, *removed]:
        detail = str(outcome.chunks) if outcome.status == "indexed" else outcome.reason
        table.add_row(escape(outcome.path), outcome.status, escape(detail))
    console.print(table)


def _print_sources(sources: list[dict[str, Any]]) -> None:
    console = Console(highlight=False, soft_wrap=True)
    console.print("\n[bold]Sources[/]")
    for number, source in enumerate(sources, 1):
        section = f" ({escape(source['section'])})" if source["section"] else ""
        score = f" [dim]{source['score']:.2f}[/]" if source.get("score") is not None else ""
        console.print(f"  [{number}] {escape(source['label'])}{section}{score}")


@contextmanager
def _progress(quiet: bool, verb: str) -> Iterator[ProgressCallback | None]:
    """A progress bar on stderr while files are read and embedded (none for --json)."""
    if quiet:
        yield None
        return
    columns = (SpinnerColumn(), TextColumn(f"{verb} [progress.description]{{task.description}}"), BarColumn(),
               MofNCompleteColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("", total=None)

        def update(path: str, done: int, total: int) -> None:
            bar.update(task, description=escape(path), completed=done, total=total)

        yield update
