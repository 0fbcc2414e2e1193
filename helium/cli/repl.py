"""The interactive chat: one conversation is one run; slash commands manage runs.

On a terminal it uses prompt_toolkit (history in .helium/repl_history, Esc+Enter or
Alt+Enter for a new line); with piped input it reads one message per line, so it
can be scripted and tested.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.markup import escape

from helium.cli import views
from helium.cli.driver import RunDriver
from helium.cli.memory import save_session_summaries
from helium.cli.rag import chat_message, check_citations
from helium.cli.research import start_research
from helium.cli.session import approval_mode, open_driver, report, run_skill, thread_config
from helium.config import Settings
from helium.errors import HeliumError
from helium.graphs import flow_module
from helium.skills import load_skills
from helium.state.runs import RunRecord

HELP = """\
/help         this help
/runs         the latest runs in this project
/resume ID    continue the conversation of run ID
/new          start a new conversation
/exit         leave (Ctrl-D works too)
/research Q   research question Q on the web: a cited report, in a run of its own
/SKILL ARGS   run a slash skill (see `helium skills list`) in a run of its own
@path         in a message: index that file, directory or glob and give the model its relevant parts
Enter sends. Esc then Enter (or Alt+Enter) starts a new line; so does a line ending in a backslash."""


def run_repl(settings: Settings, resume_id: str | None) -> int:
    _, terminal = approval_mode(settings)
    with open_driver(settings) as driver:
        console = driver.console
        current = driver.store.runs.get(resume_id) if resume_id else None
        read = _terminal_reader(settings) if terminal else _piped_reader
        console.print(f"[bold]helium[/] · {escape(settings.model)} · approvals: {driver.approval} · /help for help")
        if current:
            console.print(f"[dim]continuing run {current.id}: {escape(current.title)}[/]")
        conversations: list[str] = []  # the runs this session talked in: summarised into memory at its end
        while True:
            try:
                text = read()
            except EOFError:
                break
            except KeyboardInterrupt:
                continue
            text = text.strip()
            if not text:
                continue
            if text.startswith("/"):
                command, _, argument = text.partition(" ")
                if command in ("/exit", "/quit"):
                    break
                try:
                    current = _slash_command(driver, command, argument.strip(), current)
                except HeliumError as exc:
                    console.print(f"[red]error: {escape(str(exc))}[/]")
                continue
            try:
                current = _send(driver, current, text)
                conversations.append(current.id)
            except HeliumError as exc:
                console.print(f"[red]error: {escape(str(exc))}[/]")
        save_session_summaries(driver, conversations)
    return 0


def _send(driver: RunDriver, current: RunRecord | None, text: str) -> RunRecord:
    """A message starts a run, or continues the current one (finishing any pending step first)."""
    message = chat_message(driver, text)  # files mentioned with @path are indexed and attached
    if current is None:
        outcome = driver.start("chat", text, message=message)
    else:
        graph = flow_module(current.flow).build_graph(driver.store.checkpointer)
        if graph.get_state(thread_config(current.id)).next:
            driver.drive(current, None)
        outcome = driver.drive(current, {"messages": [message]})
    check_citations(driver, outcome.answer)
    report(outcome, json_output=False)
    return driver.store.runs.get(outcome.run_id)


def _slash_command(driver: RunDriver, command: str, argument: str, current: RunRecord | None) -> RunRecord | None:
    if command == "/help":
        driver.console.print(HELP, markup=False)
    elif command == "/runs":
        views.print_runs(driver.store.runs.list(limit=15))
    elif command == "/resume":
        if not argument:
            raise HeliumError("usage: /resume RUN_ID (see /runs)")
        current = driver.store.runs.get(argument)
        driver.console.print(f"[dim]continuing run {current.id}: {escape(current.title)}[/]")
    elif command == "/new":
        driver.console.print("[dim]new conversation[/]")
        return None
    elif command == "/research":
        report(start_research(driver, argument), json_output=False)
    elif load_skills(driver.settings.workspace).by_trigger(command):
        report(run_skill(driver, command, argument), json_output=False)
    else:
        raise HeliumError(f"unknown command {command}; /help lists them")
    return current


def _piped_reader() -> str:
    line = input()
    while line.endswith("\\"):
        line = line[:-1] + "\n" + input()
    return line


def _terminal_reader(settings: Settings) -> Callable[[], str]:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.key_binding import KeyBindings

    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    @bindings.add("escape", "c-j")  # the same keys typed ahead, while the terminal was not yet raw
    def _newline(event) -> None:  # type: ignore[no-untyped-def]
        event.current_buffer.insert_text("\n")

    settings.project_dir.mkdir(parents=True, exist_ok=True)
    session: PromptSession[str] = PromptSession(history=FileHistory(str(settings.project_dir / "repl_history")),
                                                key_bindings=bindings)

    def read() -> str:
        line = session.prompt("› ")
        while line.endswith("\\"):
            line = line[:-1] + "\n" + session.prompt("… ")
        return line

    return read
