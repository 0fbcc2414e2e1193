"""The task runner: Harbor-format tasks, trials (`AgentRunner`), batches (`ParallelRunner`), ATIF trajectories."""

from helium.runner.batch import BatchResult, ParallelRunner, TaskResult, discover_tasks
from helium.runner.task import Task, TaskError, load_task
from helium.runner.trajectory import TrajectoryStep
from helium.runner.result import RunResult
from helium.runner.trial import AgentRunner

__all__ = ["AgentRunner", "BatchResult", "ParallelRunner", "RunResult", "Task", "TaskError", "TaskResult",
           "TrajectoryStep", "discover_tasks", "load_task"]
