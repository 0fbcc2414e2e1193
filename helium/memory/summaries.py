"""Conversation summaries: one model call at the end of a chat session, stored with the run's id."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from helium.memory.prompts import SUMMARY_PROMPT
from helium.memory.secrets import redact_secrets

TRANSCRIPT_CHARS = 12_000
"""The most of a conversation sent to be summarised: its start and its end, the middle cut."""
TOOL_OUTPUT_CHARS = 300


def conversation_text(messages: list[dict[str, Any]]) -> str:
    """A transcript (as `helium show --json` gives it) as plain lines, long tool outputs cut."""
    lines = []
    for m in messages:
        if m["role"] == "human":
            lines.append(f"user: {m['content']}")
        elif m["role"] == "ai":
            if m["content"]:
                lines.append(f"assistant: {m['content']}")
            lines += [f"assistant called {c['name']}({json.dumps(c['args'], ensure_ascii=False)[:200]})"
                      for c in m.get("tool_calls", [])]
        elif m["role"] == "tool":
            output = m["content"][:TOOL_OUTPUT_CHARS] + ("…" if len(m["content"]) > TOOL_OUTPUT_CHARS else "")
            lines.append(f"tool {m.get('name')}: {output}")
    text = "\n".join(lines)
    if len(text) > TRANSCRIPT_CHARS:
        head, tail = text[: TRANSCRIPT_CHARS // 3], text[-(TRANSCRIPT_CHARS * 2 // 3):]
        text = f"{head}\n[… the middle of the conversation is cut …]\n{tail}"
    return text


def has_exchange(messages: list[dict[str, Any]]) -> bool:
    """Whether there is anything to summarise: a user message and an answer."""
    return any(m["role"] == "human" for m in messages) and any(m["role"] == "ai" and m["content"] for m in messages)


def summarise(model: BaseChatModel, messages: list[dict[str, Any]], known_secrets: tuple[str, ...] = ()) -> str:
    """One model call; secrets are redacted from what is sent and from the answer."""
    transcript = redact_secrets(conversation_text(messages), known_secrets)
    reply = model.invoke([SystemMessage(SUMMARY_PROMPT), HumanMessage(transcript)])
    summary = redact_secrets(reply.text.strip(), known_secrets)
    if not summary:
        raise ValueError("the model answered with an empty summary")
    return summary
