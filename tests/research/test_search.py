"""The search providers at their HTTP boundary: SearxNG's JSON API and DuckDuckGo's HTML endpoint
(through ddgs and its own HTTP client), served by the local web with recorded answer bodies."""

from __future__ import annotations

import socket

import pytest

from helium.tools.web.search import DuckDuckGoProvider, SearchFailed, SearxngProvider
from tests.research.local_web import LocalWeb


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_searxng_returns_ranked_hits_from_its_json(web: LocalWeb) -> None:
    hits = SearxngProvider(web.base_url).search("rustc lint levels allow warn deny", 3)
    assert hits[0].url == web.url("/pages/lint-levels.html")
    assert hits[0].title == "Lint Levels - The rustc book"
    assert hits[0].provider == "searxng" and len(hits) == 3
    assert web.counts["/search"] == 1


@pytest.mark.parametrize(("mode", "message"), [
    ("429", r"rate limiting \(HTTP 429\)"),
    ("garbage", "not its JSON results"),
])
def test_searxng_failures_are_one_line_each(web: LocalWeb, mode: str, message: str) -> None:
    web.searxng = mode
    with pytest.raises(SearchFailed, match=message):
        SearxngProvider(web.base_url).search("rustdoc", 3)


def test_searxng_timing_out_is_a_failure(web: LocalWeb) -> None:
    web.searxng = "slow"
    with pytest.raises(SearchFailed, match="timed out"):
        SearxngProvider(web.base_url, timeout=0.5).search("rustdoc", 3)


def test_searxng_down_says_unreachable() -> None:
    with pytest.raises(SearchFailed, match="unreachable"):
        SearxngProvider(closed_port_url()).search("rustdoc", 3)


def test_duckduckgo_parses_its_results_page_and_unwraps_redirects(web: LocalWeb) -> None:
    hits = DuckDuckGoProvider(web.url("/html/")).search("what is rustdoc", 5)
    assert [h.url for h in hits][:1] == [web.url("/pages/what-is-rustdoc.html")]  # the uddg= wrapper is gone
    assert hits[0].title == "What is rustdoc? - The rustdoc book"
    assert "rustdoc" in hits[0].snippet.lower()
    assert web.counts["/html/"] == 1  # one POST, as DuckDuckGo's HTML endpoint takes it


def test_duckduckgo_no_results_is_an_empty_list(web: LocalWeb) -> None:
    assert DuckDuckGoProvider(web.url("/html/")).search("zzzqqq", 5) == []


def test_duckduckgo_rate_limit_page_is_a_failure_not_an_empty_answer(web: LocalWeb) -> None:
    web.duckduckgo = "ratelimited"
    with pytest.raises(SearchFailed, match="HTTP 202 \\(rate limited\\)"):
        DuckDuckGoProvider(web.url("/html/")).search("rustdoc", 5)


def test_duckduckgo_down_says_unreachable() -> None:
    with pytest.raises(SearchFailed, match="unreachable"):
        DuckDuckGoProvider(closed_port_url() + "/html/", timeout=2).search("rustdoc", 5)


def test_searxng_failures_never_show_the_password_in_its_url() -> None:
    url = closed_port_url().replace("http://", "http://helium:s3cret-pass@")
    with pytest.raises(SearchFailed) as failed:
        SearxngProvider(url).search("rustdoc", 3)
    assert "s3cret-pass" not in str(failed.value) and "helium@" not in str(failed.value)
    assert str(failed.value).startswith(f"SearxNG at {url.replace('helium:s3cret-pass@', '')} is unreachable")
