"""Tools the model can call, each with a permission tier (safe, risky, conditional)."""

from __future__ import annotations

from langchain_core.tools import BaseTool

from helium.environments import Environment
from helium.tools.files import file_access, file_tools
from helium.tools.shell import bash_tool


def workspace_tools(environment: Environment) -> list[BaseTool]:
    """read_file, list_dir, glob, grep, write_file, edit_file and bash, all on the environment's files."""
    return [*file_tools(file_access(environment)), bash_tool(environment)]
