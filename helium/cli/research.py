"""`helium run research` and `/research`: start a research run with its options kept in the run."""

from __future__ import annotations

from pathlib import Path

from helium.cli.driver import RunDriver, RunOutcome
from helium.errors import HeliumError
from helium.graphs.research import FLOW
from helium.nodes.research.settings import research_settings


def start_research(driver: RunDriver, question: str, *, searxng_url: str | None = None,
                   max_rounds: int | None = None, output_dir: Path | None = None) -> RunOutcome:
    """Check the settings (a bad one fails before a run is recorded), then research `question`."""
    if not question.strip():
        raise HeliumError("give a question to research, e.g. \"EU AI act timeline\"")
    options = {"searxng_url": searxng_url, "max_rounds": max_rounds,
               "output_dir": str(output_dir.expanduser().resolve()) if output_dir else None}
    research_settings(driver.settings, options)
    return driver.start(FLOW, question.strip(), {k: v for k, v in options.items() if v is not None})
