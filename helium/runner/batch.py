"""Many trials at once: `ParallelRunner` runs tasks x attempts with a concurrency limit and a live progress bar.

A batch writes `batch.json` (its tasks, attempts and agent) into its own folder before any
trial starts, and each trial writes `result.json` when it ends; so after a kill,
`ParallelRunner.resume(folder)` (`helium task batch --resume FOLDER`) runs exactly the trials
that have no result yet. With k attempts per task, `pass_at_k` is the share of tasks that
passed at least once.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from helium.config import Settings, load_settings
from helium.errors import HeliumError
from helium.runner.agents import agent_model
from helium.runner.output import CONFIG_FILE, RESULT_FILE, read_json, write_json
from helium.runner.task import TASK_FILE, load_task
from helium.runner.result import RunResult
from helium.runner.setup import check_provider, remove_orphaned_sandboxes
from helium.runner.trial import DEFAULT_MODEL, AgentRunner
from helium.runner.trajectory import tool_steps

BATCH_FILE = "batch.json"
PLAN_KEYS = ("tasks", "attempts", "agent", "model", "provider", "n_concurrent")
"""What batch.json holds (and `resume` needs): the batch's tasks, attempts per task, agent, model, provider."""


@dataclass(frozen=True)
class TaskResult:
    """One finished trial of a batch: which task, which attempt, its result and its run in the store."""

    task: str
    task_path: Path
    attempt: int
    result: RunResult
    run_id: str

    @property
    def status(self) -> str:
        return self.result.status


@dataclass
class BatchResult:
    """A batch's outcome. Counts are of trials (task x attempt): passed + failed + errored == total_tasks."""

    total_tasks: int
    passed: int
    failed: int
    mean_reward: float
    duration: float
    tasks: list[TaskResult] = field(default_factory=list)
    errored: int = 0
    """Trials with no usable reward (broken verifier, environment failure, agent error or timeout)."""
    attempts: int = 1
    output_dir: Path | None = None

    @property
    def pass_at_k(self) -> float:
        """The share of distinct tasks with at least one passing attempt (pass@k with k = attempts)."""
        names = {t.task_path for t in self.tasks}
        if not names:
            return 0.0
        return sum(any(t.result.success for t in self.tasks if t.task_path == n) for n in names) / len(names)

    def to_json(self) -> dict[str, Any]:
        return {"total_tasks": self.total_tasks, "passed": self.passed, "failed": self.failed,
                "errored": self.errored, "mean_reward": self.mean_reward, "pass_at_k": self.pass_at_k,
                "attempts": self.attempts, "duration": self.duration,
                "output_dir": str(self.output_dir) if self.output_dir else None,
                "tasks": [{"task": t.task, "task_path": str(t.task_path), "attempt": t.attempt, "status": t.status,
                           "success": t.result.success, "reward": t.result.reward, "error": t.result.error,
                           "duration": t.result.duration, "run_id": t.run_id,
                           "output_dir": str(t.result.output_dir)} for t in self.tasks]}


OnComplete = Callable[[TaskResult], Any]


def discover_tasks(directory: str | Path, pattern: str = "**/task.toml") -> list[Path]:
    """Task folders under `directory` (those holding a file matching `pattern`), sorted by path."""
    root = Path(directory)
    if not root.is_dir():
        raise HeliumError(f"{directory}: no such directory of tasks")
    found = sorted({(p.parent if p.name == TASK_FILE else p).resolve() for p in root.glob(pattern)})
    return [p for p in found if (p / TASK_FILE).is_file()]


class ParallelRunner:
    """Runs every task `attempts` times, `n_concurrent` trials at a time, each as an `AgentRunner` trial."""

    def __init__(self, task_paths: Sequence[str | Path], n_concurrent: int = 2, model: str = DEFAULT_MODEL,
                 provider: str = "docker", output_dir: str | Path = "output", quiet: bool = False,
                 on_complete: OnComplete | None = None, *, attempts: int = 1, agent: str = "helium",
                 settings: Settings | None = None) -> None:
        if n_concurrent < 1 or attempts < 1:
            raise HeliumError("n_concurrent and attempts must be at least 1")
        self.task_paths = [Path(p).resolve() for p in task_paths]
        self.n_concurrent = n_concurrent
        self.provider = provider
        self.quiet = quiet
        self.on_complete = on_complete
        self.attempts = attempts
        self.agent = agent
        self.settings = settings or load_settings(model=model)
        self.batch_dir = Path(output_dir).resolve() / f"batch_{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}"
        self._resuming = False

    @classmethod
    def resume(cls, batch_dir: str | Path, *, n_concurrent: int | None = None, quiet: bool = False,
               on_complete: OnComplete | None = None, settings: Settings | None = None) -> ParallelRunner:
        """The runner of an earlier batch, to finish the trials it did not (tasks, attempts, agent, model and
        provider from its batch.json; `settings` give the rest, such as the endpoint and key)."""
        folder = Path(batch_dir)
        plan = read_json(folder / BATCH_FILE)
        if plan is None:
            raise HeliumError(f"{folder}: not a batch folder (no readable {BATCH_FILE}); give the folder "
                              "`helium task batch` printed")
        missing = [key for key in PLAN_KEYS if key not in plan]
        if missing:
            raise HeliumError(f"{folder / BATCH_FILE}: not a batch plan (no {', '.join(missing)}); give the folder "
                              "`helium task batch` printed")
        settings = replace(settings, model=plan["model"]) if settings else load_settings(model=plan["model"])
        runner = cls(plan["tasks"], n_concurrent or plan["n_concurrent"], plan["model"], plan["provider"],
                     folder.parent, quiet, on_complete, attempts=plan["attempts"], agent=plan["agent"],
                     settings=settings)
        runner.batch_dir = folder.resolve()
        runner._resuming = True
        return runner

    async def run(self) -> BatchResult:
        """Run the trials that have no result yet; bad input (a malformed task, an unknown agent or provider, a
        model that cannot be built) raises a HeliumError before the first trial starts."""
        for path in self.task_paths:
            load_task(path)
        agent_model(self.agent, self.settings, timeout_sec=1)
        check_provider(self.provider)
        if self.provider == "docker":
            remove_orphaned_sandboxes(None if self.quiet else
                                      lambda line: Console(stderr=True, highlight=False).print(line, markup=False))
        started = time.monotonic()
        if not self._resuming:
            self.batch_dir.mkdir(parents=True, exist_ok=False)
            write_json(self.batch_dir / BATCH_FILE, self._plan(), [])
        finished = finished_trials(self.batch_dir)
        todo = [(path, attempt) for path in self.task_paths for attempt in range(1, self.attempts + 1)
                if (str(path), attempt) not in finished]
        done = [finished[key] for key in sorted(finished)]
        limit = asyncio.Semaphore(self.n_concurrent)
        active: set[AgentRunner] = set()
        loop = asyncio.get_running_loop()
        pool = ThreadPoolExecutor(max_workers=self.n_concurrent, thread_name_prefix="trial")
        with _BatchProgress(len(todo) + len(done), done, quiet=self.quiet) as progress:
            async def one(path: Path, attempt: int) -> TaskResult:
                async with limit:
                    runner = AgentRunner(path, self.settings.model, self.provider, self.batch_dir, agent=self.agent,
                                         settings=self.settings, attempt=attempt, batch_dir=self.batch_dir)
                    active.add(runner)
                    try:
                        record = await loop.run_in_executor(pool, runner.run_trial)
                    finally:
                        active.discard(runner)
                finished_one = TaskResult(record.task, Path(record.task_path), attempt, record.result, record.run_id)
                progress.advance(finished_one)
                if self.on_complete is not None:
                    outcome = self.on_complete(finished_one)
                    if inspect.isawaitable(outcome):
                        await outcome
                return finished_one

            try:
                new = await asyncio.gather(*(one(path, attempt) for path, attempt in todo))
            except asyncio.CancelledError:  # Ctrl-C: stop every trial under way; --resume runs them again
                for runner in list(active):
                    runner.abort()
                raise
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
        results = sorted([*done, *new], key=lambda t: (str(t.task_path), t.attempt))
        return summarise(results, time.monotonic() - started, self.attempts, self.batch_dir)

    def _plan(self) -> dict[str, Any]:
        return {"tasks": [str(p) for p in self.task_paths], "attempts": self.attempts, "agent": self.agent,
                "model": self.settings.model, "provider": self.provider, "n_concurrent": self.n_concurrent,
                "created": datetime.now().isoformat(timespec="seconds")}


def finished_trials(batch_dir: Path) -> dict[tuple[str, int], TaskResult]:
    """The trials of a batch folder that wrote their result.json, by (task path, attempt)."""
    found: dict[tuple[str, int], TaskResult] = {}
    for result_path in sorted(batch_dir.glob(f"*/{RESULT_FILE}")):
        data = read_json(result_path)
        if data is None or "task_path" not in data:
            continue
        trajectory = read_json(result_path.parent / "agent" / "trajectory.json") or {}
        result = RunResult(bool(data["success"]), float(data["reward"]), float(data["duration"]),
                           tool_steps(trajectory), data.get("error"), result_path.parent)
        found[(data["task_path"], int(data["attempt"]))] = TaskResult(
            data["task"], Path(data["task_path"]), int(data["attempt"]), result, data.get("run_id", ""))
    return found


def unfinished_trial_dirs(batch_dir: Path) -> list[Path]:
    """Trial folders a killed batch left without a result.json (their trials are run again on resume)."""
    return sorted(p.parent for p in batch_dir.glob(f"*/{CONFIG_FILE}") if not (p.parent / RESULT_FILE).is_file())


def summarise(results: list[TaskResult], duration: float, attempts: int, batch_dir: Path | None) -> BatchResult:
    passed = sum(t.status == "passed" for t in results)
    errored = sum(t.status == "error" for t in results)
    mean = sum(t.result.reward for t in results) / len(results) if results else 0.0
    return BatchResult(len(results), passed, len(results) - passed - errored, mean, duration, results, errored,
                       attempts, batch_dir)


class _BatchProgress:
    """A live bar of finished trials with passed / failed / error counts (nothing when quiet)."""

    def __init__(self, total: int, already: list[TaskResult], *, quiet: bool) -> None:
        self.counts = {"passed": 0, "failed": 0, "error": 0}
        for t in already:
            self.counts[t.status] += 1
        self._progress = None if quiet else Progress(
            TextColumn("[bold]trials[/]"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[green]{task.fields[passed]} passed[/] [red]{task.fields[failed]} failed[/] "
                       "[yellow]{task.fields[error]} errors[/]"), TimeElapsedColumn(),
            console=Console(stderr=True), transient=False)
        self._bar = None
        self._total, self._already = total, len(already)

    def __enter__(self) -> _BatchProgress:
        if self._progress is not None:
            self._progress.start()
            self._bar = self._progress.add_task("batch", total=self._total, completed=self._already, **self.counts)
        return self

    def advance(self, finished: TaskResult) -> None:
        self.counts[finished.status] += 1
        if self._progress is not None and self._bar is not None:
            self._progress.update(self._bar, advance=1, **self.counts)
            mark = {"passed": "[green]✓[/]", "failed": "[red]✗[/]", "error": "[yellow]![/]"}[finished.status]
            detail = f" · {escape(finished.result.error)}" if finished.result.error else ""
            self._progress.console.print(f"{mark} {escape(finished.task)} #{finished.attempt} reward "
                                         f"{finished.result.reward:g}{detail}", highlight=False, markup=True)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
