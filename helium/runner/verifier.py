"""The verifier: run a task's tests/test.sh in its environment and read the reward it wrote.

Before the tests run, any reward already in /logs/verifier (left by an earlier run, or
written by the agent) is removed and tests/ is uploaded fresh to /tests, so only this
verification can produce the reward. The reward is /logs/verifier/reward.txt (one number)
or, failing that, reward.json (an object of named numbers: its `reward` key if it has one,
else the mean of its values). A reward that is missing, empty, unparseable or not finite
is an *error* (reward 0, `error` set), never mistaken for a genuine reward of 0.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

from helium.environments import Environment
from helium.runner.task import Task

VERIFIER_LOGS = "/logs/verifier"
TESTS_DIR = "/tests"
REWARD_TXT, REWARD_JSON = "reward.txt", "reward.json"
STDOUT_FILE, STDERR_FILE = "test-stdout.txt", "test-stderr.txt"


@dataclass(frozen=True)
class Verification:
    """What the verifier found: the reward, the named rewards of a reward.json, or why there is none."""

    reward: float
    rewards: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    exit_code: int | None = None
    duration: float = 0.0


class RewardError(ValueError):
    """The reward file is there but cannot be used."""


def parse_reward_text(text: str) -> float:
    """reward.txt: exactly one finite number."""
    stripped = text.strip()
    if not stripped:
        raise RewardError(f"{REWARD_TXT} is empty")
    try:
        value = float(stripped)
    except ValueError:
        raise RewardError(f"{REWARD_TXT} is not a number: {stripped[:80]!r}") from None
    if not math.isfinite(value):
        raise RewardError(f"{REWARD_TXT} is not a finite number: {stripped[:80]!r}")
    return value


def parse_reward_json(text: str) -> tuple[float, dict[str, float]]:
    """reward.json: an object of named finite numbers; the reward is its `reward` key, else the mean of all values.

    With a `reward` key, other keys may hold anything (Harbor's `details`, say): only their numbers are kept.
    """
    if not text.strip():
        raise RewardError(f"{REWARD_JSON} is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RewardError(f"{REWARD_JSON} is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not data:
        raise RewardError(f"{REWARD_JSON} must be a non-empty object of numbers, got {text.strip()[:80]!r}")
    rewards: dict[str, float] = {}
    for key, value in data.items():
        if _finite_number(value):
            rewards[key] = float(value)
        elif key == "reward" or "reward" not in data:
            raise RewardError(f"{REWARD_JSON} key {key!r} is not a finite number: {value!r}")
    reward = rewards["reward"] if "reward" in rewards else sum(rewards.values()) / len(rewards)
    return reward, rewards


def _finite_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def read_reward(folder: Path) -> tuple[float, dict[str, float]]:
    """The reward in a downloaded /logs/verifier folder (reward.txt first, as Harbor reads it)."""
    txt, js = folder / REWARD_TXT, folder / REWARD_JSON
    if txt.is_file():
        return parse_reward_text(txt.read_text(encoding="utf-8", errors="replace")), {}
    if js.is_file():
        return parse_reward_json(js.read_text(encoding="utf-8", errors="replace"))
    raise RewardError(f"the verifier wrote no reward ({VERIFIER_LOGS}/{REWARD_TXT} or {REWARD_JSON})")


def verify(environment: Environment, task: Task, out_dir: Path) -> Verification:
    """Run tests/test.sh in the environment with the task's verifier timeout; keep its output in `out_dir`."""
    started = time.monotonic()
    out_dir.mkdir(parents=True, exist_ok=True)
    cleared = environment.exec(f"rm -rf {VERIFIER_LOGS} && mkdir -p {VERIFIER_LOGS} {TESTS_DIR} "
                               f"&& find {TESTS_DIR} -mindepth 1 -delete", timeout=60)
    if cleared.exit_code != 0:
        return Verification(0.0, error=f"verifier: cannot clear {VERIFIER_LOGS}: {cleared.stderr.strip()[:200]}",
                            duration=time.monotonic() - started)
    environment.upload(task.tests_dir, TESTS_DIR)
    result = environment.exec(f"bash {TESTS_DIR}/test.sh", env=task.verifier_env or None,
                              timeout=task.verifier_timeout_sec)
    (out_dir / STDOUT_FILE).write_text(result.stdout, encoding="utf-8")
    (out_dir / STDERR_FILE).write_text(result.stderr, encoding="utf-8")
    try:
        environment.download(VERIFIER_LOGS, out_dir)
    except Exception as exc:  # noqa: BLE001 - tests/test.sh removed the folder, say: no reward, reported below
        (out_dir / STDERR_FILE).write_text(f"{result.stderr}\n[helium: cannot download {VERIFIER_LOGS}: {exc}]\n",
                                           encoding="utf-8")
    elapsed = time.monotonic() - started
    if result.timed_out:
        return Verification(0.0, error=f"verifier: tests/test.sh timed out after {task.verifier_timeout_sec:g}s",
                            exit_code=result.exit_code, duration=elapsed)
    try:
        reward, rewards = read_reward(out_dir)
    except RewardError as exc:
        hint = f" (tests/test.sh exited with {result.exit_code})" if result.exit_code else ""
        return Verification(0.0, error=f"verifier: {exc}{hint}", exit_code=result.exit_code, duration=elapsed)
    return Verification(reward, rewards, exit_code=result.exit_code, duration=elapsed)
