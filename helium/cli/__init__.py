"""The `helium` command: parses arguments, calls a graph through the driver, renders with rich.

Heavy imports (LangGraph, LangChain, the store) happen inside the commands that need
them, so `helium --help` starts fast.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import traceback
from pathlib import Path

from helium.cli.app import app
from helium.errors import HeliumError


def main() -> None:
    """Console entry point: user errors become one line on stderr and a non-zero exit, never a traceback."""
    try:
        app()
    except HeliumError as exc:
        _fail(str(exc))
    except sqlite3.Error as exc:
        from helium.state.store import describe_store_error

        _fail(str(describe_store_error(exc, Path(".helium") / "helium.db")))
    except Exception as exc:  # noqa: BLE001 - the last line of defence against a traceback
        if os.environ.get("HELIUM_DEBUG"):
            traceback.print_exc()
        _fail(f"unexpected {type(exc).__name__}: {exc} (set HELIUM_DEBUG=1 for a traceback)")


def _fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)
