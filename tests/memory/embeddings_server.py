"""An OpenAI-compatible `/v1/embeddings` server on 127.0.0.1 for end-to-end tests of memory and skills.

Each CLI subprocess would otherwise load the offline MiniLM model (about 10 s on the test machine), so
subprocess tests point `HELIUM_EMBEDDING_BASE_URL` here.  It speaks the real protocol (rows with an
`index`, a `data` list, `usage`), and embeds a text as a hashed bag of its content words, so texts that
share words are close and texts that share none are orthogonal.  In-process tests use the real model.
"""

from __future__ import annotations

import json
import re
import threading
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
        payload = json.dumps({"object": "list", "model": body.get("model"),
                              "data": [{"object": "embedding", "index": i, "embedding": bag_of_words(t)}
                                       for i, t in enumerate(texts)],
                              "usage": {"prompt_tokens": 0, "total_tokens": 0}}).encode()
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


@contextmanager
def embeddings_server() -> Iterator[_Server]:
    """A running server; its `inputs` lists every text it embedded."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.inputs = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def base_url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_port}/v1"
