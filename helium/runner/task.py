"""Harbor-format tasks: a folder with instruction.md, task.toml, environment/, tests/test.sh, solution/solve.sh.

`load_task` reads and checks a task folder; anything malformed raises `TaskError` naming the
file and the field, so a batch can report it in one line. Keys Helium does not know are ignored,
as Harbor's own loader does, so tasks written for other runners load unchanged.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helium.errors import HeliumError

DEFAULT_AGENT_TIMEOUT_SEC = 600.0
DEFAULT_VERIFIER_TIMEOUT_SEC = 600.0
DEFAULT_BUILD_TIMEOUT_SEC = 600.0
TASK_FILE = "task.toml"
INSTRUCTION_FILE = "instruction.md"


class TaskError(HeliumError):
    """A task folder that cannot be run: the message names the file and the field to fix."""


@dataclass(frozen=True)
class TaskEnvironment:
    """The `[environment]` table: where the task runs and with what."""

    docker_image: str | None = None
    build_timeout_sec: float = DEFAULT_BUILD_TIMEOUT_SEC
    cpus: float | None = None
    memory_mb: int | None = None
    setup_commands: tuple[str, ...] = ()
    allow_internet: bool = False
    workdir: str | None = None
    """Where commands start; None: the Dockerfile's last WORKDIR, else /app."""


@dataclass(frozen=True)
class Task:
    """One loaded task; paths are absolute."""

    path: Path
    name: str
    instruction: str
    version: str | None
    metadata: dict[str, Any] = field(default_factory=dict)
    agent_timeout_sec: float = DEFAULT_AGENT_TIMEOUT_SEC
    verifier_timeout_sec: float = DEFAULT_VERIFIER_TIMEOUT_SEC
    environment: TaskEnvironment = TaskEnvironment()
    verifier_env: dict[str, str] = field(default_factory=dict)
    """`[verifier] env`: variables tests/test.sh runs with."""
    solution_env: dict[str, str] = field(default_factory=dict)
    """`[solution] env`: variables solution/solve.sh (the oracle) runs with."""

    @property
    def environment_dir(self) -> Path:
        return self.path / "environment"

    @property
    def tests_dir(self) -> Path:
        return self.path / "tests"

    @property
    def solution_dir(self) -> Path:
        return self.path / "solution"

    @property
    def has_solution(self) -> bool:
        return (self.solution_dir / "solve.sh").is_file()


def load_task(path: str | Path) -> Task:
    """Read a task folder (or its task.toml) and check every field Helium uses."""
    folder = Path(path).expanduser().resolve()
    if folder.name == TASK_FILE:
        folder = folder.parent
    if not folder.is_dir():
        raise TaskError(f"{path}: no such task folder")
    toml_path = folder / TASK_FILE
    data = _read_toml(toml_path)
    instruction_path = folder / INSTRUCTION_FILE
    if not instruction_path.is_file():
        raise TaskError(f"{instruction_path}: missing (the task's instruction for the agent)")
    instruction = instruction_path.read_text(encoding="utf-8").strip()
    if not instruction:
        raise TaskError(f"{instruction_path}: empty (the task's instruction for the agent)")
    if not (folder / "tests" / "test.sh").is_file():
        raise TaskError(f"{folder / 'tests' / 'test.sh'}: missing (the verifier script)")

    fields = _Fields(toml_path, data)
    version = fields.text("version") or fields.text("schema_version")
    metadata = fields.table("metadata")
    agent, verifier, environment = fields.table("agent"), fields.table("verifier"), fields.table("environment")
    env = TaskEnvironment(
        docker_image=fields.text("docker_image", environment, "environment"),
        build_timeout_sec=fields.positive("build_timeout_sec", environment, "environment", DEFAULT_BUILD_TIMEOUT_SEC),
        cpus=fields.positive("cpus", environment, "environment", None),
        memory_mb=_as_int(fields.positive("memory_mb", environment, "environment", None))
        or fields.size_mb("memory", environment, "environment"),
        setup_commands=fields.commands("setup_commands", environment, "environment"),
        allow_internet=fields.flag("allow_internet", environment, "environment"),
        workdir=fields.text("workdir", environment, "environment"),
    )
    if env.docker_image is None and not (folder / "environment" / "Dockerfile").is_file():
        raise TaskError(f"{toml_path}: [environment] has no docker_image and {folder / 'environment' / 'Dockerfile'} "
                        "does not exist; give one of them")
    return Task(
        path=folder,
        name=folder.name,
        instruction=instruction,
        version=version,
        metadata=metadata,
        agent_timeout_sec=fields.positive("timeout_sec", agent, "agent", DEFAULT_AGENT_TIMEOUT_SEC),
        verifier_timeout_sec=fields.positive("timeout_sec", verifier, "verifier", DEFAULT_VERIFIER_TIMEOUT_SEC),
        environment=env,
        verifier_env=fields.variables("env", verifier, "verifier"),
        solution_env=fields.variables("env", fields.table("solution"), "solution"),
    )


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise TaskError(f"{path}: missing (every task needs a task.toml)")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise TaskError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{path}: not valid TOML ({exc})") from None


def _as_int(value: float | None) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True)
class _Fields:
    """Typed reads of task.toml values; each failure names `[table] key` in the file."""

    path: Path
    data: dict[str, Any]

    def _where(self, key: str, table: str | None) -> str:
        return f"{self.path}: [{table}] {key}" if table else f"{self.path}: {key}"

    def table(self, name: str) -> dict[str, Any]:
        value = self.data.get(name, {})
        if not isinstance(value, dict):
            raise TaskError(f"{self.path}: [{name}] must be a table, got {value!r}")
        return value

    def text(self, key: str, source: dict[str, Any] | None = None, table: str | None = None) -> str | None:
        value = (self.data if source is None else source).get(key)
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and key in ("version", "schema_version"):
            return str(value)
        if not isinstance(value, str) or not value.strip():
            raise TaskError(f"{self._where(key, table)} must be a non-empty string, got {value!r}")
        return value.strip()

    def positive(self, key: str, source: dict[str, Any], table: str, default: float | None) -> float | None:
        value = source.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise TaskError(f"{self._where(key, table)} must be a positive number, got {value!r}")
        return float(value)

    def flag(self, key: str, source: dict[str, Any], table: str) -> bool:
        value = source.get(key, False)
        if not isinstance(value, bool):
            raise TaskError(f"{self._where(key, table)} must be true or false, got {value!r}")
        return value

    def size_mb(self, key: str, source: dict[str, Any], table: str) -> int | None:
        """A size such as "2G", "512M" or "2048" (megabytes), in megabytes."""
        value = source.get(key)
        if value is None:
            return None
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*", str(value), re.IGNORECASE)
        if isinstance(value, bool) or not match or float(match.group(1)) <= 0:
            raise TaskError(f"{self._where(key, table)} must be a size such as \"2G\" or \"512M\", got {value!r}")
        scale = {"": 1, "k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}[match.group(2).lower()]
        return max(1, int(float(match.group(1)) * scale))

    def variables(self, key: str, source: dict[str, Any], table: str) -> dict[str, str]:
        """An `env` table of environment variables; numbers and booleans become their text."""
        value = source.get(key, {})
        if not isinstance(value, dict) or not all(isinstance(v, (str, int, float, bool)) for v in value.values()):
            raise TaskError(f"{self._where(key, table)} must be a table of variables (NAME = \"value\"), got {value!r}")
        return {name: str(v).lower() if isinstance(v, bool) else str(v) for name, v in value.items()}

    def commands(self, key: str, source: dict[str, Any], table: str) -> tuple[str, ...]:
        value = source.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(c, str) and c.strip() for c in value):
            raise TaskError(f"{self._where(key, table)} must be a list of shell commands, got {value!r}")
        return tuple(value)
