"""Fetching pages with httpx under limits: a global and a per-host concurrency limit, timeouts,
a size cap, a redirect limit and a content-type check.

`PageFetcher.fetch` is called from many threads at once (the research flow's `Send` branches) and
never raises for a bad page: the result carries the reason it was skipped.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from helium.tools.web.urls import host_of

ACCEPTED_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/pdf")
USER_AGENT = "Mozilla/5.0 (compatible; helium-research/0.1; +https://github.com/)"


@dataclass(frozen=True)
class FetchLimits:
    max_concurrency: int = 24
    per_host: int = 4
    timeout: float = 15.0
    """Seconds for the whole fetch of one page (connect, headers and body)."""
    max_bytes: int = 3_000_000
    max_redirects: int = 5


@dataclass(frozen=True)
class FetchResult:
    url: str
    final_url: str
    status: int | None
    content_type: str
    body: bytes | None
    error: str | None
    seconds: float

    @property
    def ok(self) -> bool:
        return self.error is None


class PageFetcher:
    """One httpx client (thread-safe, pooled) shared by every fetch of a run."""

    def __init__(self, limits: FetchLimits) -> None:
        self.limits = limits
        self._client = httpx.Client(follow_redirects=True, max_redirects=limits.max_redirects,
                                    timeout=httpx.Timeout(limits.timeout),
                                    headers={"user-agent": USER_AGENT,
                                             "accept": "text/html,application/xhtml+xml,text/plain;q=0.9,"
                                                       "application/pdf;q=0.8,*/*;q=0.1"},
                                    limits=httpx.Limits(max_connections=limits.max_concurrency * 2))
        self._slots = threading.BoundedSemaphore(limits.max_concurrency)
        self._hosts: dict[str, threading.BoundedSemaphore] = {}
        self._hosts_lock = threading.Lock()

    def close(self) -> None:
        self._client.close()

    def fetch(self, url: str) -> FetchResult:
        started = time.monotonic()
        with self._host_slot(host_of(url)), self._slots:
            final_url, status, content_type, body, error = self._get(url, started)
        return FetchResult(url, final_url, status, content_type, body, error, time.monotonic() - started)

    @contextmanager
    def _host_slot(self, host: str) -> Iterator[None]:
        with self._hosts_lock:
            slot = self._hosts.setdefault(host, threading.BoundedSemaphore(self.limits.per_host))
        with slot:
            yield

    def _get(self, url: str, started: float) -> tuple[str, int | None, str, bytes | None, str | None]:
        limits = self.limits
        try:
            with self._client.stream("GET", url) as response:
                final, status = str(response.url), response.status_code
                content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
                if status >= 400:
                    return final, status, content_type, None, f"HTTP {status}"
                if content_type and not content_type.startswith(ACCEPTED_TYPES):
                    return final, status, content_type, None, f"unsupported content type {content_type}"
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limits.max_bytes:
                    return final, status, content_type, None, (f"too large ({int(declared):,} bytes; the limit is "
                                                               f"{limits.max_bytes:,})")
                body = bytearray()
                for piece in response.iter_bytes():
                    body.extend(piece)
                    if len(body) > limits.max_bytes:
                        return final, status, content_type, None, f"too large (over {limits.max_bytes:,} bytes)"
                    if time.monotonic() - started > limits.timeout:
                        return final, status, content_type, None, f"timed out after {limits.timeout:g} s"
        except httpx.TooManyRedirects:
            return url, None, "", None, f"too many redirects (more than {limits.max_redirects})"
        except httpx.TimeoutException:
            return url, None, "", None, f"timed out after {limits.timeout:g} s"
        except httpx.HTTPError as exc:
            return url, None, "", None, f"{type(exc).__name__}: {' '.join(str(exc).split())[:120]}"
        data = bytes(body)
        if content_type.startswith(("text/", "application/xhtml")) and _looks_binary(data):
            return final, status, content_type, None, f"binary content served as {content_type}"
        return final, status, content_type or "text/html", data, None


def _looks_binary(data: bytes) -> bool:
    """NUL bytes or mostly undecodable bytes in the first 4 KB: not text, whatever the header says."""
    head = data[:4096]
    if b"\x00" in head:
        return True
    decoded = head.decode("utf-8", errors="replace")
    return decoded.count("\ufffd") > len(decoded) * 0.1
