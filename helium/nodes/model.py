"""The model node: one model turn, streamed, with native or prompt-mode tool calls."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from helium.errors import ToolCallFormatError
from helium.memory.recall import with_recalled
from helium.models.prompt_tools import (
    REPAIR_PROMPT,
    MalformedToolCall,
    as_prompt_messages,
    parse_reply,
    tool_format_prompt,
)
from helium.nodes.context import AgentContext
from helium.nodes.prompts import SUBAGENT_PROMPT
from helium.state.schema import AgentState, Usage, add_usage


def call_model(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    """Ask the model for its next turn; tokens stream to the caller through LangGraph's messages mode."""
    ctx = runtime.context
    system_prompt, tools = ctx.system_prompt, ctx.tools
    recalled, update = state.get("recalled"), {}
    if recalled is None and ctx.context_chooser is not None and not state.get("agent_name"):
        recalled = update["recalled"] = ctx.context_chooser.choose(_first_user_message(state["messages"]))
    system_prompt = with_recalled(system_prompt, recalled)
    if state.get("agent_name"):  # a subagent: its role on top, and only its tools
        system_prompt = SUBAGENT_PROMPT.format(base=system_prompt, name=state["agent_name"], role=state["role"])
        tools = [t for t in ctx.tools if t.name in state.get("allowed_tools", [])]
    if ctx.tool_calling == "prompt":
        reply, usage = _prompt_mode_turn(ctx, system_prompt, tools, state["messages"])
    else:
        if tools is ctx.tools:
            model = ctx.model_with_tools  # bound once per run
        else:
            model = ctx.model.bind_tools(tools) if tools else ctx.model
        reply = model.invoke([SystemMessage(system_prompt), *state["messages"]])
        usage = _usage_of(reply)
    return {"messages": [reply], "turns": _turn_number(state), "usage": usage, **update}


def _first_user_message(messages: list[BaseMessage]) -> str:
    """What a run's recalled memory and skills are chosen by: the user's first message of the run."""
    return next((m.text for m in messages if isinstance(m, HumanMessage)), "")


def _turn_number(state: AgentState) -> int:
    """Turns count from the user's latest message: a long conversation is not one long task."""
    return 1 if isinstance(state["messages"][-1], HumanMessage) else state.get("turns", 0) + 1


def _prompt_mode_turn(ctx: AgentContext, system_prompt: str, tools: list[BaseTool],
                      history: list[BaseMessage]) -> tuple[AIMessage, Usage]:
    """Text-only tool calling: parse the strict format, re-ask once if malformed, then fail clearly."""
    messages = [SystemMessage(f"{system_prompt}\n\n{tool_format_prompt(tools)}"),
                *as_prompt_messages(history)]
    raw = ctx.model.invoke(messages)
    usage = _usage_of(raw)
    try:
        prose, calls = parse_reply(raw.text)
    except MalformedToolCall as first:
        repair = [*messages, AIMessage(raw.text), HumanMessage(REPAIR_PROMPT.format(error=first))]
        raw = ctx.model.invoke(repair)
        usage = add_usage(usage, _usage_of(raw))
        try:
            prose, calls = parse_reply(raw.text)
        except MalformedToolCall as second:
            raise ToolCallFormatError(
                f"the model's tool call was malformed twice ({second}); use a model that follows the format, "
                "or one with native tool calls (--tool-calling native)"
            ) from None
    return AIMessage(content=prose, tool_calls=calls, id=raw.id, usage_metadata=raw.usage_metadata), usage


def _usage_of(message: AIMessage) -> Usage:
    meta = message.usage_metadata or {}
    return {"input_tokens": meta.get("input_tokens", 0), "output_tokens": meta.get("output_tokens", 0)}
