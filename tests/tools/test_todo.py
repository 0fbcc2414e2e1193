"""Todo tools: pure functions of the state they are given."""

from __future__ import annotations

from helium.tools.invocation import invoke_tool
from helium.tools.todo import render_todos, todo_tools

TOOLS = {t.name: t for t in todo_tools()}


def test_add_update_and_list_return_the_new_list() -> None:
    added = invoke_tool(TOOLS["todo_add"], "c1", {"titles": ["read code", "fix bug"], "todos": []})
    assert added.artifact == [{"id": 1, "title": "read code", "status": "pending"},
                              {"id": 2, "title": "fix bug", "status": "pending"}]
    updated = invoke_tool(TOOLS["todo_update"], "c2", {"id": 1, "status": "done", "todos": added.artifact})
    assert updated.output == "[x] 1. read code\n[ ] 2. fix bug"
    assert invoke_tool(TOOLS["todo_list"], "c3", {"todos": updated.artifact}).artifact == updated.artifact


def test_bad_updates_are_tool_errors() -> None:
    missing = invoke_tool(TOOLS["todo_update"], "c1", {"id": 9, "status": "done", "todos": []})
    assert missing.is_error and "there is no todo 9" in missing.output
    wrong = invoke_tool(TOOLS["todo_update"], "c1", {"id": 1, "status": "finished", "todos": []})
    assert wrong.is_error and "invalid arguments for todo_update" in wrong.output


def test_the_model_never_sees_the_injected_list() -> None:
    assert "todos" not in TOOLS["todo_add"].tool_call_schema.model_json_schema()["properties"]
    assert render_todos([]) == "(no todos)"
