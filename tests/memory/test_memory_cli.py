"""Memory as a user meets it: `helium run chat` remembering and recalling across processes, session summaries,
and `helium memory list|search|forget|export` as subprocesses with their exit codes."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import Cli
from tests.e2e.test_chat_cli import runs_json
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e

EXTRACT = "Extract the facts"      # in the extraction prompt: these turns answer the triple extraction call
SUMMARISE = "Summarise this conversation"  # in the summary prompt


def remember_call(fact: str, call_id: str = "call_1") -> dict:
    return {"id": call_id, "name": "remember", "arguments": {"fact": fact}}


def extraction_of(fact: str) -> str:
    """A `when` matching only the extraction call for `fact` (there the fact is the whole user message)."""
    return json.dumps({"content": fact, "role": "user"})[1:-1]


def triples(*items: tuple[str, str, str]) -> str:
    return json.dumps({"triples": [{"subject": s, "predicate": p, "object": o} for s, p, o in items]})


def system_prompt(request: dict) -> str:
    return request["messages"][0]["content"]


def chat_requests(server: ScriptedOpenAIServer) -> list[dict]:
    """The agent's own model calls (not extraction or summaries)."""
    return [r for r in server.requests if EXTRACT not in system_prompt(r) and SUMMARISE not in system_prompt(r)]


def test_a_fact_remembered_in_one_run_is_in_the_prompt_of_the_next(memory_cli: Cli,
                                                                   model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [remember_call("I prefer tabs over spaces")]},
        {"when": EXTRACT, "content": triples(("I", "prefer", "tabs over spaces"))},
        {"content": "Noted: tabs."},
        {"when": SUMMARISE, "content": "The user said they prefer tabs over spaces."},
    ])
    first = memory_cli.run("run", "chat", "remember that I prefer tabs over spaces")
    assert first.returncode == 0, first.stderr
    assert "remembered [1]: I prefer tabs over spaces" in first.stdout
    [extraction] = [r for r in model_server.requests if EXTRACT in system_prompt(r)]
    assert extraction["response_format"]["type"] == "json_schema"  # structured output, validated on return
    assert extraction["messages"][-1]["content"] == "I prefer tabs over spaces"
    first_id = re.search(r"memory: saved a summary of run (\w+)", first.stderr)[1]  # type: ignore[index]

    model_server.add_turns([{"content": "Use tabs."}, {"when": SUMMARISE, "content": "Asked about indentation."}])
    second = memory_cli.run("run", "chat", "should I indent with tabs or spaces?", "--json")  # a new process
    assert second.returncode == 0, second.stderr
    prompt = system_prompt(chat_requests(model_server)[-1])
    assert "- [1] I prefer tabs over spaces" in prompt
    assert f"(run {first_id}) The user said they prefer tabs over spaces." in prompt
    second_id = json.loads(second.stdout)["run_id"]

    shown = memory_cli.run("show", second_id)
    assert "memory: 1 fact(s) ([1] I prefer tabs over spaces), 1 summary(ies) of runs " + first_id in shown.stdout
    recalled = json.loads(memory_cli.run("show", second_id, "--json").stdout)["recalled"]
    assert [f["text"] for f in recalled["facts"]] == ["I prefer tabs over spaces"]
    history = json.loads(memory_cli.run("history", second_id, "--json").stdout)
    assert any(s["node"] == "model" and "memory: 1 fact(s)" in s["summary"] for s in history)

    model_server.add_turns([{"content": "It is sunny."}, {"when": SUMMARISE, "content": "Weather."}])
    assert memory_cli.run("run", "chat", "what is the weather in Paris", "--json").returncode == 0
    unrelated = system_prompt(chat_requests(model_server)[-1])
    assert "I prefer tabs" not in unrelated  # below the similarity threshold
    assert "Asked about indentation." in unrelated  # recent summaries come along regardless


@pytest.fixture
def remembered(memory_cli: Cli, model_server: ScriptedOpenAIServer) -> str:
    """Two facts (one extracted by the model, one by the parser after malformed output) and one summary."""
    model_server.add_turns([
        {"tool_calls": [remember_call("I prefer tabs over spaces"),
                        remember_call("The API uses PostgreSQL 16", "call_2")]},
        {"when": extraction_of("I prefer tabs over spaces"), "content": triples(("user", "prefer", "tabs over spaces"))},
        {"when": extraction_of("The API uses PostgreSQL 16"), "content": "Sure! The triples: api -> PostgreSQL"},
        {"content": "Both noted."},
        {"when": SUMMARISE, "content": "The user shared their indentation preference and the API's database."},
    ])
    result = memory_cli.run("run", "chat", "note my preferences")
    assert result.returncode == 0, result.stderr
    assert "relations by the sentence parser (the model's output was malformed" in json.dumps(
        chat_requests(model_server)[-1])
    return runs_json(memory_cli)[0]["id"]


def test_memory_list_search_forget_and_export(memory_cli: Cli, remembered: str, tmp_path) -> None:
    listed = memory_cli.run("memory", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    facts = {f["text"]: f for f in data["facts"]}
    assert facts["I prefer tabs over spaces"]["triples"] == [
        {"subject": "user", "predicate": "prefer", "object": "tabs over spaces", "method": "model"}]
    assert facts["The API uses PostgreSQL 16"]["triples"] == [
        {"subject": "api", "predicate": "use", "object": "PostgreSQL 16", "method": "fallback"}]
    assert [s["run_id"] for s in data["summaries"]] == [remembered]
    table = memory_cli.run("memory", "list")
    assert table.returncode == 0 and "user prefer tabs over spaces" in table.stdout and remembered in table.stdout

    search = memory_cli.run("memory", "search", "what do I prefer?")
    assert search.returncode == 0, search.stderr
    assert "relations" in search.stdout and "tabs over spaces" in search.stdout
    found = json.loads(memory_cli.run("memory", "search", "what does the api use?", "--json").stdout)
    assert found["triples"] == [{"subject": "api", "predicate": "use", "object": "PostgreSQL 16", "fact_id": 2}]
    assert found["facts"][0]["text"] == "The API uses PostgreSQL 16"

    lines = [json.loads(line) for line in memory_cli.run("memory", "export").stdout.splitlines()]
    assert [(r["kind"], r.get("text")) for r in lines][:2] == [("fact", "I prefer tabs over spaces"),
                                                               ("fact", "The API uses PostgreSQL 16")]
    target = tmp_path / "memory.json"
    exported = memory_cli.run("memory", "export", "--json", "-o", str(target))
    assert exported.returncode == 0 and "wrote 3 record(s)" in exported.stderr
    assert len(json.loads(target.read_text())["facts"]) == 2

    forgot = memory_cli.run("memory", "forget", "1")
    assert forgot.returncode == 0 and "forgot fact 1: I prefer tabs over spaces" in forgot.stdout
    again = memory_cli.run("memory", "forget", "1")
    assert again.returncode == 1
    assert again.stderr.strip() == "error: there is no remembered fact 1: `helium memory list` shows them"
    bad = memory_cli.run("memory", "forget", "tabs")
    assert bad.returncode == 1 and "not a memory id" in bad.stderr and "Traceback" not in bad.stderr
    assert memory_cli.run("memory", "forget", f"summary:{remembered[:6]}").returncode == 0
    left = json.loads(memory_cli.run("memory", "list", "--json").stdout)
    assert [f["text"] for f in left["facts"]] == ["The API uses PostgreSQL 16"] and left["summaries"] == []
    assert json.loads(memory_cli.run("memory", "search", "what do I prefer?", "--json").stdout)["triples"] == []


def test_secrets_are_never_remembered(memory_cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    key = "sk-proj-" + "a1B2c3D4" * 4
    model_server.add_turns([
        {"tool_calls": [remember_call(f"my OpenAI key is {key}")]},
        {"content": "I will not keep that."},
        {"when": SUMMARISE, "content": f"The user pasted the key {key}."},
    ])
    result = memory_cli.run("run", "chat", f"remember my key {key}")
    assert result.returncode == 0, result.stderr
    tool_result = chat_requests(model_server)[-1]["messages"][-1]
    assert tool_result["role"] == "tool" and "refused: the text looks like an API key" in tool_result["content"]
    assert not any(EXTRACT in system_prompt(r) for r in model_server.requests)  # refused before extraction
    data = json.loads(memory_cli.run("memory", "list", "--json").stdout)
    assert data["facts"] == []
    assert data["summaries"][0]["text"] == "The user pasted the key [redacted secret]."
    assert key not in memory_cli.run("memory", "export").stdout


def test_a_repl_session_leaves_a_summary_when_it_ends(memory_cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "Hi! How can I help?"}, {"content": "Postgres it is."},
                            {"when": SUMMARISE, "content": "Greeted; chose Postgres."}])
    result = memory_cli.run("chat", input="hello\nlet's use postgres\n/exit\n")
    assert result.returncode == 0, result.stderr
    [summary_request] = [r for r in model_server.requests if SUMMARISE in system_prompt(r)]
    assert "user: let's use postgres" in summary_request["messages"][-1]["content"]
    [run] = runs_json(memory_cli)
    [summary] = json.loads(memory_cli.run("memory", "list", "--json").stdout)["summaries"]
    assert (summary["run_id"], summary["text"]) == (run["id"], "Greeted; chose Postgres.")


def test_a_failed_summary_is_one_warning_and_the_run_still_succeeds(memory_cli: Cli,
                                                                    model_server: ScriptedOpenAIServer) -> None:
    (memory_cli.cwd / ".helium").mkdir(exist_ok=True)
    (memory_cli.cwd / ".helium" / "config.toml").write_text("max_retries = 0\n")
    model_server.add_turns([{"content": "answer"}])  # nothing left for the summary call
    result = memory_cli.run("run", "chat", "hi")
    assert result.returncode == 0
    assert "answer" in result.stdout
    assert "warning: memory: no summary of run" in result.stderr and "Traceback" not in result.stderr


def test_memory_can_be_switched_off(cli: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "plain"}])
    result = cli.run("run", "chat", "hi", env={"HELIUM_MEMORY": "off"})
    assert result.returncode == 0, result.stderr
    assert len(model_server.requests) == 1  # no summary call
    assert not {"remember", "recall", "forget"} & {t["function"]["name"] for t in model_server.requests[0]["tools"]}
    wrong = cli.run("memory", "list", env={"HELIUM_MEMORY": "maybe"})
    assert wrong.returncode == 1 and "HELIUM_MEMORY must be a true or false" in wrong.stderr


def test_an_embeddings_failure_is_one_warning_and_the_run_still_answers(memory_cli: Cli, remembered: str,
                                                                        model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "Tabs, I think."}, {"when": SUMMARISE, "content": "Asked about tabs."}])
    result = memory_cli.run("run", "chat", "tabs or spaces?", env={"HELIUM_EMBEDDING_BASE_URL": "http://127.0.0.1:9/v1"})
    assert result.returncode == 0, result.stderr
    assert "Tabs, I think." in result.stdout and "Traceback" not in result.stderr
    assert "warning: memory: no facts or contextual skills recalled" in result.stderr
    prompt = system_prompt(chat_requests(model_server)[-1])
    assert "I prefer tabs" not in prompt and "The user shared their indentation preference" in prompt
    shown = memory_cli.run("show", runs_json(memory_cli)[0]["id"])
    assert "memory: no facts or contextual skills recalled: the embeddings endpoint" in shown.stdout
