"""Getting a task's environment ready: its Dockerfile replayed where no image is built, its setup commands.

Harbor tasks put their starting files in place with `COPY` (and `WORKDIR`, `RUN`) in
environment/Dockerfile. Docker runs those at build time; the local sandbox has no build, so
the runner replays the instructions that shape files through the environment: `COPY`/`ADD`
of local files become uploads, `WORKDIR` a directory, `RUN` a command. `FROM` is this machine
there, and instructions that only describe an image (`ENV`, `CMD`, `LABEL`, …) have nothing to do.
Then, in every environment, task.toml's `setup_commands` run in order; the first that fails stops the trial.
"""

from __future__ import annotations

import json
import posixpath
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from helium.environments import PROVIDERS, Environment, EnvironmentSpec, SandboxError, remove_orphaned_containers
from helium.errors import ConfigError, HeliumError
from helium.runner.task import Task

DEFAULT_WORKDIR = "/app"
REPLAYED_PROVIDERS = ("local",)
"""Providers that build no image: the task's Dockerfile is replayed into them."""


class SetupError(HeliumError):
    """The environment could not be made ready: an instruction that cannot be replayed, a command that failed."""


@dataclass(frozen=True)
class Instruction:
    keyword: str
    arguments: str
    line: int


def instructions(text: str) -> list[Instruction]:
    """The Dockerfile's instructions, with `\\`-continued lines joined and comments dropped."""
    found: list[Instruction] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        whole = (pending + line).strip()
        pending = ""
        keyword, _, arguments = whole.partition(" ")
        found.append(Instruction(keyword.upper(), arguments.strip(), start))
    return found


def replay_dockerfile(environment: Environment, dockerfile_dir: Path, *, timeout: float) -> None:
    """Apply the Dockerfile's COPY, ADD, WORKDIR and RUN to the environment, in order."""
    dockerfile = dockerfile_dir / "Dockerfile"
    workdir = "/"
    for step in instructions(dockerfile.read_text(encoding="utf-8")):
        where = f"{dockerfile}:{step.line}"
        if step.keyword == "WORKDIR":
            workdir = posixpath.join(workdir, step.arguments)
            _run(environment, f"mkdir -p {shlex.quote(workdir)}", where, timeout)
        elif step.keyword in ("COPY", "ADD"):
            _copy(environment, dockerfile_dir, step.arguments, workdir, where)
        elif step.keyword == "RUN":
            _run(environment, f"cd {shlex.quote(workdir)} && {_shell_form(step.arguments)}", where, timeout)


def dockerfile_workdir(dockerfile_dir: Path) -> str | None:
    """The directory the Dockerfile's image starts in (its last WORKDIR), or None if it sets none."""
    workdir = None
    for step in instructions((dockerfile_dir / "Dockerfile").read_text(encoding="utf-8")):
        if step.keyword == "WORKDIR":
            workdir = posixpath.join(workdir or "/", step.arguments)
    return workdir


def _copy(environment: Environment, context: Path, arguments: str, workdir: str, where: str) -> None:
    parts = [p for p in shlex.split(arguments) if not p.startswith("--")]
    if len(parts) < 2:
        raise SetupError(f"{where}: COPY needs a source and a destination")
    *sources, destination = parts
    target_dir = posixpath.join(workdir, destination)
    for source in sources:
        if "://" in source:
            raise SetupError(f"{where}: the local sandbox cannot fetch {source}; use the docker provider")
        origin = (context / source).resolve()
        if context.resolve() not in (origin, *origin.parents) or not origin.exists():
            raise SetupError(f"{where}: {source} is not a file in the task's environment/ folder")
        into_dir = origin.is_dir() or destination.endswith("/") or len(sources) > 1
        target = target_dir if origin.is_dir() or not into_dir else posixpath.join(target_dir, origin.name)
        environment.upload(origin, target)


def run_setup_commands(environment: Environment, commands: tuple[str, ...], *, source: Path, timeout: float) -> None:
    """task.toml's [environment] setup_commands, in order, each within the build timeout."""
    for command in commands:
        _run(environment, command, f"{source} [environment] setup_commands", timeout)


def _run(environment: Environment, command: str, where: str, timeout: float) -> None:
    done = environment.exec(command, timeout=timeout)
    if done.exit_code != 0 or done.timed_out:
        why = "timed out" if done.timed_out else f"exited with {done.exit_code}"
        tail = (done.stderr.strip() or done.stdout.strip())[-300:]
        raise SetupError(f"{where}: {command!r} {why}: {tail}")


def _shell_form(arguments: str) -> str:
    """`RUN ["a", "b"]` (exec form) as a shell command; the shell form as it is."""
    if arguments.startswith("["):
        try:
            return shlex.join(json.loads(arguments))
        except ValueError:
            pass
    return arguments


def check_provider(provider: str) -> None:
    """Refuse an unknown provider, and `local` where nothing would keep a task's commands off this machine."""
    if provider not in PROVIDERS:
        raise ConfigError(f"unknown environment provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    if provider in REPLAYED_PROVIDERS and shutil.which("bwrap") is None:
        raise ConfigError("the local provider runs tasks under bubblewrap, which is not installed "
                          "(apt-get install bubblewrap); without it a task's commands would write to this "
                          "machine's own /app and /home. Use --provider docker instead")


def remove_orphaned_sandboxes(say: Callable[[str], None] | None) -> None:
    """Remove the containers a killed (kill -9) Helium process on this machine left, before new ones start.

    Without an engine there is nothing to do here: the trial itself reports it."""
    try:
        removed = remove_orphaned_containers()
    except SandboxError:
        return
    if removed and say is not None:
        say(f"removed {len(removed)} container(s) a killed Helium process left: {', '.join(removed)}")


def environment_spec(task: Task) -> EnvironmentSpec:
    """The environment a task asks for in task.toml (and its Dockerfile's WORKDIR, where task.toml sets none)."""
    env = task.environment
    dockerfile_dir = task.environment_dir if (task.environment_dir / "Dockerfile").is_file() else None
    workdir = env.workdir or (dockerfile_workdir(dockerfile_dir) if dockerfile_dir else None) or DEFAULT_WORKDIR
    return EnvironmentSpec(image=env.docker_image, dockerfile_dir=dockerfile_dir, cpus=env.cpus,
                           memory_mb=env.memory_mb, allow_network=env.allow_internet,
                           build_timeout_sec=env.build_timeout_sec, workdir=workdir)
