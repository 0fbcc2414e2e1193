"""A scripted LangChain chat model that binds tools and streams tool calls.

langchain-core's fakes cannot stand in for a real model here: `GenericFakeChatModel`
has no `bind_tools` and drops tool calls when streaming, `FakeMessagesListChatModel`
silently cycles.  This one serves its turns once each, in order, from a cursor shared
by every copy `bind_tools` makes, and fails loudly when the script runs out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr


class _Script:
    """The cursor and call log shared by a model and its bound copies."""

    def __init__(self) -> None:
        self.position = 0
        self.calls: list[list[BaseMessage]] = []
        self.bound_tool_names: list[str] = []


class ScriptedChatModel(BaseChatModel):
    turns: list[AIMessage] = Field(default_factory=list)
    _script: _Script = PrivateAttr(default_factory=_Script)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[list[BaseMessage]]:
        return self._script.calls

    @property
    def bound_tool_names(self) -> list[str]:
        return self._script.bound_tool_names

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable:
        self._script.bound_tool_names = [convert_to_openai_tool(t)["function"]["name"] for t in tools]
        return self.bind(**kwargs)

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        script = self._script
        script.calls.append(list(messages))
        if script.position >= len(self.turns):
            raise RuntimeError(f"ScriptedChatModel: no turns left (served {script.position})")
        turn = self.turns[script.position]
        script.position += 1
        return turn

    def _usage(self, turn: AIMessage, messages: list[BaseMessage]) -> dict[str, int]:
        if turn.usage_metadata:
            return dict(turn.usage_metadata)
        prompt = sum(len(m.text) for m in messages) // 4
        completion = len(turn.text) // 4 + 1
        return {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion}

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        turn = self._next(messages)
        reply = AIMessage(content=turn.content, tool_calls=turn.tool_calls,
                          usage_metadata=self._usage(turn, messages))  # type: ignore[arg-type]
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        turn = self._next(messages)
        pieces = [AIMessageChunk(content=word) for word in _words(turn.text)]
        for index, call in enumerate(turn.tool_calls):
            args = json.dumps(call["args"])
            half = max(1, len(args) // 2)
            pieces.append(AIMessageChunk(content="", tool_call_chunks=[
                tool_call_chunk(name=call["name"], args=args[:half], id=call["id"], index=index)]))
            pieces.append(AIMessageChunk(content="", tool_call_chunks=[
                tool_call_chunk(name=None, args=args[half:], id=None, index=index)]))
        pieces.append(AIMessageChunk(content="", usage_metadata=self._usage(turn, messages),  # type: ignore[arg-type]
                                     chunk_position="last"))
        for piece in pieces:
            if run_manager and piece.content:
                run_manager.on_llm_new_token(piece.text, chunk=ChatGenerationChunk(message=piece))
            yield ChatGenerationChunk(message=piece)


def _words(text: str) -> list[str]:
    words = text.split(" ")
    return [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words) if text]
