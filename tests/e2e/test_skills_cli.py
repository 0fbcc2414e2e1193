"""Skills as a user runs them: `helium skills`, `helium run skill`, and `/trigger` in the REPL."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Cli
from tests.e2e.test_chat_cli import runs_json
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e

CAVEMAN = """\
---
name: caveman
description: Respond like a caveman
trigger: /caveman
type: slash
allowed-tools: Read, Grep
---
You are a caveman. Respond to everything in caveman speak.
"""


@pytest.fixture
def skills(cli: Cli) -> Cli:
    folder = cli.cwd / ".helium" / "skills"
    (folder / "caveman").mkdir(parents=True)
    (folder / "caveman" / "SKILL.md").write_text(CAVEMAN)
    (folder / "broken.md").write_text("---\nname: broken\n---\nno description\n")
    return cli


def test_list_show_and_new(skills: Cli) -> None:
    listed = skills.run("skills", "list", "--json")
    assert listed.returncode == 0
    [caveman] = json.loads(listed.stdout)
    assert (caveman["name"], caveman["allowed_tools"]) == ("caveman", ["read_file", "grep"])
    assert listed.stderr.count("warning:") == 1 and "broken.md" in listed.stderr
    assert "caveman speak" in skills.run("skills", "show", "/caveman").stdout
    created = skills.run("skills", "new", "reviewer")
    assert created.returncode == 0 and (skills.cwd / ".helium/skills/reviewer/SKILL.md").exists()
    assert "reviewer" in skills.run("skills", "list").stdout


def test_run_skill_uses_its_body_and_only_its_tools(skills: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "Ugh. Fire good."}])
    result = skills.run("run", "skill", "caveman", "explain fire")
    assert result.returncode == 0, result.stderr
    assert "Ugh. Fire good." in result.stdout
    request = model_server.requests[0]
    assert "caveman speak" in request["messages"][0]["content"]
    assert request["messages"][-1]["content"] == "explain fire"
    assert sorted(t["function"]["name"] for t in request["tools"]) == ["grep", "read_file"]
    run = runs_json(skills)[0]
    assert (run["flow"], run["extra"]) == ("skill", {"skill": "caveman"})
    missing = skills.run("run", "skill", "nope")
    assert missing.returncode == 1 and "no skill 'nope'; the skills are: caveman" in missing.stderr


def test_slash_skill_in_the_repl(skills: Cli, model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([{"content": "Me explain wheel."}])
    result = skills.run("chat", input="/caveman the wheel\n/exit\n")
    assert result.returncode == 0, result.stderr
    assert "Me explain wheel." in result.stdout
    assert "caveman speak" in model_server.requests[0]["messages"][0]["content"]
    assert runs_json(skills)[0]["flow"] == "skill"
