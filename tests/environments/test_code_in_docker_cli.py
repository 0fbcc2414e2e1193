"""`helium run code --env docker` as a user runs it: the directory goes into a container, changes come back."""

from __future__ import annotations

import json

import docker
import pytest

from tests.conftest import Cli
from tests.e2e.test_chat_cli import call, runs_json, tool_results
from tests.support.docker_engine import containers_labelled
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e


def test_a_coding_run_in_docker_brings_its_changes_back(cli: Cli, model_server: ScriptedOpenAIServer,
                                                        engine: docker.DockerClient) -> None:
    (cli.cwd / "old.txt").write_text("remove me\n")
    (cli.cwd / ".helium").mkdir(exist_ok=True)
    (cli.cwd / ".helium" / "notes").write_text("stays private\n")
    model_server.add_turns([
        {"tool_calls": [call("write_file", path="hello.py", content="print('hello from the container')\n"),
                        call("edit_file", "call_2", path="src/app.py", old_text="hello", new_text="hi")]},
        {"tool_calls": [call("bash", "call_3", command="python3 hello.py && pwd && ls -a && cat /etc/debian_version"),
                        call("bash", "call_4", command="rm old.txt")]},
        {"content": "Done in the container."},
    ])
    result = cli.run("run", "code", "add hello.py", "--env", "docker", "--auto-approve", timeout=180)
    assert result.returncode == 0, result.stderr
    assert "sandbox: docker: container of helium-sandbox:bookworm, no network" in result.stdout
    assert "Done in the container." in result.stdout
    wrote, edited, ran, removed = tool_results(model_server.requests[2])
    assert wrote == "wrote 34 bytes to hello.py" and edited == "replaced 1 occurrence(s) in src/app.py"
    lines = ran.splitlines()
    assert lines[:3] == ["exit code 0", "hello from the container", "/workspace"]
    assert ".helium" not in lines and "old.txt" in lines and removed == "exit code 0\n"
    assert "/workspace" in model_server.requests[0]["messages"][0]["content"]
    # The changes are in the user's directory now, and the output says which came back.
    assert (cli.cwd / "hello.py").read_text() == "print('hello from the container')\n"
    assert "return f'hi {name}'" in (cli.cwd / "src" / "app.py").read_text()
    assert not (cli.cwd / "old.txt").exists()
    assert "copied back from the sandbox: 1 added, 1 changed, 1 deleted (hello.py, src/app.py, old.txt)" in result.stderr
    assert (cli.cwd / ".helium" / "notes").read_text() == "stays private\n"
    assert runs_json(cli)[0]["extra"]["environment"] == "docker"
    assert containers_labelled(engine, f"code-{cli.cwd.name}") == []


def test_a_missing_image_is_one_line_before_any_run(cli: Cli, engine: docker.DockerClient) -> None:
    (cli.cwd / ".helium").mkdir(exist_ok=True)
    (cli.cwd / ".helium" / "config.toml").write_text('[images]\n"helium-sandbox:bookworm" = "helium-nothing:here"\n')
    result = cli.run("run", "code", "x", "--env", "docker", "--json")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: docker image helium-nothing:here (for helium-sandbox:bookworm) is not on this machine; "
        "`docker pull helium-nothing:here` it, or map it to a local image in the [images] table of "
        ".helium/config.toml"]
    assert json.loads(cli.run("runs", "--json").stdout) == []
