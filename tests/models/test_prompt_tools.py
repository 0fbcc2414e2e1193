"""The strict prompt-mode tool-call format: accepted, rejected, and rendered back for the model."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from helium.models.prompt_tools import MalformedToolCall, as_prompt_messages, parse_reply


def test_plain_text_has_no_calls() -> None:
    assert parse_reply("Just an answer.") == ("Just an answer.", [])


def test_blocks_become_tool_calls() -> None:
    prose, calls = parse_reply('Looking.\n<tool_call>\n{"name": "grep", "arguments": {"pattern": "x"}}\n</tool_call>\n'
                               '<tool_call>{"name": "ls", "arguments": {}}</tool_call>')
    assert prose == "Looking."
    assert [(c["name"], c["args"]) for c in calls] == [("grep", {"pattern": "x"}), ("ls", {})]
    assert calls[0]["id"] != calls[1]["id"]


@pytest.mark.parametrize(("text", "problem"), [
    ('<tool_call>{"name": "ls", "arguments": {}}', "not closed"),
    ("<tool_call>```json\n{}\n```</tool_call>", "not valid JSON"),
    ('<tool_call>{"name": "ls"}</tool_call>', 'exactly the keys "name" and "arguments"'),
    ('<tool_call>{"name": "ls", "arguments": "x"}</tool_call>', '"arguments" an object'),
    ('<tool_call>{"name": "ls", "arguments": {}}</tool_call> and more', "text after the last"),
])
def test_anything_off_format_is_rejected(text: str, problem: str) -> None:
    with pytest.raises(MalformedToolCall, match=problem):
        parse_reply(text)


def test_history_is_rendered_in_the_same_format() -> None:
    ai = AIMessage(content="", tool_calls=[{"name": "ls", "args": {}, "id": "c1"}])
    tool = ToolMessage("a\nb", tool_call_id="c1", name="ls")
    rendered = as_prompt_messages([HumanMessage("hi"), ai, tool])
    assert rendered[1].content == '<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>'
    assert isinstance(rendered[2], HumanMessage) and rendered[2].content.startswith('<tool_result name="ls">')
    assert parse_reply(rendered[1].content)[1][0]["name"] == "ls"
