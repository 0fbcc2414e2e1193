"""The bash tool: runs a command in the workspace; its permission tier is decided per command."""

from __future__ import annotations

import os
import signal
import subprocess

from langchain_core.tools import BaseTool, StructuredTool

from helium.tools.tiers import Tier
from helium.tools.workspace import Workspace

DEFAULT_TIMEOUT_SECONDS = 120


def scrubbed_environment() -> dict[str, str]:
    """The process environment minus API keys, so a command cannot print a secret into the transcript."""
    return {k: v for k, v in os.environ.items() if not (k.endswith("_API_KEY") or k in {"HELIUM_API_KEY"})}


def bash_tool(workspace: Workspace) -> BaseTool:
    def bash(command: str, timeout: int = DEFAULT_TIMEOUT_SECONDS) -> str:
        """Run a bash command in the workspace root and return its exit code and combined stdout/stderr."""
        proc = subprocess.Popen(
            ["bash", "-c", command], cwd=workspace.root, env=scrubbed_environment(),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            output, _ = proc.communicate(timeout=max(1, timeout))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
            return f"timed out after {timeout}s (killed)\n{output.decode(errors='replace')}"
        return f"exit code {proc.returncode}\n{output.decode(errors='replace')}"

    return StructuredTool.from_function(bash, metadata={"tier": Tier.CONDITIONAL})
