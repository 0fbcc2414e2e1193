"""Search providers behind one protocol: SearxNG's JSON API (httpx) and DuckDuckGo (the `ddgs` library).

A provider returns hits or raises `SearchFailed` with one line saying why (down, rate limited,
timed out, answered garbage); the research flow logs that as a warning and carries on with the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import httpx
from ddgs.engines.duckduckgo import Duckduckgo
from ddgs.exceptions import DDGSException, TimeoutException

from helium.tools.web.urls import unwrap_redirect, without_credentials

DUCKDUCKGO_URL = "https://html.duckduckgo.com/html/"
SEARXNG_URL = "http://127.0.0.1:8888"


@dataclass(frozen=True)
class SearchHit:
    url: str
    title: str
    snippet: str
    provider: str


class SearchFailed(Exception):
    """The provider could not answer; the message is one line for the run's warnings."""


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, limit: int) -> list[SearchHit]: ...


class SearxngProvider:
    """`GET {base_url}/search?q=…&format=json` (the instance must allow the json format)."""

    name = "searxng"

    def __init__(self, base_url: str, timeout: float = 10.0, client: httpx.Client | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._shown = without_credentials(self.base_url)
        """The URL in messages, which reach the run's warnings, `helium show` and sources.json."""
        self._client = client or httpx.Client(timeout=timeout, headers={"accept": "application/json"})

    def search(self, query: str, limit: int) -> list[SearchHit]:
        url = f"{self.base_url}/search"
        try:
            response = self._client.get(url, params={"q": query, "format": "json"})
        except httpx.TimeoutException:
            raise SearchFailed(f"SearxNG at {self._shown} timed out") from None
        except httpx.HTTPError as exc:
            raise SearchFailed(f"SearxNG at {self._shown} is unreachable ({_reason(exc)})") from None
        if response.status_code == 429:
            raise SearchFailed(f"SearxNG at {self._shown} is rate limiting (HTTP 429)")
        if response.status_code == 403:
            raise SearchFailed(f"SearxNG at {self._shown} refused the JSON format (HTTP 403): "
                               "add `json` to search.formats in its settings.yml")
        if response.status_code != 200:
            raise SearchFailed(f"SearxNG at {self._shown} answered HTTP {response.status_code}")
        try:
            results = response.json()["results"]
            return [SearchHit(str(r["url"]), str(r.get("title") or ""), str(r.get("content") or ""), self.name)
                    for r in results[:limit] if isinstance(r, dict) and r.get("url")]
        except (ValueError, KeyError, TypeError):
            raise SearchFailed(f"SearxNG at {self._shown} answered something that is not its JSON "
                               f"results ({response.text[:60]!r}…)") from None


class _Duckduckgo(Duckduckgo):
    """ddgs's DuckDuckGo engine at a configurable endpoint, telling an error status from no results."""

    def __init__(self, search_url: str, timeout: int) -> None:
        super().__init__(timeout=timeout)
        self.search_url = search_url

    def request(self, *args: Any, **kwargs: Any) -> Any:  # noqa: ANN401 - ddgs's own signature
        response = self.http_client.request(*args, **kwargs)
        if response.status_code == 200:
            return response.text
        hint = " (rate limited)" if response.status_code in (202, 403, 429) else ""
        raise SearchFailed(f"DuckDuckGo answered HTTP {response.status_code}{hint}")


class DuckDuckGoProvider:
    """DuckDuckGo's HTML endpoint through ddgs, which keeps up with its markup and its bot checks;
    only DuckDuckGo is asked (not ddgs's other engines)."""

    name = "duckduckgo"

    def __init__(self, search_url: str = DUCKDUCKGO_URL, timeout: float = 10.0) -> None:
        self._engine = _Duckduckgo(search_url, max(1, round(timeout)))

    def search(self, query: str, limit: int) -> list[SearchHit]:
        try:
            results = self._engine.search(query) or []
        except TimeoutException:
            raise SearchFailed("DuckDuckGo timed out") from None
        except DDGSException as exc:
            raise SearchFailed(f"DuckDuckGo is unreachable ({_first_line(str(exc))})") from None
        hits = [SearchHit(unwrap_redirect(r.href), r.title, r.body, self.name) for r in results if r.href]
        return [h for h in hits if h.url.startswith(("http://", "https://"))][:limit]


def _reason(exc: httpx.HTTPError) -> str:
    text = str(exc) or type(exc).__name__
    return _first_line(text)


def _first_line(text: str, width: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"
