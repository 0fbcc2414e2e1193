"""Todo tools for long tasks: the list lives in the graph state, so every run has its own.

Each tool receives the current list (injected from the state, hidden from the model) and
returns its answer with the new list as the artifact; the tools node writes it back.
They have no effect outside the state, so a resumed run may simply run them again.
"""

from __future__ import annotations

from typing import Annotated, Literal

from langchain_core.tools import BaseTool, StructuredTool
from langgraph.prebuilt import InjectedState

from helium.state.schema import TodoItem
from helium.tools.tiers import Tier

STATE_KEY = "todos"
Status = Literal["pending", "in_progress", "done"]
MARKS = {"pending": "[ ]", "in_progress": "[>]", "done": "[x]"}

CurrentTodos = Annotated[list[TodoItem], InjectedState(STATE_KEY)]


def render_todos(todos: list[TodoItem]) -> str:
    return "\n".join(f"{MARKS.get(t['status'], '[?]')} {t['id']}. {t['title']}" for t in todos) or "(no todos)"


def todo_tools() -> list[BaseTool]:
    def todo_add(titles: list[str], todos: CurrentTodos) -> tuple[str, list[TodoItem]]:
        """Add steps to your todo list, in order. Use it to plan a multi-step task before you start."""
        next_id = max((t["id"] for t in todos), default=0) + 1
        added = [TodoItem(id=next_id + i, title=title.strip(), status="pending") for i, title in enumerate(titles)]
        updated = [*todos, *added]
        return render_todos(updated), updated

    def todo_update(id: int, status: Status, todos: CurrentTodos, title: str | None = None) -> tuple[str, list[TodoItem]]:
        """Mark a todo pending, in_progress or done (and optionally rename it). Keep one step in_progress."""
        if not any(t["id"] == id for t in todos):
            raise ValueError(f"there is no todo {id}; the list is:\n{render_todos(todos)}")
        updated = [TodoItem(id=t["id"], title=title or t["title"], status=status) if t["id"] == id else t
                   for t in todos]
        return render_todos(updated), updated

    def todo_list(todos: CurrentTodos) -> tuple[str, list[TodoItem]]:
        """Show your todo list with each step's status."""
        return render_todos(todos), todos

    return [StructuredTool.from_function(fn, response_format="content_and_artifact",
                                         metadata={"tier": Tier.SAFE, "state": STATE_KEY})
            for fn in (todo_add, todo_update, todo_list)]
