"""Prompt-mode tool calling for models without native tool calls: one strict format, validated.

The model is told to answer either in plain text or with `<tool_call>` blocks holding
exactly `{"name": ..., "arguments": {...}}`.  Anything else that mentions a
`<tool_call>` is malformed: the caller re-asks once with the error, then gives up.
No cascade of fallbacks: the format is the API.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

OPEN, CLOSE = "<tool_call>", "</tool_call>"
_BLOCK = re.compile(re.escape(OPEN) + r"(.*?)" + re.escape(CLOSE), re.DOTALL)

TOOL_FORMAT_PROMPT = """\
# Tools
You can call these tools. Each is given as a JSON schema of its arguments.

{tool_schemas}

# How to call a tool
To call a tool, end your reply with one block per call, exactly like this:

<tool_call>
{{"name": "read_file", "arguments": {{"path": "README.md"}}}}
</tool_call>

Rules: the block holds one JSON object with exactly two keys, "name" (a tool name above) and
"arguments" (an object). No code fences, no comments, nothing after the last block. You will get
each result in a <tool_result> message. To answer the user, reply in plain text with no block."""

REPAIR_PROMPT = """\
Your last reply had a malformed tool call: {error}
Reply again. Either answer in plain text, or end with <tool_call> blocks, each holding exactly
{{"name": "<tool>", "arguments": {{...}}}} as valid JSON."""


class MalformedToolCall(ValueError):
    """The reply mentions a tool call that does not follow the format."""


def tool_format_prompt(tools: list[BaseTool]) -> str:
    schemas = "\n".join(json.dumps(convert_to_openai_tool(t)["function"], ensure_ascii=False) for t in tools)
    return TOOL_FORMAT_PROMPT.format(tool_schemas=schemas)


def parse_reply(text: str) -> tuple[str, list[ToolCall]]:
    """Split a reply into its prose and its tool calls; raise MalformedToolCall if a call is off-format."""
    blocks = list(_BLOCK.finditer(text))
    stray = _BLOCK.sub("", text)
    if OPEN in stray or CLOSE in stray:
        raise MalformedToolCall("a <tool_call> tag is not closed, or a </tool_call> has no opening tag")
    if blocks and text[blocks[-1].end():].strip():
        raise MalformedToolCall("there is text after the last </tool_call>")
    calls = [_parse_block(match.group(1)) for match in blocks]
    prose = text[: blocks[0].start()].strip() if blocks else text.strip()
    return prose, calls


def _parse_block(body: str) -> ToolCall:
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise MalformedToolCall(f"the block is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(data, dict) or set(data) != {"name", "arguments"}:
        raise MalformedToolCall('the block must be an object with exactly the keys "name" and "arguments"')
    if not isinstance(data["name"], str) or not isinstance(data["arguments"], dict):
        raise MalformedToolCall('"name" must be a string and "arguments" an object')
    return ToolCall(name=data["name"], args=data["arguments"], id=f"call_{uuid.uuid4().hex[:12]}", type="tool_call")


def as_prompt_messages(messages: list[BaseMessage]) -> list[BaseMessage]:
    """Rewrite native tool-call messages into the text format, for a model that only sees text."""
    rewritten: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, AIMessage) and message.tool_calls:
            blocks = "\n".join(f"{OPEN}\n{json.dumps(_call_json(c), ensure_ascii=False)}\n{CLOSE}"
                               for c in message.tool_calls)
            rewritten.append(AIMessage(content=f"{message.text}\n{blocks}".strip()))
        elif isinstance(message, ToolMessage):
            rewritten.append(HumanMessage(content=f'<tool_result name="{message.name}">\n{message.text}\n</tool_result>'))
        else:
            rewritten.append(message)
    return rewritten


def _call_json(call: ToolCall) -> dict[str, Any]:
    return {"name": call["name"], "arguments": call["args"]}
