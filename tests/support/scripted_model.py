"""A scripted LangChain chat model that binds tools and streams tool calls.

langchain-core's fakes cannot stand in for a real model here: `GenericFakeChatModel` has no
`bind_tools` and drops tool calls when streaming, `FakeMessagesListChatModel` silently cycles.  This one
serves its turns once each, in order, from a cursor shared by every copy `bind_tools` makes (and safe
for parallel subagents), fails loudly when the script runs out, and streams the way a provider does:
text word by word, tool calls as `tool_call_chunks` with split arguments, usage on the last chunk.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr


class _Script:
    """The cursor and logs shared by a model and its bound copies."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.position = 0
        self.calls: list[list[BaseMessage]] = []
        self.bound_tool_names: list[str] = []


class ScriptedChatModel(BaseChatModel):
    """Answers each call with the next of `turns`; raises `RuntimeError` once they are used up.

    `calls` holds the messages of every call and `bound_tool_names` the tools of the latest
    `bind_tools`, both shared with the bound copies.
    """

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

    @property
    def remaining(self) -> int:
        """Turns not yet served."""
        return len(self.turns) - self._script.position

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable:
        self._script.bound_tool_names = [convert_to_openai_tool(t)["function"]["name"] for t in tools]
        return self.bind(**kwargs)

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        script = self._script
        with script.lock:
            script.calls.append(list(messages))
            if script.position >= len(self.turns):
                last = repr(messages[-1].text[:200]) if messages else "nothing"
                raise RuntimeError(f"ScriptedChatModel: no turns left (served {script.position}); "
                                   f"the call ended with {last}")
            turn = self.turns[script.position]
            script.position += 1
            return turn

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        turn = self._next(messages)
        reply = turn.model_copy(deep=True, update={"usage_metadata": _usage(turn, messages)})
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        # No on_llm_new_token here: BaseChatModel.stream reports each yielded chunk to the callbacks itself.
        turn = self._next(messages)
        for word in re.findall(r"\S+\s*|\s+", turn.text):
            yield ChatGenerationChunk(message=AIMessageChunk(content=word))
        for index, call in enumerate(turn.tool_calls):
            args = json.dumps(call["args"])
            half = max(1, len(args) // 2)
            for piece in (tool_call_chunk(name=call["name"], args=args[:half], id=call["id"], index=index),
                          tool_call_chunk(args=args[half:], index=index)):
                yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[piece]))
        yield ChatGenerationChunk(message=AIMessageChunk(content="", usage_metadata=_usage(turn, messages),
                                                         chunk_position="last"))


def _usage(turn: AIMessage, messages: list[BaseMessage]) -> UsageMetadata:
    """The turn's own usage if scripted, else rough counts (4 characters a token)."""
    if turn.usage_metadata:
        return turn.usage_metadata
    prompt = sum(len(m.text) for m in messages) // 4
    completion = len(turn.text) // 4 + 1
    return UsageMetadata(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion)
