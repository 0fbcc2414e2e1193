"""The test doubles speak the real protocols: the OpenAI client, ChatOpenAI and LangGraph read them right."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TypedDict

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, StateGraph

from tests.support.scripted_model import ScriptedChatModel
from tests.support.scripted_openai import ScriptedOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
HI = [{"role": "user", "content": "hi"}]
TOOL_TURN = {"content": "Let me check both.",
             "tool_calls": [{"id": "call_1", "name": "read_file", "arguments": {"path": "a.txt"}},
                            {"id": "call_2", "name": "grep", "arguments": {"pattern": "def ", "path": "src"}}],
             "usage": {"prompt_tokens": 11, "completion_tokens": 7}}
EXPECTED_CALLS = [{"name": "read_file", "args": {"path": "a.txt"}, "id": "call_1", "type": "tool_call"},
                  {"name": "grep", "args": {"pattern": "def ", "path": "src"}, "id": "call_2", "type": "tool_call"}]


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return path


@tool
def grep(pattern: str, path: str) -> str:
    """Search files."""
    return pattern


def client(server: ScriptedOpenAIServer, max_retries: int = 2) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=max_retries)


def test_streamed_turn_has_the_openai_shape() -> None:
    with ScriptedOpenAIServer([TOOL_TURN]) as server:
        chunks = list(client(server).chat.completions.create(
            model="m", messages=HI, stream=True, stream_options={"include_usage": True}))
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    assert deltas[0].role == "assistant"
    words = [d.content for d in deltas if d.content]
    assert len(words) == 4 and "".join(words) == "Let me check both."
    calls: dict[int, dict[str, str]] = {}
    fragments: dict[int, int] = {}
    for tc in (tc for d in deltas for tc in d.tool_calls or []):
        call = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
        call["id"] += tc.id or ""
        call["name"] += tc.function.name or ""
        call["arguments"] += tc.function.arguments or ""
        fragments[tc.index] = fragments.get(tc.index, 0) + 1
    assert [(c["id"], c["name"], json.loads(c["arguments"])) for c in calls.values()] == \
        [(c["id"], c["name"], c["args"]) for c in EXPECTED_CALLS]
    assert fragments == {0: 2, 1: 2}
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert (chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens, chunks[-1].usage.total_tokens) == \
        (11, 7, 18)
    assert server.requests[0]["stream"] is True and server.remaining == 0


def test_plain_turns_raw_arguments_and_default_usage() -> None:
    raw = '{"path": "a.txt"'  # malformed on purpose: sent verbatim
    turns = [{"content": "hello there"}, {"tool_calls": [{"id": "c9", "name": "read_file", "arguments": raw}]}]
    with ScriptedOpenAIServer(turns) as server:
        openai_client = client(server)
        plain = openai_client.chat.completions.create(model="m", messages=HI)
        streamed = list(openai_client.chat.completions.create(model="m", messages=HI, stream=True))
        assert openai_client.models.list().data[0].id == "scripted"
    assert plain.object == "chat.completion" and plain.choices[0].message.content == "hello there"
    assert plain.choices[0].finish_reason == "stop"
    assert plain.usage is not None and plain.usage.prompt_tokens > 0 and plain.usage.completion_tokens == 3
    arguments = "".join(tc.function.arguments or "" for c in streamed if c.choices
                        for tc in c.choices[0].delta.tool_calls or [])
    assert arguments == raw and all(c.usage is None for c in streamed)
    assert [r["messages"] for r in server.requests] == [HI, HI]


def test_error_turns_are_retried_by_the_client_and_an_exhausted_script_fails() -> None:
    with ScriptedOpenAIServer([{"status": 429}, {"status": 503}, {"content": "ok"}, {"status": 429}]) as server:
        assert client(server).chat.completions.create(model="m", messages=HI).choices[0].message.content == "ok"
        assert len(server.requests) == 3
        with pytest.raises(openai.RateLimitError) as limited:
            client(server, max_retries=0).chat.completions.create(model="m", messages=HI)
        assert limited.value.response.headers["retry-after-ms"] == "1"
        assert limited.value.body == {"message": "scripted error 429", "type": "requests",
                                      "code": "rate_limit_exceeded"}
        with pytest.raises(openai.InternalServerError, match=r"no turns left \(served 4\)") as exhausted:
            client(server, max_retries=0).chat.completions.create(model="m", messages=HI)
        assert "retry-after-ms" not in exhausted.value.response.headers
        assert len(server.requests) == 5


def test_when_turns_go_to_the_request_that_mentions_them() -> None:
    turns = [{"when": "TASK-B", "content": "for b"}, {"content": "anyone"}, {"when": "TASK-A", "content": "for a"}]
    with ScriptedOpenAIServer(turns) as server:
        openai_client = client(server, max_retries=0)

        def ask(text: str) -> str | None:
            messages = [{"role": "user", "content": text}]
            return openai_client.chat.completions.create(model="m", messages=messages).choices[0].message.content

        assert [ask("do TASK-A"), ask("hello"), ask("do TASK-B")] == ["for a", "anyone", "for b"]
        server.add_turns([{"when": "TASK-C", "content": "for c"}])
        with pytest.raises(openai.InternalServerError, match=r"no turn for this request \(served 3; 1 wait"):
            ask("hello")


def test_a_client_hanging_up_mid_stream_is_ignored(capfd: pytest.CaptureFixture[str]) -> None:
    turn = {"content": " ".join(["word"] * 50), "chunk_delay": 0.01}
    with ScriptedOpenAIServer([turn, {"content": "still here"}]) as server:
        body = {"model": "m", "messages": HI, "stream": True}
        with httpx.stream("POST", f"{server.base_url}/chat/completions", json=body) as response:
            assert next(response.iter_lines()).startswith("data: ")
        deadline = time.monotonic() + 5  # let the handler hit the closed socket and finish
        while any("process_request" in t.name for t in threading.enumerate()) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert client(server).chat.completions.create(model="m", messages=HI).choices[0].message.content == \
            "still here"
    assert capfd.readouterr().err == ""


def test_stop_without_start_returns_and_base_url_is_known_before_start() -> None:
    server = ScriptedOpenAIServer()
    assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
    server.stop()


def test_runs_as_a_script(tmp_path: Path) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps([{"content": "from a file"}]))
    process = subprocess.Popen([sys.executable, "-m", "tests.support.scripted_openai", "--script", str(script),
                                "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        ready, base_url = process.stdout.readline().split()
        assert ready == "READY"
        reply = httpx.post(f"{base_url}/chat/completions", json={"model": "m", "messages": HI}).json()
        assert reply["choices"][0]["message"]["content"] == "from a file"
    finally:
        process.terminate()
        process.wait(timeout=5)


def test_chat_openai_streams_tool_calls_and_usage() -> None:
    with ScriptedOpenAIServer([TOOL_TURN]) as server:
        model = ChatOpenAI(base_url=server.base_url, api_key="x", model="scripted", stream_usage=True)
        chunks = list(model.bind_tools([read_file, grep]).stream("look around"))
    assert sum(1 for c in chunks if c.content) == 4
    reply = sum(chunks[1:], chunks[0])
    assert isinstance(reply, AIMessageChunk)
    assert reply.content == "Let me check both." and reply.tool_calls == EXPECTED_CALLS
    assert reply.usage_metadata is not None
    assert (reply.usage_metadata["input_tokens"], reply.usage_metadata["output_tokens"]) == (11, 7)
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == ["read_file", "grep"]


def scripted_turn() -> AIMessage:
    return AIMessage(content="Let me check both.", tool_calls=EXPECTED_CALLS,
                     usage_metadata={"input_tokens": 11, "output_tokens": 7, "total_tokens": 18})


def test_scripted_model_streams_like_a_provider() -> None:
    model = ScriptedChatModel(turns=[scripted_turn()])
    bound = model.bind_tools([read_file, grep])
    chunks = list(bound.stream([HumanMessage("go")]))
    assert [c.content for c in chunks if c.content] == ["Let ", "me ", "check ", "both."]
    assert [len(c.tool_call_chunks) for c in chunks if c.tool_call_chunks] == [1, 1, 1, 1]
    reply = sum(chunks[1:], chunks[0])
    assert isinstance(reply, AIMessageChunk)
    assert reply.content == "Let me check both." and reply.tool_calls == EXPECTED_CALLS
    assert reply.usage_metadata == {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18}
    assert model.bound_tool_names == ["read_file", "grep"] and model.remaining == 0


def test_scripted_model_shares_one_cursor_records_calls_and_never_cycles() -> None:
    model = ScriptedChatModel(turns=[scripted_turn(), AIMessage("done")])
    first, second = model.bind_tools([read_file]), model.bind_tools([grep])
    invoked = first.invoke("go")
    assert invoked.tool_calls == EXPECTED_CALLS and invoked.usage_metadata["output_tokens"] == 7
    plain = second.invoke([HumanMessage("again")])
    assert plain.content == "done" and plain.usage_metadata["output_tokens"] == 2
    assert model.bound_tool_names == ["grep"]
    assert [[m.text for m in call] for call in model.calls] == [["go"], ["again"]]
    with pytest.raises(RuntimeError, match=r"no turns left \(served 2\)"):
        model.invoke("more")
    assert len(model.calls) == 3


class _State(TypedDict):
    messages: list[BaseMessage]


def test_langgraph_streams_each_scripted_token_once() -> None:
    model = ScriptedChatModel(turns=[scripted_turn()])
    graph = StateGraph(_State)
    bound = model.bind_tools([read_file, grep])
    graph.add_node("model", lambda state: {"messages": [bound.invoke(state["messages"])]})
    graph.add_edge(START, "model")
    graph.add_edge("model", END)
    streamed = [chunk for chunk, _ in graph.compile().stream({"messages": [HumanMessage("go")]},
                                                             stream_mode="messages")]
    reply = sum(streamed[1:], streamed[0])
    assert reply.content == "Let me check both." and reply.tool_calls == EXPECTED_CALLS
