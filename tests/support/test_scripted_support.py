"""The test doubles speak the real protocols: the OpenAI client and LangChain aggregate them correctly."""

from __future__ import annotations

import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from tests.support.scripted_model import ScriptedChatModel
from tests.support.scripted_openai import ScriptedOpenAIServer

TOOL_TURN = {"content": "Checking.", "tool_calls": [{"id": "call_9", "name": "read_file",
                                                     "arguments": {"path": "a.txt"}}],
             "usage": {"prompt_tokens": 11, "completion_tokens": 7}}


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return path


def test_openai_client_streams_text_tool_calls_and_usage() -> None:
    with ScriptedOpenAIServer([TOOL_TURN, {"content": "plain"}]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x")
        chunks = list(client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}],
                                                     stream=True, stream_options={"include_usage": True}))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        args = "".join(tc.function.arguments or "" for c in chunks if c.choices
                       for tc in (c.choices[0].delta.tool_calls or []))
        assert (text, args) == ("Checking.", '{"path": "a.txt"}')
        assert chunks[-1].usage.prompt_tokens == 11
        plain = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert plain.choices[0].message.content == "plain" and len(server.requests) == 2


def test_errors_are_retried_by_the_client_and_an_empty_script_fails() -> None:
    with ScriptedOpenAIServer([{"status": 429}, {"status": 500}, {"content": "ok"}]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=2)
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "ok" and len(server.requests) == 3
        with pytest.raises(openai.InternalServerError, match="no turns left"):
            openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0).chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}])


def test_langchain_openai_aggregates_streamed_tool_calls() -> None:
    with ScriptedOpenAIServer([TOOL_TURN]) as server:
        model = ChatOpenAI(base_url=server.base_url, api_key="x", model="scripted", stream_usage=True)
        chunks = list(model.bind_tools([read_file]).stream("read a.txt"))
        reply = sum(chunks[1:], chunks[0])
        assert reply.tool_calls == [{"name": "read_file", "args": {"path": "a.txt"}, "id": "call_9",
                                     "type": "tool_call"}]
        assert reply.usage_metadata["input_tokens"] == 11
        assert server.requests[0]["tools"][0]["function"]["name"] == "read_file"


def test_scripted_model_streams_and_invokes_tool_calls_once_each() -> None:
    call = {"name": "read_file", "args": {"path": "a.txt"}, "id": "c1"}
    model = ScriptedChatModel(turns=[AIMessage(content="Looking now.", tool_calls=[call]), AIMessage("done")])
    bound = model.bind_tools([read_file])
    chunks = list(bound.stream([HumanMessage("go")]))
    assert len(chunks) > 3
    reply = sum(chunks[1:], chunks[0])
    assert reply.content == "Looking now." and reply.tool_calls[0]["args"] == {"path": "a.txt"}
    assert reply.usage_metadata["output_tokens"] > 0
    assert bound.invoke("again").content == "done"
    assert model.bound_tool_names == ["read_file"] and len(model.calls) == 2
    with pytest.raises(RuntimeError, match="no turns left"):
        model.invoke("more")
