"""What `helium task run` and `helium task batch` do: run trials, show progress, report, pick the exit code."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from helium.config import Settings
from helium.errors import HeliumError
from helium.runner import AgentRunner, BatchResult, ParallelRunner, discover_tasks
from helium.runner.batch import unfinished_trial_dirs
from helium.runner.result import TrialRecord

if TYPE_CHECKING:
    from helium.viewer import ViewerHandle

EXIT_ALL_PASSED, EXIT_NOT_ALL_PASSED, EXIT_INTERRUPTED = 0, 1, 130


def run_task(settings: Settings, path: Path, output_dir: Path, provider: str, agent: str, *, watch: bool,
             port: int, json_output: bool) -> int:
    """One trial; exit 0 when it passed, 1 when it failed or could not be scored."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    progress = None if json_output else (lambda line: err.print(f"[dim]{escape(line)}[/]"))
    runner = AgentRunner(path, settings.model, provider, output_dir, agent=agent, settings=settings,
                         progress=progress)
    viewer = None
    if watch:
        from helium.viewer import serve_in_thread

        viewer = serve_in_thread(settings.workspace, port=port)
        err.print(f"viewer: {viewer.url}", markup=False)
    try:
        record = runner.run_trial()
    except BaseException as exc:
        if viewer is not None:
            viewer.stop()
        if isinstance(exc, KeyboardInterrupt):  # the trial stopped its environment and marked its run interrupted
            err.print("interrupted: the trial was stopped before it was scored", markup=False)
            return EXIT_INTERRUPTED
        raise
    if json_output:
        print(json.dumps(record.to_json(), indent=2))
    else:
        _report_trial(record, err)
    if viewer is not None:
        _linger(viewer, err)
    return EXIT_ALL_PASSED if record.result.success else EXIT_NOT_ALL_PASSED


def _linger(viewer: ViewerHandle, err: Console) -> None:
    """On a terminal the viewer stays up after the trial until Enter (or Ctrl-C); in scripts it stops at once."""
    try:
        if sys.stdin.isatty():
            err.print(f"the viewer stays at {viewer.url}; press Enter to stop it", markup=False)
            sys.stdin.readline()
    except KeyboardInterrupt:
        pass
    finally:
        viewer.stop()


def _report_trial(record: TrialRecord, err: Console) -> None:
    result = record.result
    mark = {"passed": "[green]passed[/]", "failed": "[red]failed[/]", "error": "[yellow]error[/]"}[result.status]
    rewards = ", ".join(f"{k} {v:g}" for k, v in record.rewards.items())
    err.print(f"{mark} {escape(record.task)} · reward {result.reward:g}" + (f" ({escape(rewards)})" if rewards else "")
              + f" · {result.duration:.1f}s · {len(result.trajectory)} tool calls")
    if result.error:
        err.print(f"error: {result.error}", markup=False)
    err.print(f"[dim]output {escape(str(result.output_dir))} · run {record.run_id} "
              f"(helium history {record.run_id})[/]")


def run_batch(settings: Settings, directory: Path | None, *, n_concurrent: int | None, attempts: int, pattern: str,
              quiet: bool, resume: Path | None, output_dir: Path, provider: str, agent: str,
              json_output: bool) -> int:
    """Many trials; exit 0 when every one passed, 1 otherwise."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if resume is not None:
        runner = ParallelRunner.resume(resume, n_concurrent=n_concurrent, quiet=quiet or json_output,
                                       settings=settings)
        cut = unfinished_trial_dirs(runner.batch_dir)
        if cut and not json_output:
            err.print(f"[dim]resuming {runner.batch_dir}: {len(cut)} trial(s) were cut off and run again[/]")
    else:
        if directory is None:
            raise HeliumError("give a directory of tasks (helium task batch tasks/), or --resume OUTPUT_DIR")
        paths = discover_tasks(directory, pattern)
        if not paths:
            raise HeliumError(f"no tasks match {pattern!r} under {directory}")
        runner = ParallelRunner(paths, n_concurrent or 2, settings.model, provider, output_dir,
                                quiet or json_output, attempts=attempts, agent=agent, settings=settings)
        if not json_output:
            err.print(f"[dim]batch {runner.batch_dir}: {len(paths)} task(s) x {attempts} attempt(s), "
                      f"{runner.n_concurrent} at a time, agent {agent}, provider {provider}[/]")
    try:
        batch = asyncio.run(runner.run())
    except KeyboardInterrupt:
        # The batch aborted its trials (environments stopped); leave at once rather than wait for their threads.
        err.print(f"interrupted; finish the batch with: helium task batch --resume {runner.batch_dir}", markup=False)
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    if json_output:
        print(json.dumps(batch.to_json(), indent=2))
    else:
        _report_batch(batch, err, quiet)
    return EXIT_ALL_PASSED if batch.passed == batch.total_tasks else EXIT_NOT_ALL_PASSED


def _report_batch(batch: BatchResult, err: Console, quiet: bool) -> None:
    if not quiet:
        table = Table("task", "attempt", "status", "reward", "seconds", "error", box=None, pad_edge=False)
        for t in batch.tasks:
            table.add_row(t.task, str(t.attempt), t.status, f"{t.result.reward:g}", f"{t.result.duration:.1f}",
                          t.result.error or "")
        err.print(table)
    err.print(f"{batch.passed}/{batch.total_tasks} passed, {batch.failed} failed, {batch.errored} errors · "
              f"mean reward {batch.mean_reward:.3f} · pass@{batch.attempts} {batch.pass_at_k:.2f} · "
              f"{batch.duration:.1f}s", markup=False)
    err.print(f"[dim]output {escape(str(batch.output_dir))} (after a kill: helium task batch --resume "
              f"{escape(str(batch.output_dir))})[/]")
