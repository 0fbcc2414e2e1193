"""Loading Harbor-format tasks: every example task loads; malformed ones fail naming the file and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from helium.runner import TaskError, discover_tasks, load_task

TASKS = Path(__file__).resolve().parents[2] / "tasks"
EXAMPLES = ["broken-verifier", "create-hello-file", "fix-failing-test", "rename-across-files", "text-statistics"]


def make_task(root: Path, toml: str, *, instruction: str = "Do it.", test: bool = True,
              dockerfile: bool = True) -> Path:
    folder = root / "t"
    (folder / "tests").mkdir(parents=True)
    (folder / "environment").mkdir()
    (folder / "task.toml").write_text(toml)
    (folder / "instruction.md").write_text(instruction)
    if test:
        (folder / "tests" / "test.sh").write_text("echo 1 > /logs/verifier/reward.txt\n")
    if dockerfile:
        (folder / "environment" / "Dockerfile").write_text("FROM ubuntu:22.04\n")
    return folder


def test_every_example_task_loads_with_its_settings() -> None:
    assert [p.name for p in discover_tasks(TASKS)] == EXAMPLES
    hello = load_task(TASKS / "create-hello-file")
    assert hello.name == "create-hello-file"
    assert "/home/hello.txt" in hello.instruction
    assert hello.version == "1.0"
    assert hello.metadata["difficulty"] == "easy"
    assert hello.agent_timeout_sec == 120.0 and hello.verifier_timeout_sec == 60.0
    assert hello.environment.cpus == 1 and hello.environment.memory_mb == 512
    assert hello.has_solution
    assert all(load_task(TASKS / name).has_solution for name in EXAMPLES)


def test_schema_version_setup_commands_and_unknown_keys(tmp_path: Path) -> None:
    folder = make_task(tmp_path, """
schema_version = "1.1"
surprise = "ignored"
[agent]
timeout_sec = 5
model_hint = "ignored too"
[environment]
docker_image = "python:3.11-slim"
setup_commands = ["mkdir -p /app/data", "touch /app/data/x"]
allow_internet = true
storage_mb = 1024
[future_table]
anything = 1
""", dockerfile=False)
    task = load_task(folder / "task.toml")
    assert task.version == "1.1"
    assert task.agent_timeout_sec == 5.0
    assert task.environment.docker_image == "python:3.11-slim"
    assert task.environment.setup_commands == ("mkdir -p /app/data", "touch /app/data/x")
    assert task.environment.allow_internet is True


def test_harbor_memory_sizes_and_env_tables(tmp_path: Path) -> None:
    folder = make_task(tmp_path, """
[verifier]
env = { MODE = "strict", LEVEL = 3, FAST = true }
[solution]
env = { GREETING = "hi there" }
[environment]
memory = "2G"
storage = "10G"
gpus = 0
""")
    task = load_task(folder)
    assert task.environment.memory_mb == 2048
    assert task.verifier_env == {"MODE": "strict", "LEVEL": "3", "FAST": "true"}
    assert task.solution_env == {"GREETING": "hi there"}
    assert task.environment.workdir is None  # the Dockerfile's WORKDIR decides
    assert load_task(make_task(tmp_path / "m", '[environment]\nmemory = "512M"\nmemory_mb = 300\n')) \
        .environment.memory_mb == 300


@pytest.mark.parametrize(("toml", "named"), [
    ("[environment]\nmemory = \"lots\"\n", "[environment] memory must be a size such as \"2G\" or \"512M\""),
    ("[verifier]\nenv = { A = [1] }\n", "[verifier] env must be a table of variables"),
    ("solution = 1\n", "[solution] must be a table"),
    ("[agent]\ntimeout_sec = \"ten\"\n", "[agent] timeout_sec must be a positive number"),
    ("[verifier]\ntimeout_sec = -1\n", "[verifier] timeout_sec must be a positive number"),
    ("[environment]\nmemory_mb = true\n", "[environment] memory_mb must be a positive number"),
    ("[environment]\nsetup_commands = [1, 2]\n", "[environment] setup_commands must be a list of shell commands"),
    ("[environment]\nallow_internet = \"yes\"\n", "[environment] allow_internet must be true or false"),
    ("agent = 3\n", "[agent] must be a table"),
    ("[agent\ntimeout_sec = 1\n", "not valid TOML"),
])
def test_malformed_task_toml_names_file_and_field(tmp_path: Path, toml: str, named: str) -> None:
    folder = make_task(tmp_path, toml)
    with pytest.raises(TaskError) as caught:
        load_task(folder)
    assert str(folder / "task.toml") in str(caught.value)
    assert named in str(caught.value)


def test_missing_pieces_are_named(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="instruction.md: empty"):
        load_task(make_task(tmp_path / "a", "", instruction="  \n"))
    with pytest.raises(TaskError, match=r"tests/test.sh: missing"):
        load_task(make_task(tmp_path / "b", "", test=False))
    with pytest.raises(TaskError, match="no docker_image and .*Dockerfile does not exist"):
        load_task(make_task(tmp_path / "c", "", dockerfile=False))
    with pytest.raises(TaskError, match="no such task folder"):
        load_task(tmp_path / "nowhere")
    folder = make_task(tmp_path / "d", "")
    (folder / "task.toml").unlink()
    with pytest.raises(TaskError, match=r"task.toml: missing"):
        load_task(folder)
