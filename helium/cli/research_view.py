"""The live display of a research run: stage, queries, pages fetched N/M, failures and warnings.

On a terminal it is a rich `Live` panel redrawn as events arrive; elsewhere (pipes, logs, tests) it
prints one line per notable event.  When the report is written, the display ends and the report is
printed.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.table import Table
from rich.text import Text

STAGES = {"plan": "planning", "search": "searching", "merge": "merging and scoring sources",
          "fetch": "fetching pages", "extract": "extracting text",
          "index": "indexing chunks", "evidence": "selecting evidence", "reflect": "reflecting on coverage",
          "synthesise": "writing the report", "verify": "verifying citations", "write": "saving the report"}
SHOWN_FAILURES = 6


class ResearchProgress:
    def __init__(self, console: Console) -> None:
        self.console = console
        self.stage = "starting"
        self.round = 1
        self.queries: dict[str, dict[str, str]] = {}
        """query -> provider -> status text, this round."""
        self.fetch_total = 0
        self.fetched = 0
        self.failures: list[tuple[str, str]] = []
        self.warnings: list[str] = []
        self.chunks = 0
        self._live: Live | None = None
        if console.is_terminal:
            self._live = Live(self._render(), console=console, refresh_per_second=8, transient=False)
            self._live.start()

    def update(self, event: dict[str, Any]) -> None:
        kind = event["research"]
        line = getattr(self, f"_on_{kind}", lambda e: None)(event)
        if self._live is not None:
            if kind == "warning":  # printed above the live panel, so it stays on screen
                self.console.print(line, highlight=False)
            self._live.update(self._render())
        elif line:
            self.console.print(line, highlight=False)
        if kind == "done":
            self.close()
            self.console.print(event["report"], markup=False, highlight=False)

    def abandon(self) -> None:
        """The process is about to exit at once (Ctrl-C): give the terminal its cursor back."""
        if self._live is not None:
            self.console.show_cursor(True)

    def close(self) -> None:
        if self._live is not None:
            self._live.update(self._render())
            self._live.stop()
            self._live = None

    # -- events (each returns the line printed when not on a terminal) -----------------------------------------
    def _on_stage(self, event: dict[str, Any]) -> str | None:
        self.stage = event["stage"]
        self.round = event.get("round", self.round)
        return f"[bold]research[/] · {STAGES.get(self.stage, self.stage)}" if self.stage in STAGES else None

    def _on_plan(self, event: dict[str, Any]) -> str:
        self.queries = {q: {} for q in event["queries"]}
        return (f"[bold]research[/] · {len(event['sub_questions'])} sub-questions, {len(event['queries'])} "
                f"queries: {escape('; '.join(event['queries']))}")

    def _on_searched(self, event: dict[str, Any]) -> str | None:
        self.stage = "search"
        status = f"failed: {event['error']}" if event["error"] else f"{event['hits']} hits"
        self.queries.setdefault(event["query"], {})[event["provider"]] = status
        if event["error"]:
            return f"[yellow]  search {escape(event['provider'])} {escape(repr(event['query']))} {escape(status)}[/]"
        return f"  search {escape(event['provider'])} {escape(repr(event['query']))}: {status}"

    def _on_selected(self, event: dict[str, Any]) -> str:
        self.stage = "fetch"
        self.fetch_total, self.fetched = event["total"], 0
        return f"[bold]research[/] · fetching {event['total']} pages (of {event['candidates']} candidates)"

    def _on_fetched(self, event: dict[str, Any]) -> str:
        self.stage, self.fetch_total = "fetch", event["total"]
        self.fetched += 1
        note = " (already fetched)" if event.get("cached") else ""
        if not event["ok"]:
            self.failures.append((event["url"], event["reason"]))
            return (f"[red]  pages fetched {self.fetched}/{self.fetch_total}: skipped {escape(event['url'])}: "
                    f"{escape(event['reason'])}[/]")
        return f"  pages fetched {self.fetched}/{self.fetch_total}: {escape(event['url'])}{note}"

    def _on_skipped(self, event: dict[str, Any]) -> str:
        self.failures.append((event["url"], event["reason"]))
        return f"[red]  skipped {escape(event['url'])}: {escape(event['reason'])}[/]"

    def _on_indexed(self, event: dict[str, Any]) -> str:
        self.chunks += event["chunks"]
        return f"  indexed {event['chunks']} chunks from {event['pages']} pages"

    def _on_reflected(self, event: dict[str, Any]) -> str:
        if event["follow_ups"] and not event["enough"]:
            self.queries = {q: {} for q in event["follow_ups"]}
            return f"[bold]research[/] · another round: {escape('; '.join(event['follow_ups']))}"
        return "[bold]research[/] · the evidence covers the question"

    def _on_warning(self, event: dict[str, Any]) -> str:
        self.warnings.append(event["text"])
        return f"[yellow]warning: {escape(event['text'])}[/]"

    def _on_verified(self, event: dict[str, Any]) -> str:
        return f"  {event['verified']} of {event['total']} citations verified"

    def _on_done(self, event: dict[str, Any]) -> str:
        self.stage = "done"
        return f"[bold]research[/] · report written to {escape(event['report_path'])}"

    # -- the live panel ----------------------------------------------------------------------------------------
    def _render(self) -> Group:
        header = Text.from_markup(f"[bold]research[/] · round {self.round} · "
                                  f"{escape(STAGES.get(self.stage, self.stage))}")
        queries = Table(box=None, show_header=False, padding=(0, 1))
        for query, providers in list(self.queries.items())[:8]:
            status = ", ".join(f"{p}: {s}" for p, s in providers.items()) or "waiting"
            queries.add_row(Text(query, overflow="ellipsis", no_wrap=True), Text(status, style="dim"))
        pages = Text(f"pages fetched {self.fetched}/{self.fetch_total} · failures {len(self.failures)} · "
                     f"chunks {self.chunks}")
        failures = [Text(f"  ✗ {url}: {reason}", style="red", overflow="ellipsis", no_wrap=True)
                    for url, reason in self.failures[-SHOWN_FAILURES:]]
        return Group(header, queries, pages, *failures)
