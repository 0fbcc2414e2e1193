"""The `helium` command: parses arguments, calls a graph through the driver, renders with rich.

Heavy imports (LangGraph, LangChain, the store) happen inside the commands that need
them, so `helium --help` starts fast.
"""

from __future__ import annotations

import sys

from helium.cli.app import app
from helium.errors import HeliumError


def main() -> None:
    """Console entry point: user errors become one line on stderr and a non-zero exit, never a traceback."""
    try:
        app()
    except HeliumError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
