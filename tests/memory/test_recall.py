"""What a new run's prompt gets from memory and contextual skills, chosen once and kept in the run's state."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from helium.config import Settings
from helium.graphs.agent_loop import build_agent_loop, recursion_limit
from helium.memory.recall import ContextChooser, describe_recalled, with_recalled
from helium.memory.store import MemoryStore
from helium.memory.triples import Extraction
from helium.nodes.context import AgentContext
from helium.skills import load_skills
from helium.state.store import ProjectStore
from helium.state.vectors import VectorStore
from tests.support.scripted_model import ScriptedChatModel

REVIEWER = """\
---
name: reviewer
description: Review Python code for bugs, style problems and missing type hints. Use when the user asks for a code review.
type: contextual
---
REVIEW-CHECKLIST: look for bugs first, then style.
"""


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no user skills leak in
    skill = tmp_path / ".helium" / "skills" / "reviewer" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(REVIEWER)
    return tmp_path


def chooser(workspace: Path, memory: MemoryStore, run_id: str = "run-new") -> ContextChooser:
    """With the default thresholds, which these tests check against the real embedding model."""
    defaults = Settings(workspace=workspace)
    return ContextChooser(workspace, run_id, memory.vectors, memory, defaults.memory_threshold, defaults.skill_threshold)


def test_a_contextual_skill_fires_for_a_relevant_message_only(workspace: Path, memory: MemoryStore) -> None:
    relevant = chooser(workspace, memory).choose("please review my python module for bugs")
    assert [s["name"] for s in relevant["skills"]] == ["reviewer"]
    assert relevant["skills"][0]["similarity"] > 0.35 and "REVIEW-CHECKLIST" in relevant["skills"][0]["body"]
    assert "REVIEW-CHECKLIST" in with_recalled("base prompt", relevant)
    unrelated = chooser(workspace, memory).choose("what is the capital of France?")
    assert unrelated["skills"] == []
    assert with_recalled("base prompt", unrelated) == "base prompt"


def test_a_skill_threshold_of_its_own_wins(workspace: Path, memory: MemoryStore) -> None:
    path = workspace / ".helium" / "skills" / "reviewer" / "SKILL.md"
    path.write_text(REVIEWER.replace("type: contextual", "type: contextual\nthreshold: 0.95"))
    assert chooser(workspace, memory).choose("please review my python module for bugs")["skills"] == []


def test_a_malformed_contextual_entry_is_skipped_with_a_warning(workspace: Path) -> None:
    (workspace / ".helium" / "skills" / "bad.md").write_text(
        "---\ndescription: fires on everything\ntype: contextual\nthreshold: high\n---\nbody\n")
    catalog = load_skills(workspace)
    assert [s.name for s in catalog.contextual()] == ["reviewer"]
    [warning] = catalog.warnings
    assert "bad.md" in warning and "'threshold'" in warning


def test_relevant_facts_and_recent_summaries_are_recalled(workspace: Path, memory: MemoryStore) -> None:
    for text in ("I prefer tabs over spaces", "The API uses PostgreSQL 16"):
        memory.add(text, Extraction([], "fallback", "none"))
    memory.save_summary("older", "chat", "t", "Set up the CI pipeline.")
    recalled = chooser(workspace, memory).choose("how should I indent this python file?")
    assert [f["text"] for f in recalled["facts"]] == ["I prefer tabs over spaces"]  # PostgreSQL is below the threshold
    assert recalled["summaries"] == [{"run_id": "older", "text": "Set up the CI pipeline."}]
    prompt = with_recalled("base", recalled)
    assert "- [1] I prefer tabs over spaces" in prompt and "(run older) Set up the CI pipeline." in prompt
    assert describe_recalled(recalled)[0].startswith("memory: 1 fact(s) ([1] I prefer tabs over spaces)")
    assert chooser(workspace, memory, run_id="older").choose("hello")["summaries"] == []  # not its own


def test_nothing_is_embedded_when_there_is_nothing_to_compare(tmp_path: Path, project_store: ProjectStore,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))

    class Refusing:
        name = "refusing"

        def embed(self, texts):  # noqa: ANN001, ANN202
            raise AssertionError("embedded with nothing to compare")

    memory = MemoryStore.open(project_store, VectorStore(tmp_path / "chroma", Refusing()))
    assert chooser(tmp_path, memory).choose("hello") == {"facts": [], "summaries": [], "skills": []}


def test_the_choice_is_kept_in_the_state_for_the_rest_of_the_run(workspace: Path, memory: MemoryStore,
                                                                project_store: ProjectStore) -> None:
    memory.add("I prefer tabs over spaces", Extraction([], "fallback", "none"))
    run = project_store.runs.create("chat", "t", "scripted")
    model = ScriptedChatModel(turns=[AIMessage("first"), AIMessage("second")])
    ctx = AgentContext(run_id=run.id, model=model, tools=[], store=project_store, system_prompt="base",
                       approval="deny", permissions_path=workspace / "permissions.toml",
                       context_chooser=chooser(workspace, memory, run.id))
    graph = build_agent_loop(project_store.checkpointer, name="chat")
    config = {"configurable": {"thread_id": run.id}, "recursion_limit": recursion_limit(5)}
    graph.invoke({"messages": [HumanMessage("please review my python code; I indent with tabs")]}, config, context=ctx)
    first = graph.get_state(config).values["recalled"]
    assert [s["name"] for s in first["skills"]] == ["reviewer"] and len(first["facts"]) == 1

    memory.add("I indent python with four spaces now", Extraction([], "fallback", "none"))  # would be chosen now
    graph.invoke({"messages": [HumanMessage("and what about style?")]}, config, context=ctx)
    assert graph.get_state(config).values["recalled"] == first
    system_prompts = [call[0].content for call in model.calls]
    assert system_prompts[0] == system_prompts[1] and "four spaces" not in system_prompts[1]
    assert "REVIEW-CHECKLIST" in system_prompts[0] and "I prefer tabs over spaces" in system_prompts[0]
