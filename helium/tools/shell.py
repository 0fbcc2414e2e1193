"""The bash tool: runs a command in an environment; its permission tier is decided per command."""

from __future__ import annotations

from langchain_core.tools import BaseTool, StructuredTool

from helium.environments import Environment
from helium.tools.tiers import Tier

DEFAULT_TIMEOUT_SECONDS = 120


def bash_tool(environment: Environment) -> BaseTool:
    def bash(command: str, timeout: int = DEFAULT_TIMEOUT_SECONDS) -> str:
        """Run a bash command in the workspace root and return its exit code and its output."""
        result = environment.exec(command, timeout=max(1, timeout))
        output = result.stdout + (f"\n[stderr]\n{result.stderr}" if result.stderr else "")
        if result.timed_out:
            return f"timed out after {timeout}s (killed)\n{output}"
        return f"exit code {result.exit_code}\n{output}"

    return StructuredTool.from_function(bash, metadata={"tier": Tier.CONDITIONAL})
