"""Structured answers from the model: JSON validated with pydantic, one repair re-ask, then a clear error.

Prompt-based rather than a provider's JSON mode, so it works the same on every OpenAI-compatible
endpoint (llama.cpp, Ollama, vLLM) whatever it supports.
"""

from __future__ import annotations

import json
import re
from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from helium.errors import ModelError
from helium.nodes.research.prompts import REPAIR_PROMPT
from helium.state.schema import Usage, add_usage

Schema = TypeVar("Schema", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def usage_of(message: AIMessage) -> Usage:
    meta = message.usage_metadata or {}
    return {"input_tokens": meta.get("input_tokens", 0), "output_tokens": meta.get("output_tokens", 0)}


def ask_structured(model: BaseChatModel, prompt: str, schema: type[Schema], what: str) -> tuple[Schema, Usage]:
    """Ask, parse and validate; a malformed answer gets one re-ask naming the problem."""
    messages: list[BaseMessage] = [HumanMessage(prompt)]
    reply = model.invoke(messages)
    usage = usage_of(reply)
    try:
        return parse_json(reply.text, schema), usage
    except ValueError as first:
        messages += [AIMessage(reply.text), HumanMessage(REPAIR_PROMPT.format(error=first))]
        reply = model.invoke(messages)
        usage = add_usage(usage, usage_of(reply))
        try:
            return parse_json(reply.text, schema), usage
        except ValueError as second:
            raise ModelError(f"the model's {what} was malformed twice ({second}); try again with "
                             "`helium resume`, or use a model that follows JSON instructions") from None


def parse_json(text: str, schema: type[Schema]) -> Schema:
    """The JSON object in `text` (bare, or in a ``` fence, or the outermost {...}) as `schema`."""
    fenced = _FENCE.search(text)
    candidate = fenced.group(1) if fenced else text
    start, end = candidate.find("{"), candidate.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object in the answer")
    try:
        data = json.loads(candidate[start:end + 1])
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON ({exc.msg} at character {exc.pos})") from None
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'object'}: {e['msg']}" for e in exc.errors()[:5])
        raise ValueError(f"it does not fit the shape ({problems})") from None
