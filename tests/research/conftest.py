"""The local web, shared by a module's tests (starting it parses the pages once)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.research.local_web import LocalWeb


@pytest.fixture(scope="module")
def shared_web() -> Iterator[LocalWeb]:
    with LocalWeb() as web:
        yield web


@pytest.fixture
def web(shared_web: LocalWeb) -> Iterator[LocalWeb]:
    """The shared local web, reset to its defaults for each test."""
    shared_web.searxng, shared_web.duckduckgo = "ok", "ok"
    shared_web.latency, shared_web.delays, shared_web.extra_results = 0.0, {}, []
    shared_web.max_results = 5
    shared_web.counts.clear()
    shared_web.max_in_flight = 0
    yield shared_web
