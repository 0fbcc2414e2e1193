"""One trial: a task, an agent and an environment; the agent works, the verifier scores, the outputs are written.

Every trial is a run of the `task` flow in the project store of the current directory, so
`helium runs`, `helium history` and the viewer show it; its `extra` holds the task, agent,
provider, output folder, reward and error. A trial is synchronous (`run_trial`), and
`AgentRunner.run()` runs it on a worker thread so many can run at once under asyncio.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.errors import GraphRecursionError

from helium import __version__
from helium.config import Settings, load_settings
from helium.environments import Environment, EnvironmentSpec, create_environment
from helium.errors import HeliumError
from helium.graphs import task as task_flow
from helium.graphs.agent_loop import recursion_limit
from helium.models import describe_model_error, estimate_cost, route_model
from helium.runner.agents import SOLUTION_DIR, agent_model
from helium.runner.deadline import DeadlineEnvironment
from helium.runner.output import (
    CONFIG_FILE,
    RESULT_FILE,
    TRAJECTORY_FILE,
    VERIFIER_DIR,
    new_trial_dir,
    redact_tree,
    secrets_to_hide,
    write_json,
)
from helium.runner.result import RunResult, TrialRecord
from helium.runner.setup import (
    REPLAYED_PROVIDERS,
    check_provider,
    environment_spec,
    remove_orphaned_sandboxes,
    replay_dockerfile,
    run_setup_commands,
)
from helium.runner.task import TASK_FILE, Task, load_task
from helium.runner.trajectory import TrajectoryStep, atif_document, tool_steps
from helium.runner.verifier import Verification, verify
from helium.state.runs import RunRecord
from helium.state.store import ProjectStore

DEFAULT_MODEL = "gemini/gemini-2.5-computer-use-preview-10-2025"
"""The reference API's default model id."""
AGENT_GRACE_SEC = 3.0
"""How long a timed-out agent's thread gets to notice and stop before the verifier runs regardless."""
JOIN_SLICE_SEC = 0.2
"""How often the trial looks up from the agent to see whether it was aborted."""

Progress = Callable[[str], None]


class TrialAborted(HeliumError):
    """A trial stopped before it was scored (Ctrl-C, or its batch was cancelled); a batch re-runs it on --resume."""


@dataclass
class _AgentOutcome:
    messages: list[BaseMessage]
    error: str | None
    timed_out: bool
    usage: dict[str, int]
    system_prompt: str | None = None


class AgentRunner:
    """Runs one task with one agent in one environment and returns a `RunResult`.

    `agent` is `helium` (the model), `oracle` (the task's solution/solve.sh) or `nop`; `watch` serves the
    web viewer while the trial runs. Settings (base URL, key, turn limit) come from the current directory
    with `model` on top; given `settings` are used as they are (their model included).
    """

    def __init__(self, task_path: str | Path, model: str = DEFAULT_MODEL, provider: str = "docker",
                 output_dir: str | Path = "output", watch: bool = False, *, agent: str = "helium",
                 settings: Settings | None = None, attempt: int = 1, batch_dir: Path | None = None,
                 progress: Progress | None = None, viewer_port: int = 8080) -> None:
        self.task_path = Path(task_path)
        self.provider = provider
        self.output_dir = Path(output_dir).resolve()
        self.watch = watch
        self.agent = agent
        self.settings = settings or load_settings(model=model)
        self.model = self.settings.model
        self.attempt = attempt
        self.batch_dir = batch_dir
        self._progress = progress
        self.viewer_port = viewer_port
        self.viewer_url: str | None = None
        """While a `watch=True` run is under way, where its viewer is (port 0 picks a free port)."""
        self._aborted = threading.Event()
        self._environment: Environment | None = None

    def abort(self) -> None:
        """Stop the trial from another thread: its environment is stopped at once (a container removed), and the
        trial ends unscored with `TrialAborted`."""
        self._aborted.set()
        environment = self._environment
        if environment is not None:
            try:
                environment.stop()
            except Exception:  # noqa: BLE001 - stopping is best effort here; the trial's own finally retries it
                pass

    async def run(self) -> RunResult:
        """Execute the task and return its result; a malformed task or unusable model raises a HeliumError."""
        if not self.watch:
            return (await asyncio.to_thread(self.run_trial)).result
        from helium.viewer import serve_in_thread

        viewer = serve_in_thread(self.settings.workspace, port=self.viewer_port)
        self.viewer_url = viewer.url
        print(f"viewer: {viewer.url}", file=sys.stderr, flush=True)
        try:
            return (await asyncio.to_thread(self.run_trial)).result
        finally:
            viewer.stop()
            self.viewer_url = None

    # -- the trial, synchronously ------------------------------------------------------------------------------
    def run_trial(self) -> TrialRecord:
        task = load_task(self.task_path)
        model = agent_model(self.agent, self.settings, timeout_sec=task.agent_timeout_sec,
                            solution_env=task.solution_env)
        if self.agent == "oracle" and not task.has_solution:
            raise HeliumError(f"{task.solution_dir / 'solve.sh'}: missing, so the oracle agent cannot run this task")
        check_provider(self.provider)
        if self.provider == "docker" and self.batch_dir is None:  # a batch does this once, for all its trials
            remove_orphaned_sandboxes(self._say)
        secrets = secrets_to_hide([self.settings.api_key])
        sandbox_root = Path(tempfile.mkdtemp(prefix=f"helium-{task.name}-"))
        try:
            spec = environment_spec(task)
            sandbox = f"helium-{task.name}-{uuid.uuid4().hex[:8]}"
            environment = create_environment(self.provider, spec, local_root=sandbox_root, name=sandbox)
            self._environment = environment
            trial_dir = new_trial_dir(self.output_dir, task.name)
            with ProjectStore(self.settings.db_path) as store:
                run = store.runs.create(task_flow.FLOW, f"{task.name} ({self.agent})", self._model_label(),
                                        extra=self._run_extra(task, trial_dir))
                write_json(trial_dir / CONFIG_FILE, self._config(task, run, sandbox), secrets)
                try:
                    record = self._execute(task, spec, environment, store, run, trial_dir, model)
                except (KeyboardInterrupt, TrialAborted):
                    store.runs.set_status(run.id, "interrupted", error="stopped before it was scored")
                    raise
                redact_tree(trial_dir, secrets)
                write_json(trial_dir / RESULT_FILE, record.to_json(), secrets)
                store.runs.set_extra(run.id, {**run.extra, "reward": record.result.reward,
                                              "error": record.result.error, "status": record.result.status})
                store.runs.set_usage(run.id, record.tokens_in, record.tokens_out, record.cost)
                store.runs.set_status(run.id, "failed" if record.result.status == "error" else "done",
                                      error=record.result.error)
            return record
        finally:
            self._environment = None
            shutil.rmtree(sandbox_root, ignore_errors=True)

    def _execute(self, task: Task, spec: EnvironmentSpec, environment: Environment, store: ProjectStore,
                 run: RunRecord, trial_dir: Path, model: Any) -> TrialRecord:
        started, started_at = time.monotonic(), _now()
        timings: dict[str, float] = {}
        outcome = _AgentOutcome([], None, False, {})
        verification = Verification(0.0, error=None)
        env_error: str | None = None
        try:
            self._say(f"environment: starting ({self.provider})")
            env_error = self._prepare(task, spec, environment)
            timings["environment"] = time.monotonic() - started
            if env_error is None:
                self._say(f"agent: {self.agent} ({task.agent_timeout_sec:g}s)")
                agent_started = time.monotonic()
                outcome = self._run_agent(task, spec, environment, store, run, model)
                timings["agent"] = time.monotonic() - agent_started
                if self._aborted.is_set():
                    raise TrialAborted(f"trial of {task.name} stopped before it was scored")
                self._say("verifier: running tests/test.sh")
                verification = verify(environment, task, trial_dir / VERIFIER_DIR)
                timings["verifier"] = verification.duration
        finally:
            stop_started = time.monotonic()
            try:
                environment.stop()
            except Exception as exc:  # noqa: BLE001 - a failed clean-up is reported, the score is kept
                env_error = env_error or f"environment: stop failed: {exc}"
            timings["environment"] = timings.get("environment", 0.0) + time.monotonic() - stop_started
        trajectory = self._write_trajectory(task, run, trial_dir, outcome)
        success = verification.error is None and env_error is None and verification.reward >= 1.0
        error = env_error or verification.error or (None if success else outcome.error)
        timings["total"] = time.monotonic() - started
        self._say(f"reward {verification.reward:g}" + (f" · error: {error}" if error else ""))
        tokens_in, tokens_out = outcome.usage.get("input_tokens", 0), outcome.usage.get("output_tokens", 0)
        return TrialRecord(
            task=task.name, task_path=str(task.path), agent=self.agent, model=self._model_label(),
            provider=self.provider, attempt=self.attempt, run_id=run.id,
            result=RunResult(success, verification.reward, timings["total"], trajectory, error, trial_dir),
            rewards=verification.rewards, timings=timings, agent_timed_out=outcome.timed_out,
            tokens_in=tokens_in, tokens_out=tokens_out,
            cost=estimate_cost(self.model, tokens_in, tokens_out, self.settings.prices) if self.agent == "helium"
            else None,
            started_at=started_at, finished_at=_now())

    def _prepare(self, task: Task, spec: EnvironmentSpec, environment: Environment) -> str | None:
        """Start the environment, run the task's setup commands, put the oracle's solution in place."""
        try:
            environment.start()
            if self.provider in REPLAYED_PROVIDERS and spec.dockerfile_dir is not None:
                replay_dockerfile(environment, spec.dockerfile_dir, timeout=task.environment.build_timeout_sec)
            run_setup_commands(environment, task.environment.setup_commands, source=task.path / TASK_FILE,
                               timeout=task.environment.build_timeout_sec)
            if self.agent == "oracle":
                environment.upload(task.solution_dir, SOLUTION_DIR)
        except Exception as exc:  # noqa: BLE001 - no engine, a failed build: the trial is an error, not a crash
            return f"environment: {exc}"
        return None

    def _run_agent(self, task: Task, spec: EnvironmentSpec, environment: Environment, store: ProjectStore,
                   run: RunRecord, model: Any) -> _AgentOutcome:
        """Stream the agent's graph on a thread of its own; at the task's timeout its commands are cut and it stops."""
        sandbox = DeadlineEnvironment(environment, time.monotonic() + task.agent_timeout_sec)
        context = task_flow.task_context(
            self.settings, store, run, model=model, environment=sandbox,
            workdir=spec.workdir, timeout_sec=task.agent_timeout_sec, native_tools=self.agent != "helium")
        graph = task_flow.build_graph(store.checkpointer)
        config = {"configurable": {"thread_id": run.id}, "recursion_limit": recursion_limit(context.max_turns)}
        stop = threading.Event()
        failure: list[str] = []

        def work() -> None:
            try:
                for update in graph.stream({"messages": [HumanMessage(task.instruction)]}, config, context=context,
                                           stream_mode="updates"):
                    self._show(update)
                    if stop.is_set():
                        break
            except Exception as exc:  # noqa: BLE001 - the failure is the trial's error; the verifier still runs
                failure.append(self._explain(exc))

        worker = threading.Thread(target=work, name=f"agent-{run.id}", daemon=True)
        worker.start()
        until = time.monotonic() + task.agent_timeout_sec
        while worker.is_alive() and not self._aborted.is_set() and time.monotonic() < until:
            worker.join(min(JOIN_SLICE_SEC, max(0.0, until - time.monotonic())))
        if self._aborted.is_set():
            stop.set()
            raise TrialAborted(f"trial of {task.name} stopped before it was scored")
        timed_out = worker.is_alive() or sandbox.cut
        if worker.is_alive():
            stop.set()
            worker.join(AGENT_GRACE_SEC)
        values = graph.get_state(config).values
        error = (f"agent timed out after {task.agent_timeout_sec:g}s (the task's [agent] timeout_sec)"
                 if timed_out else (failure[0] if failure else None))
        return _AgentOutcome(list(values.get("messages", [])), error, timed_out, dict(values.get("usage") or {}),
                             context.system_prompt)

    def _write_trajectory(self, task: Task, run: RunRecord, trial_dir: Path,
                          outcome: _AgentOutcome) -> list[TrajectoryStep]:
        document = atif_document(session_id=run.id, agent_name=f"helium-{self.agent}", agent_version=__version__,
                                 model_name=self._model_label(), messages=outcome.messages,
                                 system_prompt=outcome.system_prompt,
                                 notes=f"task {task.name}, attempt {self.attempt}, provider {self.provider}")
        write_json(trial_dir / TRAJECTORY_FILE, document, secrets_to_hide([self.settings.api_key]))
        return tool_steps(document)

    # -- helpers -----------------------------------------------------------------------------------------------
    def _model_label(self) -> str:
        return self.model if self.agent == "helium" else self.agent

    def _run_extra(self, task: Task, trial_dir: Path) -> dict[str, Any]:
        return {"task": task.name, "task_path": str(task.path), "agent": self.agent, "provider": self.provider,
                "output_dir": str(trial_dir), "attempt": self.attempt, "reward": None, "error": None,
                **({"batch_dir": str(self.batch_dir)} if self.batch_dir else {})}

    def _config(self, task: Task, run: RunRecord, sandbox: str) -> dict[str, Any]:
        """What the trial ran with; never the API key or endpoint (an endpoint URL can carry credentials).

        `sandbox` is the environment's label (`docker ps -a --filter label=helium.environment=NAME`)."""
        return {"task": task.name, "task_path": str(task.path), "agent": self.agent, "model": self._model_label(),
                "provider": self.provider, "sandbox": sandbox, "attempt": self.attempt, "run_id": run.id, "helium_version": __version__,
                "batch_dir": str(self.batch_dir) if self.batch_dir else None,
                "task_config": {"version": task.version, "metadata": task.metadata,
                                "agent_timeout_sec": task.agent_timeout_sec,
                                "verifier_timeout_sec": task.verifier_timeout_sec,
                                "environment": asdict(task.environment)},
                "max_turns": self.settings.max_turns, "tool_calling": self.settings.tool_calling}

    def _explain(self, exc: BaseException) -> str:
        if isinstance(exc, HeliumError):
            return f"agent: {exc}"
        if isinstance(exc, GraphRecursionError):
            return "agent: the run exceeded its step budget; raise max_turns in config.toml"
        if self.agent == "helium":
            described = describe_model_error(exc, route_model(self.settings), self.settings.max_retries)
            if described is not None:
                return f"agent: {described}"
        return f"agent: unexpected {type(exc).__name__}: {exc}"

    def _say(self, line: str) -> None:
        if self._progress is not None:
            self._progress(line)

    def _show(self, update: dict[str, Any]) -> None:
        if self._progress is None:
            return
        for node_update in update.values():
            for message in (node_update or {}).get("messages", []) if isinstance(node_update, dict) else []:
                if isinstance(message, AIMessage):
                    for call in message.tool_calls:
                        self._say(f"→ {call['name']} {_one_line(call['args'].get('command') or call['args'])}")
                elif isinstance(message, ToolMessage):
                    self._say(f"  ← {_one_line(message.text)}")


def _one_line(value: object, width: int = 100) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
