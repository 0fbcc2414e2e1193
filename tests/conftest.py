"""Shared fixtures: a scripted OpenAI-compatible server on 127.0.0.1 and the helium CLI run as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.scripted_openai import ScriptedOpenAIServer


@pytest.fixture
def model_server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as server:
        yield server


@dataclass
class Cli:
    """Runs `python -m helium` in a project directory, the way a user runs `helium` there."""

    cwd: Path
    env: dict[str, str] = field(default_factory=dict)

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "helium", *args]

    def environ(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {**os.environ, **self.env, **(extra or {})}

    def run(self, *args: str, input: str | None = None, timeout: float = 90,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(*args), cwd=self.cwd, env=self.environ(env), input=input,
                              capture_output=True, text=True, timeout=timeout)

    def popen(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        return subprocess.Popen(self.command(*args), cwd=self.cwd, env=self.environ(env), text=True,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small workspace with a few files, and a home directory of its own (no user config leaks in)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Demo\n\nA demo project.\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    return root


@pytest.fixture
def cli(project: Path, tmp_path: Path, model_server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> Cli:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "HELIUM_BASE_URL": model_server.base_url,
        "HELIUM_MODEL": "scripted",
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        "NO_COLOR": "1",
        "COLUMNS": "200",
        "HELIUM_MEMORY": "off",  # no summary calls the scripts would have to answer; tests/memory switch it on
    }
    for var in ("HELIUM_API_KEY", "OPENAI_API_KEY", "HELIUM_APPROVE", "HELIUM_TOOL_CALLING"):
        monkeypatch.delenv(var, raising=False)
    return Cli(project, env)
