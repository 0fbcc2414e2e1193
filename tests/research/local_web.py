"""A local web on 127.0.0.1 for the research tests and benchmarks: real pages from tests/data/web/pages,
a SearxNG-compatible `/search?format=json`, DuckDuckGo's HTML endpoint (`POST /html/`) answering with its
recorded markup, and bad pages (10 MB, binary served as text/html, a redirect loop, one that never answers).

Every request is counted by path, and the most requests in flight at once is recorded, so tests can
check what was fetched, how often and how concurrently.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qs, quote, urlsplit

from lxml import html as lxml_html

DATA = Path(__file__).resolve().parents[1] / "data" / "web"
PAGES = DATA / "pages"
DDG = DATA / "duckduckgo"
HUGE_BYTES = 10 * 1024 * 1024
BAD_PAGES = {
    "/bad/huge.html": "A huge page",
    "/bad/binary.html": "A binary file",
    "/bad/loop": "A redirect loop",
    "/bad/slow.html": "A page that never answers",
}
_STOPWORDS = {"the", "and", "for", "how", "are", "does", "with", "that", "this", "from", "into", "why"}


class Page:
    def __init__(self, path: Path) -> None:
        self.name = path.name
        self.body = path.read_bytes()
        tree = lxml_html.fromstring(self.body)
        self.title = " ".join((tree.findtext(".//title") or path.stem).split())
        main = tree.find(".//main")
        text = " ".join((main if main is not None else tree).text_content().split())
        self.snippet = text[:240]
        self.words = Counter(re.findall(r"[a-z0-9]+", text.lower()))
        self.title_words = set(re.findall(r"[a-z0-9]+", self.title.lower()))

    def score(self, terms: list[str], idf: dict[str, float]) -> float:
        """Title matches count most; every term weighs by how rare it is across the pages."""
        return sum((10 * (t in self.title_words) + min(self.words[t], 10)) * idf.get(t, 0.0) for t in terms)


class LocalWeb:
    """Serves the local web on a free port; settings can change while it runs (tests flip them)."""

    def __init__(self, *, latency: float = 0.0, max_results: int = 5, host: str = "127.0.0.1") -> None:
        self.pages = {f"/pages/{p.name}": Page(p) for p in sorted(PAGES.glob("*.html"))}
        self.latency = latency
        """Seconds every page waits before answering (benchmarks)."""
        self.delays: dict[str, float] = {}
        """Extra seconds before answering, per path."""
        self.max_results = max_results
        self.extra_results: list[str] = []
        """Paths appended to every search's results (the bad pages)."""
        self.searxng = "ok"   # ok | 429 | garbage | slow
        self.duckduckgo = "ok"  # ok | ratelimited
        self.counts: Counter[str] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Server((host, 0), _Handler)  # any 127.x.y.z: a loopback "host" of its own
        self._httpd.web = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="local-web", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def search(self, query: str) -> list[tuple[str, Page | None]]:
        terms = [t for t in re.findall(r"[a-z0-9]+", query.lower()) if len(t) > 2 and t not in _STOPWORDS]
        df = {t: sum(1 for page in self.pages.values() if page.words[t] or t in page.title_words) for t in terms}
        idf = {t: math.log(1 + len(self.pages) / n) for t, n in df.items() if n}
        ranked = sorted(((page.score(terms, idf), path) for path, page in self.pages.items()),
                        key=lambda x: (-x[0], x[1]))
        found: list[tuple[str, Page | None]] = [(path, self.pages[path]) for score, path in ranked[:self.max_results]
                                                if score > 0]
        return found + [(path, None) for path in self.extra_results]

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait(self, seconds: float) -> None:
        """Sleep, but return at once when the server stops."""
        self._stopping.wait(seconds)

    def serve_page_after(self, seconds: float) -> None:
        """A page's wait before answering; pages waiting at once are the client's concurrency (counted here,
        before the answer is sent, so a client that has its answer is never still counted)."""
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            self.wait(seconds)
        finally:
            with self._lock:
                self.in_flight -= 1

    def count(self, path: str) -> None:
        with self._lock:
            self.counts[path] += 1


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    web: LocalWeb


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def handle(self) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super().handle()

    def do_GET(self) -> None:
        web = self.server.web
        parts = urlsplit(self.path)
        web.count(parts.path)
        if parts.path == "/search":
            self._searxng(parse_qs(parts.query))
        elif parts.path in web.pages:
            web.serve_page_after(web.latency + web.delays.get(parts.path, 0))
            self._send(200, "text/html; charset=utf-8", web.pages[parts.path].body)
        elif parts.path.startswith("/bad/"):
            self._bad(parts.path)
        else:
            self._send(404, "text/plain", b"not found")

    def do_POST(self) -> None:
        web = self.server.web
        parts = urlsplit(self.path)
        form = parse_qs(self.rfile.read(int(self.headers.get("content-length") or 0)).decode())
        web.count(parts.path)
        if parts.path.rstrip("/") == "/html":
            self._duckduckgo(form.get("q", [""])[0])
        else:
            self._send(404, "text/plain", b"not found")

    def _searxng(self, params: dict[str, list[str]]) -> None:
        web = self.server.web
        if params.get("format") != ["json"]:
            self._send(403, "text/html", b"<h1>403 Forbidden</h1>")
            return
        if web.searxng == "429":
            self._send(429, "text/html", b"<h1>Too Many Requests</h1>")
            return
        if web.searxng == "slow":
            web.wait(10)
        if web.searxng == "garbage":
            self._send(200, "text/html", b"<html><body>Maintenance</body></html>")
            return
        query = params.get("q", [""])[0]
        results = [{"url": web.url(path), "title": page.title if page else BAD_PAGES[path],
                    "content": page.snippet if page else "", "engine": "local", "engines": ["local"],
                    "score": 1.0 / (i + 1), "positions": [i + 1], "category": "general"}
                   for i, (path, page) in enumerate(web.search(query))]
        body = {"query": query, "number_of_results": len(results), "results": results, "answers": [],
                "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []}
        self._send(200, "application/json", json.dumps(body).encode())

    def _duckduckgo(self, query: str) -> None:
        web = self.server.web
        if web.duckduckgo == "ratelimited":
            self._send(202, "text/html; charset=UTF-8", (DDG / "anomaly.html").read_bytes())
            return
        found = web.search(query)
        if not found:
            page = (DDG / "no-results.html").read_text().replace("{query}", _escape(query))
            self._send(200, "text/html; charset=UTF-8", page.encode())
            return
        block = (DDG / "result.html").read_text()
        results = "".join(block.format(quoted_url=quote(web.url(path), safe=""), rut=f"{i:08x}",
                                       title=_escape(page.title if page else BAD_PAGES[path]),
                                       host="127.0.0.1", display_url=web.url(path).split("://", 1)[1],
                                       snippet=_escape(page.snippet if page else ""))
                          for i, (path, page) in enumerate(found))
        page = (DDG / "results.html").read_text().replace("{query}", _escape(query)).replace("{results}", results)
        self._send(200, "text/html; charset=UTF-8", page.encode())

    def _bad(self, path: str) -> None:
        web = self.server.web
        if path == "/bad/huge.html":  # no content-length: the size is only known by reading
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True
            line = b"<p>" + b"all work and no play " * 48 + b"</p>\n"
            sent = 0
            while sent < HUGE_BYTES:
                self.wfile.write(line)
                sent += len(line)
        elif path == "/bad/binary.html":
            self._send(200, "text/html", bytes(range(256)) * 64)
        elif path in ("/bad/loop", "/bad/loop-2"):
            self.send_response(302)
            self.send_header("location", "/bad/loop-2" if path == "/bad/loop" else "/bad/loop")
            self.send_header("content-length", "0")
            self.end_headers()
        elif path == "/bad/slow.html":
            web.wait(60)
            self._send(200, "text/html", b"<html><body><p>Too late.</p></body></html>")
        else:
            self._send(404, "text/plain", b"not found")

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
