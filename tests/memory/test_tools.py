"""The memory tools as the model calls them: remember (with extraction), recall with relations, forget (risky)."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from helium.memory.store import MemoryStore
from helium.memory.tools import memory_tools
from helium.tools.invocation import invoke_tool
from helium.tools.permissions import needs_approval
from tests.support.scripted_model import ScriptedChatModel


def extraction(*triples: tuple[str, str, str]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": "TripleList", "id": "x", "args": {"triples": [
        {"subject": s, "predicate": p, "object": o} for s, p, o in triples]}}])


def test_remember_recall_and_forget(memory: MemoryStore) -> None:
    model = ScriptedChatModel(turns=[extraction(("I", "prefer", "tabs")), extraction()])
    remember, recall, forget = memory_tools(memory, model, run_id="r1", known_secrets=("s3cr3t-value",))

    first = invoke_tool(remember, "c1", {"fact": "I prefer tabs"})
    assert not first.is_error and first.output == "remembered [1]: I prefer tabs\nrelations by the model:\n- user prefer tabs"
    again = invoke_tool(remember, "c2", {"fact": "I  prefer tabs "})
    assert again.output == "already remembered as [1]: I prefer tabs" and len(model.calls) == 1  # no second extraction
    second = invoke_tool(remember, "c3", {"fact": "Deploys happen on Fridays"})
    assert "relations: none (the model gave no valid triples; the sentence parser found none either)" in second.output
    refused = invoke_tool(remember, "c4", {"fact": "the token is s3cr3t-value"})
    assert refused.is_error and "refused" in refused.output and memory.count() == 2

    answer = invoke_tool(recall, "c5", {"query": "what do I prefer?"}).output
    assert "facts:\n- [1] I prefer tabs (" in answer and "relations:\n- user prefer tabs [1]" in answer
    assert invoke_tool(recall, "c6", {"query": "zzz"}).output == "nothing remembered matches 'zzz'"

    assert needs_approval(forget, {"id": 1})[0]  # forgetting asks, like a file edit
    assert not needs_approval(remember, {"fact": "x"})[0] and not needs_approval(recall, {"query": "x"})[0]
    assert invoke_tool(forget, "c7", {"id": 1}).output == "forgot [1]: I prefer tabs"
    missing = invoke_tool(forget, "c8", {"id": 1})
    assert missing.is_error and "no remembered fact 1" in missing.output
