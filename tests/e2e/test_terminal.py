"""On a real terminal (a pty): approvals are asked, answered, and "always" is remembered."""

from __future__ import annotations

import json
import os
import pty
import select
import sqlite3
import subprocess
import time

import pytest

from tests.conftest import Cli
from tests.e2e.test_chat_cli import audit_json, call, runs_json
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e


class Terminal:
    """`helium` attached to a pseudo-terminal, so it sees a TTY on stdin and stdout."""

    def __init__(self, cli: Cli, *args: str) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(cli.command(*args), cwd=cli.cwd, env=cli.environ({"TERM": "dumb"}),
                                     stdin=slave, stdout=slave, stderr=slave, close_fds=True)
        os.close(slave)
        self.screen = ""

    def expect(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the screen shows:\n{self.screen}")
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    self.screen += os.read(self.master, 4096).decode(errors="replace")
                except OSError:  # the process closed the terminal
                    pass

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def wait(self, timeout: float = 30) -> int:
        code = self.proc.wait(timeout=timeout)
        os.close(self.master)
        return code


def test_ask_mode_on_a_terminal_asks_and_always_writes_a_rule(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [call("write_file", path="one.txt", content="1"), call("bash", "call_2", command="rm README.md")]},
        {"tool_calls": [call("write_file", "call_3", path="two.txt", content="2")]},
        {"content": "All done."},
    ])
    term = Terminal(cli, "run", "chat", "write files")
    term.expect("allow?")
    assert "write_file" in term.screen and "one.txt" in term.screen
    term.type("a\r")
    term.expect("rm README.md")
    term.expect("allow?")
    term.type("n\r")
    term.expect("All done.")
    assert term.wait() == 3  # one call was denied by the user
    assert (cli.cwd / "one.txt").exists() and (cli.cwd / "two.txt").exists() and (cli.cwd / "README.md").exists()
    rules = (cli.cwd / ".helium" / "permissions.toml").read_text()
    assert 'tool = "write_file"' in rules
    run_id = runs_json(cli)[0]["id"]
    assert [(e["tool"], e["decision"], e["decided_by"]) for e in audit_json(cli, run_id)] == [
        ("write_file", "approved", "user"), ("bash", "denied", "user"), ("write_file", "approved", "rule")]


def test_a_locked_store_is_reported_plainly(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "first"}])
    assert cli.run("run", "chat", "create the store").returncode == 0
    holder = sqlite3.connect(cli.cwd / ".helium" / "helium.db")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        result = cli.run("run", "chat", "blocked")
    finally:
        holder.rollback()
        holder.close()
    assert result.returncode == 1
    assert "is locked by another process" in result.stderr and "Traceback" not in result.stderr


def test_langgraph_json_points_at_importable_compiled_graphs() -> None:
    import importlib.util
    from pathlib import Path

    from langgraph.graph.state import CompiledStateGraph

    root = Path(__file__).resolve().parents[2]
    config = json.loads((root / "langgraph.json").read_text())
    for name, target in config["graphs"].items():
        path, attribute = target.split(":")
        spec = importlib.util.spec_from_file_location(f"studio_{name}", root / path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        graph = getattr(module, attribute)
        assert isinstance(graph, CompiledStateGraph)
        expected = {"research": {"plan", "search", "merge", "fetch", "verify", "write"},
                    "rag": {"retrieve", "model", "cite"}}.get(name, {"model", "gate", "tools"})
        assert expected <= set(graph.get_graph().nodes)


def test_the_repl_on_a_terminal(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "Hi there, human."}, {"content": "Still here."}])
    term = Terminal(cli)
    term.expect("/help for help")
    term.type("hello\r")
    term.expect("Hi there, human.")
    term.type("/help\r")
    term.expect("/resume ID")
    term.type("first line\x1b\rsecond line\r")  # Esc+Enter starts a new line
    term.expect("Still here.")
    term.type("/exit\r")
    assert term.wait() == 0
    users = [m["content"] for m in model_server.requests[1]["messages"] if m["role"] == "user"]
    assert users == ["hello", "first line\nsecond line"]
    assert (cli.cwd / ".helium" / "repl_history").read_text().count("hello") == 1
