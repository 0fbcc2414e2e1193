"""The memory store on real SQLite (FTS5) and real Chroma with the offline embedder."""

from __future__ import annotations

import json

import pytest

from helium.errors import HeliumError
from helium.memory.store import COLLECTION, MemoryRefused, MemoryStore, dumps_records, export_records
from helium.memory.triples import USER, Extraction, Triple, fallback_triples
from helium.state.store import ProjectStore
from helium.state.vectors import VectorStore

FACTS = ["I prefer tabs over spaces", "The API uses PostgreSQL 16", "My name is Ada",
         "The deploy script lives in scripts/deploy.sh"]


def remember(memory: MemoryStore, text: str) -> int:
    return memory.add(text, Extraction(fallback_triples(text), "fallback"), run_id="run1").id


@pytest.fixture
def filled(memory: MemoryStore) -> MemoryStore:
    for text in FACTS:
        remember(memory, text)
    return memory


def test_recall_merges_keyword_and_meaning(filled: MemoryStore) -> None:
    by_meaning = filled.search("which database do we run?")
    assert by_meaning[0].fact.text == "The API uses PostgreSQL 16"
    assert by_meaning[0].matched == "meaning" and by_meaning[0].similarity > 0.3
    by_both = filled.search("deploy")
    assert by_both[0].fact.text == "The deploy script lives in scripts/deploy.sh"
    assert by_both[0].matched == "both"
    assert filled.keyword_search("preferring tabs") == [1]  # stemmed: preferring ~ prefer
    assert filled.search("zzzz qqqq") == []


def test_the_knowledge_graph_answers_an_entity_query(filled: MemoryStore) -> None:
    mine = filled.triples_about("what do I prefer?")
    assert {(t.subject, t.predicate, t.object) for t in mine} == {(USER, "prefer", "tabs over spaces"),
                                                                   (USER, "name", "Ada")}
    assert mine[0].predicate == "prefer"  # the relation the question asks about comes first
    api = filled.triples_about("what does the api use?")
    assert [(t.object, t.fact_id) for t in api] == [("PostgreSQL 16", 2)]
    assert filled.triples_about("what is the weather in Paris?") == []


def test_facts_persist_for_a_new_process_and_forget_removes_every_trace(project_store: ProjectStore,
                                                                        vectors: VectorStore) -> None:
    first = MemoryStore.open(project_store, vectors)
    fact_id = remember(first, "The API uses PostgreSQL 16")
    reopened = MemoryStore.open(ProjectStore(project_store.path), VectorStore(vectors.path, vectors.embedder))
    [fact] = reopened.facts()
    assert (fact.id, fact.triples[0].object, fact.extraction) == (fact_id, "PostgreSQL 16", "fallback")
    reopened.forget(fact_id)
    assert reopened.facts() == [] and reopened.triples_about("what does the api use?") == []
    assert reopened.search("database") == [] and vectors.count(COLLECTION) == 0
    with pytest.raises(HeliumError, match="no remembered fact"):
        reopened.forget(fact_id)


@pytest.mark.parametrize("text", ["my key is sk-proj-abcdefghijklmnop1234567890",
                                  "OPENAI_API_KEY=abcd1234efgh5678", "password: hunter2hunter2",
                                  "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", ""])
def test_secrets_and_empty_text_are_refused(memory: MemoryStore, text: str) -> None:
    with pytest.raises(MemoryRefused):
        memory.add(text, Extraction([], "fallback"))
    assert memory.count() == 0


def test_a_known_secret_is_refused_whatever_its_shape() -> None:
    with pytest.raises(MemoryRefused, match="looks like an API key"):
        MemoryStore.check_fact("the token is plainword42", known_secrets=("plainword42",))


def test_summaries_are_stored_per_run_redacted_and_searchable(memory: MemoryStore) -> None:
    memory.save_summary("aaa111", "chat", "first", "Set up CI. Key sk-abcdefghijklmnopqrstu was pasted.")
    memory.save_summary("bbb222", "chat", "second", "Discussed the database schema.")
    memory.save_summary("aaa111", "chat", "first", "Set up CI with GitHub Actions.")  # replaced, not added
    assert [s.run_id for s in memory.summaries()] == ["aaa111", "bbb222"]  # the replaced one is the newest
    assert [s.run_id for s in memory.summaries(exclude="aaa111")] == ["bbb222"]
    assert [s.run_id for s in memory.search_summaries("database")] == ["bbb222"]
    redacted = memory.save_summary("ccc333", "chat", "third", "Used sk-abcdefghijklmnopqrstu here")
    assert "sk-" not in redacted.text and "[redacted secret]" in redacted.text
    assert memory.forget_summary("bbb").run_id == "bbb222"


def test_export_as_json_lines_and_as_one_document(filled: MemoryStore) -> None:
    filled.save_summary("aaa111", "chat", "first", "Talked about tabs.")
    records = export_records(filled)
    lines = [json.loads(line) for line in dumps_records(records, as_json=False).splitlines()]
    assert [r["kind"] for r in lines] == ["fact"] * 4 + ["summary"]
    assert lines[0]["text"] == FACTS[0] and lines[0]["triples"][0]["predicate"] == "prefer"
    document = json.loads(dumps_records(records, as_json=True))
    assert len(document["facts"]) == 4 and document["summaries"][0]["run_id"] == "aaa111"


def test_triples_keep_how_they_were_found(memory: MemoryStore) -> None:
    fact = memory.add("I like green tea", Extraction([Triple(USER, "like", "green tea")], "model"))
    assert fact.triples[0].method == "model" and fact.extraction == "model"
