"""The README's task-runner examples run verbatim (in a copy of the example tasks, with the local provider)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.conftest import NO_BWRAP, REPO, TASKS

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason=NO_BWRAP)


def readme_python_blocks() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Task runner\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.DOTALL)


def test_readme_runner_examples_run_verbatim(tmp_path: Path) -> None:
    shutil.copytree(TASKS, tmp_path / "tasks")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config"),
           "PYTHONPATH": str(REPO)}
    single, batch = readme_python_blocks()
    done = subprocess.run([sys.executable, "-c", single], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr
    assert "Success: True, reward: 1.0" in done.stdout
    assert "Tool: bash  Input: {'command': 'bash /solution/solve.sh'" in done.stdout
    done = subprocess.run([sys.executable, "-c", batch], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr
    assert "broken-verifier error 0.0" in done.stdout
    assert "4/5 passed, 0 failed, 1 errors, mean reward 0.80, pass@k 0.80" in done.stdout
    assert (tmp_path / ".helium" / "helium.db").is_file()  # the trials are runs in the project store of the cwd
