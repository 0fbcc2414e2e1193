"""The package's public API: what `import helium` offers a user, and what it must not load."""

from __future__ import annotations

import subprocess
import sys

import pytest

import helium
from helium.errors import HeliumError


def test_build_graph_gives_each_flow_its_compiled_graph() -> None:
    assert {"model", "gate", "tools"} <= set(helium.build_graph("chat").get_graph().nodes)
    assert {"plan", "search", "fetch", "verify", "write"} <= set(helium.build_graph("research").get_graph().nodes)
    with pytest.raises(HeliumError, match="unknown flow 'nope'"):
        helium.build_graph("nope")


def test_importing_helium_loads_no_langgraph() -> None:
    loaded = subprocess.run([sys.executable, "-c", "import sys, helium; print('langgraph' in sys.modules)"],
                            capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "False"
