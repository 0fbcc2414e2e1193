"""The public import paths of the runner: `from helium import …` stays light until used; `helios` is the same API."""

from __future__ import annotations

import subprocess
import sys

from tests.runner.conftest import REPO


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)


def test_importing_helium_does_not_load_langgraph_until_the_runner_is_used() -> None:
    done = python("import sys, helium; assert 'langgraph' not in sys.modules, 'langgraph loaded early'; "
                  "from helium import AgentRunner, RunResult, ParallelRunner, BatchResult, discover_tasks; "
                  "assert 'langgraph' in sys.modules; print(AgentRunner.__module__)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "helium.runner.trial"
    missing = python("import helium; helium.Nope")
    assert "module 'helium' has no attribute 'Nope'" in missing.stderr


def test_helios_is_the_same_api() -> None:
    done = python("import helios, helium.runner as r; "
                  "assert (helios.AgentRunner, helios.ParallelRunner, helios.RunResult) == "
                  "(r.AgentRunner, r.ParallelRunner, r.RunResult); print('ok')")
    assert done.stdout.strip() == "ok", done.stderr
