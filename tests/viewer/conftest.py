"""A project with runs made by the CLI against the scripted model server, and its viewer on 127.0.0.1.

Module-scoped: the CLI runs and the server are shared by a module's tests (they run in order and
add the scripted turns they consume).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from helium.state.store import ProjectStore
from helium.viewer import ViewerHandle, serve_in_thread
from tests.conftest import Cli
from tests.support.scripted_openai import ScriptedOpenAIServer


@dataclass
class ViewedProject:
    cli: Cli
    model: ScriptedOpenAIServer
    viewer: ViewerHandle
    http: httpx.Client

    @property
    def root(self) -> Path:
        return self.cli.cwd

    def runs(self) -> list[dict]:
        """What `helium runs --json` prints, read from the store here (polling with a CLI process is slow)."""
        with ProjectStore(self.root / ".helium" / "helium.db") as store:
            return [r.to_json() for r in store.runs.list()]

    def run(self, run_id: str) -> dict:
        return next(r for r in self.runs() if r["id"] == run_id)

    def csrf(self, run_id: str) -> str:
        page = self.http.get(f"/runs/{run_id}")
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found, page.text[:500]
        return found.group(1)

    def post(self, path: str, data: dict, *, origin: str | None = None) -> httpx.Response:
        headers = {"Origin": origin if origin is not None else self.viewer.url}
        return self.http.post(path, data=data, headers=headers)


def wait_for(predicate: Callable[[], object], timeout: float = 90.0, what: str = "condition") -> None:
    """Poll until `predicate` holds; the timeout is generous because CI shares 2 cores with heavy tests."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def viewed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewedProject]:
    base = tmp_path_factory.mktemp("viewer")
    root, home = base / "project", base / "home"
    root.mkdir()
    home.mkdir()
    (root / "README.md").write_text("# Demo\n\nA demo project.\n")
    with ScriptedOpenAIServer() as model, pytest.MonkeyPatch.context() as patch:
        env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "HELIUM_BASE_URL": model.base_url,
               "HELIUM_MODEL": "scripted", "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
               "NO_COLOR": "1", "COLUMNS": "200"}
        for var in ("HELIUM_API_KEY", "OPENAI_API_KEY", "HELIUM_APPROVE", "HELIUM_TOOL_CALLING"):
            patch.delenv(var, raising=False)
        for var, value in env.items():  # the viewer runs in this process and resumes runs with these settings
            if var not in ("PYTHONPATH", "COLUMNS"):
                patch.setenv(var, value)
        viewer = serve_in_thread(root, port=0)
        try:
            with httpx.Client(base_url=viewer.url, timeout=30) as http:
                yield ViewedProject(Cli(root, env), model, viewer, http)
        finally:
            viewer.stop()
