"""The agent loop's state: small, serialisable, growing linearly with the run.

`messages` is a `DeltaChannel`: a checkpoint stores only the step's new messages and
a snapshot every `MESSAGE_SNAPSHOT_EVERY` updates, instead of re-storing the whole
list at every step (which made a 200-turn run 100+ MB in the original measurements).
"""

from __future__ import annotations

from typing import Annotated, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.graph.message import _messages_delta_reducer
from typing_extensions import TypedDict  # pydantic validates tool arguments typed with these (Python 3.11)

MESSAGE_SNAPSHOT_EVERY = 1000


class Usage(TypedDict):
    input_tokens: int
    output_tokens: int


def add_usage(total: Usage | None, more: Usage | None) -> Usage:
    """Reducer: token counts add up across model turns."""
    total = total or {"input_tokens": 0, "output_tokens": 0}
    more = more or {"input_tokens": 0, "output_tokens": 0}
    return {
        "input_tokens": total["input_tokens"] + more["input_tokens"],
        "output_tokens": total["output_tokens"] + more["output_tokens"],
    }


class Decision(TypedDict):
    """The permission gate's verdict on one tool call."""

    approved: bool
    decided_by: str  # policy | rule | user | auto-approve | deny-mode
    reason: str


class TodoItem(TypedDict):
    id: int
    title: str
    status: str  # pending | in_progress | done


class RecalledFact(TypedDict):
    id: int
    text: str
    similarity: float


class RecalledSummary(TypedDict):
    run_id: str
    text: str


class FiredSkill(TypedDict):
    name: str
    similarity: float
    body: str


class Recalled(TypedDict):
    """What memory and contextual skills added to a run's system prompt, chosen once from its first message."""

    facts: list[RecalledFact]
    summaries: list[RecalledSummary]
    skills: list[FiredSkill]
    warning: NotRequired[str]
    """Why facts and contextual skills could not be chosen (embeddings failed), when they could not."""


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], DeltaChannel(_messages_delta_reducer,
                                                       snapshot_frequency=MESSAGE_SNAPSHOT_EVERY)]
    turns: int
    """Model turns since the user's latest message; the loop stops at the flow's `max_turns`."""
    decisions: dict[str, Decision]
    """The gate's decisions for the latest model turn's tool calls, by tool-call id."""
    usage: Annotated[Usage, add_usage]
    todos: list[TodoItem]
    """The coding flow's todo list: state of the run (each subagent or run has its own), not a global."""
    agent_name: str
    """Set in a subagent's state: its name, role prompt, the only tools it may call and its turn limit."""
    role: str
    allowed_tools: list[str]
    max_turns: int
    recalled: Recalled
    """Kept in the state so a resumed or continued run keeps the same prompt instead of choosing again."""
