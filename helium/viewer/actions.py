"""The viewer's actions: answer a run's pending approvals, or fork it from a step, then continue the run
on a thread of the viewer process while its page follows it live.

Both go through the CLI's own code: the run driver (`RunDriver.drive` with `Command(resume=…)`, as
`helium resume` on a terminal answers) and `start_fork` (what `helium fork` does before driving).
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Callable

from langgraph.types import Command
from rich.console import Console

from helium.cli.driver import RunDriver
from helium.cli.session import start_fork, thread_config
from helium.config import Settings
from helium.errors import HeliumError
from helium.graphs import flow_module
from helium.models import build_chat_model
from helium.nodes.permissions import ALWAYS, APPROVE, DENY
from helium.state.store import ProjectStore

ANSWERS = (APPROVE, DENY, ALWAYS)


class BackgroundRuns:
    """The runs this viewer process is driving, one thread each; a run is never driven twice at once."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._threads: dict[str, threading.Thread] = {}

    def active(self, run_id: str) -> bool:
        thread = self._threads.get(run_id)
        return thread is not None and thread.is_alive()

    def answer(self, run_id: str, answers: dict[str, str], default: str = DENY) -> str:
        """Resume a run waiting for approval with `answers` (tool-call id -> yes/no/always; a call left out
        gets `default`), as the terminal prompt would. Returns the run's id."""
        bad = sorted(a for a in [*answers.values(), default] if a not in ANSWERS)
        if bad:
            raise HeliumError(f"unknown answer {bad[0]!r}: use one of {', '.join(ANSWERS)}")
        self._check_model()
        store = ProjectStore(self.settings.db_path)
        try:
            with self._lock:
                run = store.runs.get(run_id)
                self._check_idle(run.id, run.status)
                snapshot = flow_module(run.flow).build_graph(store.checkpointer).get_state(thread_config(run.id))
                if not snapshot.interrupts:
                    raise HeliumError(f"run {run.id} is not waiting for an approval")
                resume = {i.id: {c["id"]: answers.get(c["id"], default) for c in i.value.get("calls", [])}
                          for i in snapshot.interrupts if isinstance(i.value, dict)}
                if not resume:
                    raise HeliumError(f"run {run.id} waits for something this viewer cannot answer")
                store.runs.set_status(run.id, "running")
                self._start(run.id, store, lambda driver: driver.drive(run, Command(resume=resume)))
        except BaseException:
            store.close()
            raise
        return run.id

    def fork(self, run_id: str, at: str, message: str | None) -> str:
        """Start a new run from checkpoint `at` of `run_id` (with `message` put in, if given), as `helium fork`
        does, and drive it in the background. Returns the new run's id."""
        self._check_model()
        store = ProjectStore(self.settings.db_path)
        try:
            with self._lock:
                driver = self._driver(store)
                child = start_fork(driver, run_id, at, message or None)
                self._start(child.id, store, lambda d: d.drive(child, None), driver)
        except BaseException:
            store.close()
            raise
        return child.id

    def _check_model(self) -> None:
        build_chat_model(self.settings)  # a missing key or provider extra is reported before anything changes

    def _check_idle(self, run_id: str, status: str) -> None:
        if self.active(run_id) or status == "running":
            raise HeliumError(f"run {run_id} is running; wait for it to stop first")

    def _driver(self, store: ProjectStore) -> RunDriver:
        """The CLI's driver, quiet, never asking: a further approval leaves the run waiting for this page."""
        console = Console(file=io.StringIO(), highlight=False)
        return RunDriver(self.settings, store, console, approval=self.settings.approve or "ask",
                         interactive=False, quiet=True)

    def _start(self, run_id: str, store: ProjectStore, work: Callable[[RunDriver], object],
               driver: RunDriver | None = None) -> None:
        driver = driver or self._driver(store)

        def run() -> None:
            try:
                work(driver)
            except Exception as exc:  # noqa: BLE001 - the driver records run failures; this is the store failing
                print(f"viewer: run {run_id} stopped: {exc}", file=sys.stderr)
            finally:
                store.close()

        thread = threading.Thread(target=run, name=f"helium-run-{run_id}", daemon=True)
        self._threads[run_id] = thread
        thread.start()
