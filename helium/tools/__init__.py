"""Tools the model can call, each with a permission tier (safe, risky, conditional)."""

from __future__ import annotations

from langchain_core.tools import BaseTool

from helium.environments import Environment
from helium.tools.files import file_tools
from helium.tools.shell import bash_tool
from helium.tools.workspace import Workspace


def workspace_tools(workspace: Workspace, environment: Environment) -> list[BaseTool]:
    """read_file, list_dir, glob, grep, write_file, edit_file on the workspace, and bash in the environment."""
    return [*file_tools(workspace), bash_tool(environment)]
