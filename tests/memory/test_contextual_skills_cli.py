"""Contextual skills as a user meets them: put into the prompt of a run whose first message they fit, named by
`helium history` and `helium show`, and absent from unrelated runs; a malformed one warns."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Cli
from tests.e2e.test_chat_cli import runs_json
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e

REVIEWER = """\
---
name: reviewer
description: Review Python code for bugs and style problems
type: contextual
---
REVIEW-CHECKLIST: bugs first, then naming, then style.
"""


@pytest.fixture
def skilled(cli: Cli, embeddings_endpoint: str) -> Cli:
    """Memory stays off here: contextual skills do not depend on it."""
    folder = cli.cwd / ".helium" / "skills"
    (folder / "reviewer").mkdir(parents=True)
    (folder / "reviewer" / "SKILL.md").write_text(REVIEWER)
    cli.env["HELIUM_EMBEDDING_BASE_URL"] = embeddings_endpoint
    return cli


def test_a_relevant_message_fires_the_skill_and_history_shows_it(skilled: Cli,
                                                                  model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "Reviewed."}])
    result = skilled.run("run", "chat", "please review the python code in src/app.py for bugs")
    assert result.returncode == 0, result.stderr
    system = model_server.requests[0]["messages"][0]["content"]
    assert "## Skill: reviewer\nREVIEW-CHECKLIST: bugs first" in system
    run_id = runs_json(skilled)[0]["id"]
    history = skilled.run("history", run_id)
    assert history.returncode == 0 and "skills: reviewer (" in history.stdout
    shown = skilled.run("show", run_id)
    assert "skills: reviewer (" in shown.stdout
    fired = json.loads(skilled.run("show", run_id, "--json").stdout)["recalled"]["skills"]
    assert [s["name"] for s in fired] == ["reviewer"] and fired[0]["similarity"] >= 0.35


def test_an_unrelated_message_does_not(skilled: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "Sunny."}])
    result = skilled.run("run", "chat", "what is the weather in Paris today")
    assert result.returncode == 0, result.stderr
    assert "REVIEW-CHECKLIST" not in model_server.requests[0]["messages"][0]["content"]
    run_id = runs_json(skilled)[0]["id"]
    assert "skills:" not in skilled.run("history", run_id).stdout
    assert json.loads(skilled.run("show", run_id, "--json").stdout)["recalled"] == {"facts": [], "summaries": [],
                                                                                  "skills": []}


def test_a_malformed_contextual_skill_warns_and_the_rest_still_load(skilled: Cli) -> None:
    (skilled.cwd / ".helium" / "skills" / "eager.md").write_text(
        "---\ndescription: fires on everything\ntype: contextual\nthreshold: always\n---\nBe eager.\n")
    listed = skilled.run("skills", "list", "--json")
    assert listed.returncode == 0
    assert [s["name"] for s in json.loads(listed.stdout)] == ["reviewer"]
    [warning] = listed.stderr.strip().splitlines()
    assert warning.startswith("warning: skipped skill ") and "eager.md" in warning and "'threshold'" in warning
