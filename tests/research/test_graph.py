"""The research graph in process, driven by the CLI's run driver against the local web and a scripted
OpenAI-compatible server: plan repair, both providers failing then resuming, the chat model's research
tool, /research in the REPL, and the live display's lines."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage
from rich.console import Console

from helium.cli.driver import RunDriver
from helium.cli.repl import _slash_command
from helium.cli.session import fork_run, resume_run, thread_config
from helium.config import load_settings
from helium.errors import HeliumError, ModelError
from helium.graphs import flow_module
from helium.nodes.research.plan import Plan
from helium.nodes.research.structured import ask_structured
from helium.state.store import ProjectStore
from tests.research.local_web import LocalWeb
from tests.research.scripts import PLAN, QUESTION, research_config, research_turns
from tests.support.scripted_model import ScriptedChatModel
from tests.support.scripted_openai import ScriptedOpenAIServer


@pytest.fixture
def model() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as server:
        yield server


def driver_for(tmp_path: Path, model: ScriptedOpenAIServer, config: str) -> tuple[RunDriver, io.StringIO]:
    (tmp_path / ".helium").mkdir(exist_ok=True)
    (tmp_path / ".helium" / "config.toml").write_text(config)
    settings = load_settings(tmp_path, model="scripted", base_url=model.base_url)
    out = io.StringIO()
    store = ProjectStore(settings.db_path)
    return RunDriver(settings, store, Console(file=out, width=200), approval="auto", interactive=False), out


def test_a_malformed_plan_gets_one_repair_re_ask() -> None:
    model = ScriptedChatModel(turns=[AIMessage('{"sub_questions": [{"question": "only one"}]}'),
                                     AIMessage("```json\n" + json.dumps(PLAN) + "\n```")])
    plan, usage = ask_structured(model, "plan it", Plan, "research plan")
    assert [q.question for q in plan.sub_questions] == [q["question"] for q in PLAN["sub_questions"]]
    repair = model.calls[1][-1].text
    assert "could not be used" in repair and "sub_questions" in repair  # the re-ask names the problem


def test_a_plan_malformed_twice_is_a_clear_error() -> None:
    model = ScriptedChatModel(turns=[AIMessage("I would search for rustdoc."), AIMessage("{not json")])
    with pytest.raises(ModelError, match="research plan was malformed twice"):
        ask_structured(model, "plan it", Plan, "research plan")


def test_both_providers_failing_ends_the_run_clearly_and_resume_retries(tmp_path: Path, shared_web: LocalWeb,
                                                                       model: ScriptedOpenAIServer) -> None:
    web = shared_web
    web.max_results, web.searxng, web.duckduckgo = 1, "429", "ratelimited"
    model.add_turns(research_turns(rounds=1))
    driver, out = driver_for(tmp_path, model, research_config(web.base_url, max_rounds=1))
    try:
        outcome = driver.start("research", QUESTION)
        assert outcome.status == "failed"
        assert outcome.error.startswith("every search failed (")
        assert "DuckDuckGo answered HTTP 202 (rate limited)" in outcome.error
        assert "rate limiting (HTTP 429)" in outcome.error
        searches = web.counts["/search"]
        assert searches == 2 * 3  # each query once, then once more before giving up

        web.searxng, web.duckduckgo = "ok", "ok"  # the providers are back
        resumed = driver.drive(driver.store.runs.get(outcome.run_id), None)
        assert resumed.status == "done", resumed.error
        assert Path(resumed.result["report_path"]).is_file()
        assert web.counts["/search"] == searches + 3  # the failed searches were asked again
        assert "research · fetching 3 pages" in out.getvalue()
    finally:
        driver.store.close()
        web.searxng, web.duckduckgo, web.max_results = "ok", "ok", 5
        web.counts.clear()


def test_chat_model_calls_research_as_a_run_of_its_own(tmp_path: Path, shared_web: LocalWeb,
                                                      model: ScriptedOpenAIServer) -> None:
    shared_web.max_results = 1
    model.add_turns([
        {"tool_calls": [{"id": "call_1", "name": "research", "arguments": {"question": QUESTION}}]},
        *research_turns(rounds=1),
        {"when": "research run", "content": "Rustdoc runs documentation examples as tests [1]."},
    ])
    driver, _ = driver_for(tmp_path, model, research_config(shared_web.base_url, max_rounds=1))
    try:
        outcome = driver.start("chat", "find out how rustdoc tests documentation")
        assert outcome.status == "done", outcome.error
        child = next(r for r in driver.store.runs.list() if r.flow == "research")
        assert child.parent_id == outcome.run_id and child.status == "done"
        assert Path(child.extra["report_path"]).read_text().endswith("citations verified.\n")
        tool_result = next(m["content"] for m in model.requests[-1]["messages"] if m["role"] == "tool")
        assert f"research run {child.id}" in tool_result
        assert "## Sources" in tool_result and '"url": "http://127.0.0.1' in tool_result
    finally:
        driver.store.close()
        shared_web.max_results = 5


def test_research_in_the_repl_starts_a_research_run(tmp_path: Path, shared_web: LocalWeb,
                                                    model: ScriptedOpenAIServer,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    shared_web.max_results = 1
    model.add_turns(research_turns(rounds=1))
    driver, out = driver_for(tmp_path, model, research_config(shared_web.base_url, max_rounds=1))
    try:
        assert _slash_command(driver, "/research", QUESTION, None) is None
        [run] = driver.store.runs.list()
        assert (run.flow, run.title, run.status) == ("research", QUESTION, "done")
        shown = out.getvalue()
        assert "pages fetched 3/3" in shown and "# Rustdoc and rustc" in shown  # progress, then the report

        # page text lives in the page store and Chroma, never in the checkpoints
        page_sentence = "The triple backticks start and end code blocks."
        texts = [row[0] for row in driver.store.conn.execute("SELECT text FROM research_pages")]
        assert any(page_sentence in (text or "") for text in texts)
        graph = flow_module("research").build_graph(driver.store.checkpointer)
        history = [json.dumps(s.values, default=str) for s in graph.get_state_history(thread_config(run.id))]
        assert history and not any(page_sentence in values for values in history)
        assert any("documentation-tests.html" in values for values in history)  # the state keeps URLs
    finally:
        driver.store.close()
        shared_web.max_results = 5


def test_a_research_run_forks_from_a_step_and_refuses_a_message(tmp_path: Path, shared_web: LocalWeb,
                                                                 model: ScriptedOpenAIServer) -> None:
    shared_web.max_results = 1
    shared_web.counts.clear()
    model.add_turns(research_turns(rounds=1) + research_turns(rounds=1)[1:])  # the fork writes its own report
    driver, _ = driver_for(tmp_path, model, research_config(shared_web.base_url, max_rounds=1))
    try:
        first = driver.start("research", QUESTION, {"output_dir": str(tmp_path / "first")})
        assert first.status == "done", first.error
        with pytest.raises(HeliumError, match="takes no messages"):
            resume_run(driver, first.run_id, "and what about cargo?")

        graph = flow_module("research").build_graph(driver.store.checkpointer)
        merged = next(s for s in graph.get_state_history(thread_config(first.run_id)) if s.next == ("fetch",) * 3)
        fork = fork_run(driver, first.run_id, str(merged.metadata["step"]), None)
        assert fork.status == "done", fork.error
        child = driver.store.runs.get(fork.run_id)
        assert child.parent_id == first.run_id
        assert Path(fork.result["report_path"]).parent.name == fork.run_id  # not the first run's --output
        assert (tmp_path / "first" / "report.md").read_text() != ""
        assert shared_web.counts["/search"] == 3  # the fork went on from the merge: no new searches
        assert shared_web.counts["/pages/what-is-rustc.html"] == 2  # its own pages, in its own store rows
    finally:
        driver.store.close()
        shared_web.max_results = 5
