"""Triple extraction: the model's structured output when valid, the sentence parser otherwise, never silently nothing."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from helium.memory.triples import USER, Triple, entities_in, extract_triples, fallback_triples, validated
from tests.support.scripted_model import ScriptedChatModel


def structured(args: dict) -> AIMessage:
    """The scripted model's answer to with_structured_output: a call of the schema's tool."""
    return AIMessage(content="", tool_calls=[{"name": "TripleList", "args": args, "id": "call_1"}])


@pytest.mark.parametrize(("sentence", "expected"), [
    ("I prefer tabs over spaces", [Triple(USER, "prefer", "tabs over spaces")]),
    ("I always use ruff for linting.", [Triple(USER, "use", "ruff for linting")]),
    ("My editor is Neovim", [Triple(USER, "editor", "Neovim")]),
    ("The API uses PostgreSQL 16", [Triple("api", "use", "PostgreSQL 16")]),
    ("The billing service depends on Stripe", [Triple("billing service", "depend on", "Stripe")]),
    ("Helium is a terminal agent", [Triple("helium", "is", "a terminal agent")]),
    ("I work at Acme and I like green tea", [Triple(USER, "work at", "Acme"), Triple(USER, "like", "green tea")]),
])
def test_the_sentence_parser_reads_simple_facts(sentence: str, expected: list[Triple]) -> None:
    assert fallback_triples(sentence) == expected


def test_the_parser_finds_nothing_in_a_sentence_without_a_relation() -> None:
    assert fallback_triples("hello there") == []


def test_validation_normalises_and_drops_bad_triples() -> None:
    triples = validated([("I", "Prefer", "tabs."), ("me", "prefer", "tabs"), ("", "uses", "x"),
                         ("The Repo", "uses", "x" * 500)])
    assert triples == [Triple(USER, "prefer", "tabs")]


def test_a_valid_model_answer_is_used() -> None:
    model = ScriptedChatModel(turns=[structured({"triples": [
        {"subject": "I", "predicate": "prefer", "object": "dark mode"},
        {"subject": "user", "predicate": "use", "object": "Firefox"}]})])
    result = extract_triples(model, "I prefer dark mode in Firefox")
    assert result.method == "model" and result.note == ""
    assert result.triples == [Triple(USER, "prefer", "dark mode"), Triple(USER, "use", "Firefox")]
    assert "subject-predicate-object" in model.calls[0][0].content  # the extraction prompt went out


def test_malformed_output_falls_back_to_the_parser_and_says_why() -> None:
    model = ScriptedChatModel(turns=[structured({"triples": "not a list"})])
    result = extract_triples(model, "I prefer tabs")
    assert result.method == "fallback"
    assert "malformed" in result.note
    assert result.triples == [Triple(USER, "prefer", "tabs")]


def test_a_failing_model_and_an_empty_answer_fall_back_too() -> None:
    broken = ScriptedChatModel(turns=[])  # raises: the script is empty
    failed = extract_triples(broken, "The CLI uses typer")
    assert failed.method == "fallback" and "model call failed" in failed.note
    assert failed.triples == [Triple("cli", "use", "typer")]

    empty = extract_triples(ScriptedChatModel(turns=[structured({"triples": []})]), "good morning")
    assert empty.triples == [] and empty.method == "fallback"
    assert "no valid triples" in empty.note and "parser found none" in empty.note


def test_entities_named_by_a_question() -> None:
    known = {"api", "postgresql 16", "billing service", USER}
    assert entities_in("what do I prefer?", known) == {USER}
    assert entities_in("What does the API use?", known) == {"api"}
    assert entities_in("which services call the billing service?", known) == {"billing service"}
    assert entities_in("what is the weather?", known) == set()
