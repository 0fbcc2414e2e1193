"""What a trial returns (`RunResult`, the reference API's shape) and what it records (`TrialRecord`, result.json)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class RunResult:
    """What `AgentRunner.run()` returns (the reference API, field for field)."""

    success: bool           # whether the task passed (reward >= 1.0)
    reward: float           # reward value from verification
    duration: float         # execution time in seconds
    trajectory: list        # list of TrajectoryStep: .tool_name, .tool_input, .tool_output
    error: str | None       # error message if the trial could not be scored, or the agent was cut off
    output_dir: Path        # where outputs were saved

    @property
    def status(self) -> str:
        """passed, failed (a genuine reward below 1) or error (no usable reward, or the agent broke or timed out)."""
        if self.success:
            return "passed"
        return "error" if self.error else "failed"


@dataclass
class TrialRecord:
    """Everything a trial learned; result.json is this, and `result` is what the API returns."""

    task: str
    task_path: str
    agent: str
    model: str
    provider: str
    attempt: int
    run_id: str
    result: RunResult
    rewards: dict[str, float] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds spent in: environment (start and setup), agent, verifier, total."""
    agent_timed_out: bool = False
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    started_at: str = ""
    finished_at: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        result = data.pop("result")
        data.update(success=result["success"], reward=result["reward"], duration=result["duration"],
                    error=result["error"], status=self.result.status, output_dir=str(self.result.output_dir),
                    steps=len(self.result.trajectory))
        return data
