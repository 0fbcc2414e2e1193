"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for end-to-end tests.

Each POST to /v1/chat/completions consumes the next turn of the script.  A turn is a dict:

- ``content``: the assistant's text (streamed word by word when the client streams)
- ``tool_calls``: ``[{"id": "call_1", "name": "read_file", "arguments": {...}}]``; ``arguments`` may be a
  raw string, sent verbatim (to test malformed JSON)
- ``usage``: ``{"prompt_tokens": N, "completion_tokens": M}`` (default: rough counts)
- ``status``: answer with this HTTP error (429, 500, 503, …) instead; the turn is consumed.  Errors carry
  ``retry-after-ms: 1`` so the OpenAI client retries at once
- ``delay``: seconds to wait before answering; ``chunk_delay``: seconds between streamed chunks
- ``when``: serve this turn to the first request whose body contains this text, wherever it stands in
  the script; requests that match no pending ``when`` get the first turn without one.  Parallel agents
  (subagents) ask in no fixed order, so their turns say whose they are

Streaming follows the real protocol: SSE ``chat.completion.chunk`` events, tool calls as indexed deltas
with the arguments split across chunks, a usage chunk when ``stream_options.include_usage`` is set, and
``data: [DONE]``.  Run it alone with ``python -m tests.support.scripted_openai --script turns.json``.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ERROR_TYPES = {429: "rate_limit_exceeded", 401: "invalid_api_key", 404: "model_not_found"}


class ScriptedOpenAIServer:
    """Serves scripted turns in order; records every request body."""

    def __init__(self, turns: list[dict] | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self._turns: deque[dict] = deque(turns or [])
        self._lock = threading.Lock()
        self._served = 0
        self.requests: list[dict] = []
        self._httpd = ThreadingHTTPServer((host, port), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._turns)

    def add_turns(self, turns: list[dict]) -> None:
        with self._lock:
            self._turns.extend(turns)

    def start(self) -> ScriptedOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_turn(self, body: dict) -> dict | None:
        text = json.dumps(body)
        with self._lock:
            self.requests.append(body)
            chosen = next((t for t in self._turns if t.get("when") and t["when"] in text), None) \
                or next((t for t in self._turns if not t.get("when")), None)
            if chosen is None:
                return None
            self._turns.remove(chosen)
            self._served += 1
            return chosen

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found", "type": "not_found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    self._json(400, {"error": {"message": "request body is not JSON", "type": "invalid_request"}})
                    return
                turn = server._next_turn(body)
                try:
                    if turn is None:
                        self._json(500, {"error": {"message": f"scripted server: no turns left "
                                                              f"(served {server._served})", "type": "server_error"}})
                        return
                    time.sleep(turn.get("delay", 0))
                    if "status" in turn:
                        status = turn["status"]
                        self._json(status, {"error": {"message": f"scripted error {status}",
                                                      "type": ERROR_TYPES.get(status, "server_error"),
                                                      "code": status}}, retry=True)
                    elif body.get("stream"):
                        self._stream(turn, body)
                    else:
                        self._json(200, completion(turn, body))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client went away (a killed process): nothing to answer

            def _json(self, status: int, payload: dict, retry: bool = False) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                if retry:
                    self.send_header("retry-after-ms", "1")
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, turn: dict, body: dict) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True
                for chunk in stream_chunks(turn, body):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(turn.get("chunk_delay", 0))
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        return Handler


def _arguments_text(call: dict) -> str:
    arguments = call.get("arguments", {})
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _usage(turn: dict, body: dict) -> dict:
    usage = turn.get("usage") or {
        "prompt_tokens": len(json.dumps(body.get("messages", []))) // 4,
        "completion_tokens": len(turn.get("content") or "") // 4 + 1,
    }
    return {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]}


def _finish_reason(turn: dict) -> str:
    return turn.get("finish_reason") or ("tool_calls" if turn.get("tool_calls") else "stop")


def completion(turn: dict, body: dict) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": turn.get("content") or None}
    if turn.get("tool_calls"):
        message["tool_calls"] = [{"id": c["id"], "type": "function",
                                  "function": {"name": c["name"], "arguments": _arguments_text(c)}}
                                 for c in turn["tool_calls"]]
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(turn)}],
            "usage": _usage(turn, body)}


def stream_chunks(turn: dict, body: dict) -> list[dict]:
    """The SSE chunks of one streamed turn, exactly as OpenAI shapes them."""
    base = {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": body.get("model", "scripted")}

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    content = turn.get("content") or ""
    words = content.split(" ")
    chunks += [chunk({"content": word + (" " if i < len(words) - 1 else "")})
               for i, word in enumerate(words) if content]
    for index, call in enumerate(turn.get("tool_calls") or []):
        text = _arguments_text(call)
        half = max(1, len(text) // 2)
        chunks.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                             "function": {"name": call["name"], "arguments": text[:half]}}]}))
        chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": text[half:]}}]}))
    chunks.append(chunk({}, _finish_reason(turn)))
    if (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({**base, "choices": [], "usage": _usage(turn, body)})
    return chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", required=True, help="a JSON file holding the list of turns")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    with open(args.script, encoding="utf-8") as handle:
        turns = json.load(handle)
    with ScriptedOpenAIServer(turns, port=args.port) as server:
        print(f"READY {server.base_url}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
