"""Cross-site protection for the viewer's actions.

A page on another site could make the browser post to 127.0.0.1:8080, or rebind its own name to
127.0.0.1. So every request must name this server in its Host header (loopback names only, unless
serving remotely), and every POST must come from one of the viewer's own pages: its Origin (or
Referer) is this server, and its form carries the per-process CSRF token that only those pages hold.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class RequestGuard:
    def __init__(self, port: int, *, loopback_only: bool) -> None:
        self.token = secrets.token_urlsafe(32)
        self.loopback_only = loopback_only
        self.hosts = {f"{name}:{port}" for name in LOOPBACK_NAMES}

    def host_problem(self, host: str | None) -> str | None:
        """Why a request's Host header is refused, or None."""
        if not host:
            return "the request names no Host"
        if self.loopback_only and host.lower() not in self.hosts:
            return f"Host {host!r} is not this viewer (it answers to 127.0.0.1 and localhost only)"
        return None

    def post_problem(self, host: str, origin: str | None, referer: str | None, token: str | None) -> str | None:
        """Why a POST is refused (another site's page sent it, or it lacks the token), or None."""
        source = origin if origin and origin != "null" else referer
        if not source:
            return "the request does not say which page sent it (no Origin or Referer)"
        sent_from = urlsplit(source)
        if sent_from.scheme not in ("http", "https") or sent_from.netloc.lower() != host.lower():
            return f"the request came from another site ({sent_from.scheme}://{sent_from.netloc})"
        if not token or not hmac.compare_digest(token, self.token):
            return "the form's CSRF token is missing or stale; reload the page and try again"
        return None
