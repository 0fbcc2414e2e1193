"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for end-to-end tests.

Standard library only, so a test (or a benchmark) can put a real HTTP endpoint in front of helium and
script exactly what "the model" says.  Each POST to ``/v1/chat/completions`` consumes the next turn of
the script; a turn is a dict:

- ``content``: the assistant's text; may be empty or absent.  Streamed word by word.
- ``tool_calls``: ``[{"id": "call_1", "name": "read_file", "arguments": {...}}]``; ``arguments`` may be
  a raw string, sent verbatim (to test malformed JSON).
- ``usage``: ``{"prompt_tokens": N, "completion_tokens": M}``; by default the prompt is counted as the
  request's characters // 4 and the completion as ``len(content) // 4 + 1``.
- ``status``: answer with this HTTP error (429, 500, 503, …) and an OpenAI-style error body instead; the
  turn is consumed.  429 and 5xx carry ``retry-after-ms: 1`` so the OpenAI client retries at once.
- ``delay``: seconds to wait before answering; ``chunk_delay``: seconds between streamed chunks.
- ``gate``: a ``threading.Event`` (in-process use only): the answer waits until the test sets it (at most
  ``gate_timeout`` seconds, default 60), holding the run at a known point however busy the machine is.
- ``finish_reason``: overrides the default (``"tool_calls"`` when there are tool calls, else ``"stop"``).
- ``when``: serve this turn to the first request whose JSON body contains this text, wherever the turn
  stands in the script; requests that match no pending ``when`` get the first turn without one.
  Parallel agents (subagents) ask in no fixed order, so their turns say whose they are.

Streaming follows the real protocol: SSE ``chat.completion.chunk`` events, a first delta with the
role, tool calls as indexed deltas with the arguments split across chunks, a usage chunk when
``stream_options.include_usage`` is set, and ``data: [DONE]``.  Once the script runs out, requests get a
500 saying so (without a retry hint, though the OpenAI client retries 500s anyway).

Run it alone with ``python -m tests.support.scripted_openai --script turns.json [--port N]``: it prints
``READY http://127.0.0.1:PORT/v1`` and serves until killed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

# HTTP status -> (type, code) of the error body, as OpenAI names them.
_ERRORS: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "invalid_request"),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


class ScriptedOpenAIServer:
    """Serves scripted turns (see the module docstring) and records every chat-completions request body.

    The socket is bound on construction, so ``base_url`` is known before ``start``.
    """

    def __init__(self, turns: list[dict] | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self._turns: list[dict] = list(turns or [])
        self._lock = threading.Lock()
        self._served = 0
        self.requests: list[dict] = []
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.script = self
        # A short poll interval keeps stop() fast; the default 0.5 s is paid by every test.
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="scripted-openai", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def remaining(self) -> int:
        """Turns not yet served."""
        with self._lock:
            return len(self._turns)

    def add_turns(self, turns: list[dict]) -> None:
        with self._lock:
            self._turns.extend(turns)

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket; streams still being written are abandoned (daemon threads)."""
        if self._thread.is_alive():  # shutdown() would wait forever for a loop that never ran
            self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _take_turn(self, body: dict) -> dict | str:
        """Record the request and pop its turn, or say why there is none."""
        text = json.dumps(body, ensure_ascii=False)
        with self._lock:
            self.requests.append(body)
            matching = [i for i, t in enumerate(self._turns) if t.get("when") and t["when"] in text]
            plain = [i for i, t in enumerate(self._turns) if not t.get("when")]
            if not matching and not plain:
                if self._turns:
                    return (f"scripted server: no turn for this request (served {self._served}; "
                            f"{len(self._turns)} wait for a `when` it lacks)")
                return f"scripted server: no turns left (served {self._served})"
            self._served += 1
            return self._turns.pop((matching or plain)[0])


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    script: ScriptedOpenAIServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: Nagle adds ~40 ms to each answer
    server: _HTTPServer

    def handle(self) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client went away (killed)
            super().handle()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output quiet

    def do_GET(self) -> None:
        if self.path.split("?")[0].rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self._error(404, f"no route for GET {self.path}")

    def do_POST(self) -> None:
        body_bytes = self.rfile.read(int(self.headers.get("content-length") or 0))
        if not self.path.split("?")[0].rstrip("/").endswith("/chat/completions"):
            self._error(404, f"no route for POST {self.path}")
            return
        try:
            body = json.loads(body_bytes or b"{}")
        except json.JSONDecodeError:
            self._error(400, "request body is not JSON")
            return
        turn = self.server.script._take_turn(body)
        if isinstance(turn, str):
            self._error(500, turn, retry=False)
            return
        gate = turn.get("gate")
        if gate is not None and not gate.wait(turn.get("gate_timeout", 60)):
            self._error(500, "scripted server: the turn's gate was never opened", retry=False)
            return
        time.sleep(turn.get("delay", 0))
        if "status" in turn:
            self._error(turn["status"], f"scripted error {turn['status']}")
        elif body.get("stream"):
            self._stream(turn, body)
        else:
            self._json(200, completion(turn, body))

    def _error(self, status: int, message: str, *, retry: bool = True) -> None:
        """An OpenAI-style error; 429 and 5xx ask the client to retry after 1 ms unless `retry` is off."""
        kind, code = _ERRORS.get(status, ("server_error", "server_error"))
        headers = {"retry-after-ms": "1"} if retry and (status == 429 or status >= 500) else {}
        self._json(status, {"error": {"message": message, "type": kind, "code": code}}, headers)

    def _json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, turn: dict, body: dict) -> None:
        # No content-length: the body ends when the connection closes, as with OpenAI's SSE.
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        for i, chunk in enumerate(stream_chunks(turn, body)):
            if i:
                time.sleep(turn.get("chunk_delay", 0))
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _arguments_text(call: dict) -> str:
    arguments = call.get("arguments", {})
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _usage(turn: dict, body: dict) -> dict[str, int]:
    usage = turn.get("usage") or {"prompt_tokens": len(json.dumps(body)) // 4,
                                  "completion_tokens": len(turn.get("content") or "") // 4 + 1}
    return {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]}


def _finish_reason(turn: dict) -> str:
    return turn.get("finish_reason") or ("tool_calls" if turn.get("tool_calls") else "stop")


def _envelope(body: dict, kind: str) -> dict[str, Any]:
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": kind, "created": int(time.time()),
            "model": body.get("model", "scripted")}


def completion(turn: dict, body: dict) -> dict:
    """The non-streaming ``chat.completion`` answer for `turn`."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.get("content") or None}
    if turn.get("tool_calls"):
        message["tool_calls"] = [{"id": c["id"], "type": "function",
                                  "function": {"name": c["name"], "arguments": _arguments_text(c)}}
                                 for c in turn["tool_calls"]]
    return {**_envelope(body, "chat.completion"),
            "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(turn)}],
            "usage": _usage(turn, body)}


def stream_chunks(turn: dict, body: dict) -> list[dict]:
    """The SSE chunks of one streamed turn, shaped as OpenAI shapes them (without the final [DONE])."""
    base = _envelope(body, "chat.completion.chunk")

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": word}) for word in re.findall(r"\S+\s*|\s+", turn.get("content") or "")]
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
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--script", required=True, help="a JSON file holding the list of turns")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args()
    with open(args.script, encoding="utf-8") as handle:
        turns = json.load(handle)
    with ScriptedOpenAIServer(turns, port=args.port) as server:
        print(f"READY {server.base_url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
