"""Getting a local sandbox ready: the task's Dockerfile replayed (COPY, ADD, WORKDIR, RUN) and its setup commands."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helium.environments import EnvironmentSpec, create_environment
from helium.runner.setup import SetupError, instructions, replay_dockerfile, run_setup_commands
from tests.runner.conftest import NO_BWRAP

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason=NO_BWRAP)


def sandbox(tmp_path: Path):
    environment = create_environment("local", EnvironmentSpec(), local_root=tmp_path / "root", name="setup-test")
    environment.start()
    return environment


def test_instructions_join_continued_lines_and_skip_comments() -> None:
    parsed = instructions("# base\nFROM ubuntu:22.04\n\nRUN mkdir -p /app && \\\n    touch /app/x\ncopy a /app/\n")
    assert [(i.keyword, i.arguments, i.line) for i in parsed] == [
        ("FROM", "ubuntu:22.04", 2), ("RUN", "mkdir -p /app &&  touch /app/x", 4), ("COPY", "a /app/", 6)]


@needs_bwrap
def test_replay_copies_files_makes_workdirs_and_runs_commands(tmp_path: Path) -> None:
    context = tmp_path / "environment"
    (context / "src" / "pkg").mkdir(parents=True)
    (context / "src" / "pkg" / "mod.py").write_text("X = 1\n")
    (context / "notes.txt").write_text("hello\n")
    (context / "Dockerfile").write_text(
        "FROM python:3.11-slim\nENV A=1\nWORKDIR /app\nCOPY src/ /app/src/\nCOPY --chown=1000 notes.txt ./\n"
        "ADD notes.txt /home/copy.txt\nRUN [\"bash\", \"-c\", \"echo ran > built.txt\"]\n"
        "WORKDIR sub\nRUN pwd > /app/where\n")
    environment = sandbox(tmp_path)
    replay_dockerfile(environment, context, timeout=30)
    assert environment.exec("cat /app/src/pkg/mod.py /app/notes.txt /home/copy.txt /app/built.txt /app/where").stdout \
        == "X = 1\nhello\nhello\nran\n/app/sub\n"


@needs_bwrap
@pytest.mark.parametrize(("line", "problem"), [
    ("ADD https://example.com/x.tgz /app/", "cannot fetch https://example.com/x.tgz; use the docker provider"),
    ("COPY ../secret /app/", "../secret is not a file in the task's environment/ folder"),
    ("COPY only-one", "COPY needs a source and a destination"),
    ("RUN exit 7", "'cd / && exit 7' exited with 7"),
])
def test_replay_failures_name_the_dockerfile_line(tmp_path: Path, line: str, problem: str) -> None:
    context = tmp_path / "environment"
    context.mkdir()
    (context / "Dockerfile").write_text(f"FROM ubuntu:22.04\n{line}\n")
    with pytest.raises(SetupError) as caught:
        replay_dockerfile(sandbox(tmp_path), context, timeout=30)
    assert str(caught.value).startswith(f"{context / 'Dockerfile'}:2: ")
    assert problem in str(caught.value)


@needs_bwrap
def test_setup_commands_run_in_order_and_the_first_failure_stops_them(tmp_path: Path) -> None:
    environment = sandbox(tmp_path)
    run_setup_commands(environment, ("mkdir -p /app/data", "echo one > /app/data/x"), source=Path("task.toml"),
                       timeout=30)
    assert environment.exec("cat /app/data/x").stdout == "one\n"
    with pytest.raises(SetupError, match=r"task.toml \[environment\] setup_commands: 'false' exited with 1"):
        run_setup_commands(environment, ("false", "echo never > /app/data/y"), source=Path("task.toml"), timeout=30)
    assert environment.exec("test -e /app/data/y").exit_code == 1
