"""An OpenAI-compatible `/v1/embeddings` server on 127.0.0.1 for tests of vectors, memory, skills and RAG.

Each CLI subprocess would otherwise load the offline MiniLM model (about 10 s on the test machine), so
subprocess tests point `HELIUM_EMBEDDING_BASE_URL` here.  It speaks the real protocol (rows with an
`index`, a `data` list, `usage`; rows come back in reverse order, which the protocol allows since each
names its `index`), and embeds a text as a hashed bag of its content words, so texts that share words are
close and texts that share none are orthogonal.  A request for the model `broken` gets a body that is not
an embeddings response.  In-process tests use the real model.
"""

from __future__ import annotations

import json
import re
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMENSIONS = 512
_STOPWORDS = frozenset("a an the and or of to in on at for with is are do does i me my we you it this that what "
                       "how which please can could should".split())


def bag_of_words(text: str) -> list[float]:
    vector = [0.0] * DIMENSIONS
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word not in _STOPWORDS:
            vector[zlib.crc32(word.encode()) % DIMENSIONS] += 1.0
    if not any(vector):
        vector[0] = 1.0  # an empty text still gets a (shared, meaningless) direction
    return vector


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        self.server.inputs.extend(texts)
        self.server.requests.append((self.path, self.headers.get("Authorization"), body))
        time.sleep(self.server.delay)
        rows = [{"object": "embedding", "index": i, "embedding": bag_of_words(t)} for i, t in enumerate(texts)]
        payload = json.dumps({"object": "list", "model": body.get("model"), "data": rows[::-1],
                              "usage": {"prompt_tokens": 0, "total_tokens": 0}}).encode()
        if body.get("model") == "broken":
            payload = b'{"nope": 1}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    inputs: list[str]
    requests: list[tuple[str, str | None, dict]]
    delay: float


@contextmanager
def embeddings_server(delay: float = 0.0) -> Iterator[_Server]:
    """A running server answering each request after `delay` seconds; `inputs` lists every text it
    embedded, `requests` each request's (path, Authorization header, body)."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.inputs, server.requests, server.delay = [], [], delay
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def base_url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_port}/v1"
