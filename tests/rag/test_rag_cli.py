"""`helium rag …` and `@path` in `helium run chat` as a user runs them: subprocesses, real files, exit codes."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.rag.conftest import CORPUS, DOCS, make_pdf, slow_embeddings_server
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e


def user_text(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


def test_add_list_ask_and_remove(rag_cli: Cli, project: Path, model_server: ScriptedOpenAIServer) -> None:
    (project / "docs").mkdir()
    for name in ("rich.md", "httpx.md"):
        shutil.copy(DOCS / name, project / "docs" / name)
    (project / "docs" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    make_pdf(project / "docs" / "manual.pdf", ["Rich manual, page one.", "Install rich with pip on page two."])
    shutil.copy(DOCS / "zlib_how.html", project / "docs" / "zlib_how.html")

    nothing = rag_cli.run("rag", "ask", "anything?")
    assert nothing.returncode == 1 and nothing.stderr.strip() == \
        "error: nothing is indexed yet: add files first with `helium rag add PATHS`"

    added = rag_cli.run("rag", "add", "docs", "README.md", "--json")
    assert added.returncode == 0, added.stderr
    report = json.loads(added.stdout)
    assert {o["path"] for o in report["indexed"]} == {"docs/rich.md", "docs/httpx.md", "README.md",
                                                      "docs/manual.pdf", "docs/zlib_how.html"}
    assert report["skipped"] == [{"path": "docs/logo.png", "status": "skipped", "chunks": 0, "reason": "binary file"}]

    again = rag_cli.run("rag", "add", "docs", "missing/")
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert "indexed 0 file(s) (0 chunks), 4 unchanged, 1 skipped, 0 removed" in again.stdout
    assert "docs/logo.png" in again.stdout and "binary file" in again.stdout
    assert "missing/: no such file, directory or glob match" in again.stderr

    listed = json.loads(rag_cli.run("rag", "list", "--json").stdout)
    assert {f["path"]: (f["kind"], f["unit"], f["extent"]) for f in listed if f["path"].endswith((".pdf", ".html"))} \
        == {"docs/manual.pdf": ("pdf", "page", 2), "docs/zlib_how.html": ("html", "line", 327)}
    assert {f["path"]: f["kind"] for f in listed if f["path"].endswith(".md")} == {
        "README.md": "markdown", "docs/httpx.md": "markdown", "docs/rich.md": "markdown"}
    rich_lines = next(f["extent"] for f in listed if f["path"] == "docs/rich.md")
    assert "indexed files" in rag_cli.run("rag", "list").stdout

    model_server.add_turns([{"content": f"Run pip install rich [docs/rich.md:46-58] [docs/manual.pdf:p2]. "
                                        f"Invented: [docs/rich.md:{rich_lines + 1}-{rich_lines + 9}]."}])
    asked = rag_cli.run("rag", "ask", "How do I install Rich?", "-k", "3", "--json")
    assert asked.returncode == 0, asked.stderr
    outcome = json.loads(asked.stdout)
    assert outcome["status"] == "done" and outcome["answer"].startswith("Run pip install rich")
    answer = outcome["result"]
    assert len(answer["sources"]) == 3 and answer["sources"][0]["label"] == "docs/rich.md:46-58"
    assert answer["invalid_citations"] == [f"docs/rich.md:{rich_lines + 1}-{rich_lines + 9}"]
    assert [(c["label"], c["valid"]) for c in answer["citations"]][:2] == [("docs/rich.md:46-58", True),
                                                                            ("docs/manual.pdf:p2", True)]
    assert f"[docs/rich.md:{rich_lines + 1}-{rich_lines + 9} (invalid citation)]" in answer["answer"]
    assert f"invalid citation docs/rich.md:{rich_lines + 1}-{rich_lines + 9}: docs/rich.md has {rich_lines} lines" \
        in asked.stderr
    prompt = user_text(model_server.requests[0])
    assert prompt.startswith("Question: How do I install Rich?") and "[docs/rich.md:46-58] (Installing)" in prompt

    page = rag_cli.run("rag", "show", "docs/manual.pdf:p2")
    assert page.returncode == 0 and page.stdout == "--- page 2 ---\nInstall rich with pip on page two.\n"
    shown = json.loads(rag_cli.run("rag", "show", "docs/rich.md:46-47", "--json").stdout)
    assert [row["text"] for row in shown["text"]] == ["## Installing", ""]
    bad = rag_cli.run("rag", "show", f"docs/rich.md:{rich_lines}-{rich_lines + 1}")
    assert bad.returncode == 1 and "is not a real range" in bad.stderr

    removed = rag_cli.run("rag", "remove", "docs/httpx.md", "nope.md")
    assert removed.returncode == 1
    assert "removed 1 file(s) from the index" in removed.stdout and "nope.md: not in the index" in removed.stderr
    assert "docs/httpx.md" not in {f["path"] for f in json.loads(rag_cli.run("rag", "list", "--json").stdout)}


def test_ask_prints_the_answer_and_its_sources_or_one_line_on_failure(
        rag_cli: Cli, project: Path, model_server: ScriptedOpenAIServer) -> None:
    assert rag_cli.run("rag", "add", "src/app.py").returncode == 0
    (project / ".helium" / "AGENTS.md").write_text("Answer in British English.\n")
    (project / "src" / "app.py").write_text("def greet(name):\n    return f'hi {name}'\n\n\ndef part():\n    pass\n")
    model_server.add_turns([{"content": "greet says hi [src/app.py:1-2]."}])
    asked = rag_cli.run("rag", "ask", "what does greet return?")
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith("greet says hi [src/app.py:1-2].\n\nSources\n"
                                   "  [1] src/app.py:1-6 (def greet, def part)")
    assert "return f'hi {name}'" in user_text(model_server.requests[0])  # the changed file was indexed again
    system = model_server.requests[0]["messages"][0]["content"]
    assert system.startswith("You answer questions about the user's files") and system.endswith(
        "## From .helium/AGENTS.md\nAnswer in British English.")  # project instructions, as in every flow
    [status] = asked.stderr.strip().splitlines()  # no warnings, no progress left behind: the run's line only
    [run] = json.loads(rag_cli.run("runs", "--json").stdout)
    assert (run["flow"], run["title"], run["status"]) == ("rag", "what does greet return?", "done")
    assert status.startswith(f"run {run['id']} · done")

    model_server.add_turns([{"content": "It takes one name [src/app.py:1-2]."}])
    follow_up = rag_cli.run("resume", run["id"], "--message", "and what does it take?")
    assert follow_up.returncode == 0 and "It takes one name" in follow_up.stdout
    history = [(m["role"], m["content"][:20]) for m in model_server.requests[1]["messages"]]
    assert history[1:3] == [("user", "what does greet retu"), ("assistant", "greet says hi [src/a")]
    assert history[3][1] == "Question: and what d"
    transcript = rag_cli.run("show", run["id"]).stdout
    assert "and what does it take?" in transcript and "It takes one name" in transcript

    model_server.add_turns([{"content": "A fork's answer [src/app.py:5-6]."}, {"content": "Same answer again."}])
    forked = rag_cli.run("fork", run["id"], "--at", "1", "--message", "what does part do?")
    assert forked.returncode == 0, forked.stderr
    assert "A fork's answer" in forked.stdout and user_text(model_server.requests[2]).startswith(
        "Question: what does part do?")
    assert rag_cli.run("fork", run["id"], "--at", "1").returncode == 0  # no message: retrieve's step goes on

    model_server.add_turns([{"status": 401}])
    failed = rag_cli.run("rag", "ask", "what does greet return?")
    assert failed.returncode == 1 and failed.stdout == "" and "Traceback" not in failed.stderr
    assert "error: " in failed.stderr and "the run is saved" in failed.stderr


def test_at_mentions_and_search_files_in_run_chat(rag_cli: Cli, project: Path,
                                                  model_server: ScriptedOpenAIServer) -> None:
    model_server.add_turns([
        {"tool_calls": [{"id": "call_1", "name": "search_files",
                         "arguments": {"query": "what is the demo", "paths": ["README.md"]}}]},
        {"content": "greet builds a greeting [src/app.py:1-2]; the project is a demo [README.md:1-3]; "
                    "see also [src/app.py:7-9] and main.py:4."},
    ])
    result = rag_cli.run("run", "chat", "explain @src/app.py, not @src/gone.py; mail me@example.com")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("warning:") == 2  # main.py is not indexed: a plain mention, not flagged
    assert "warning: @src/gone.py: no such file, directory or glob match" in result.stderr
    assert "warning: invalid citation src/app.py:7-9: src/app.py has 2 lines; 7-9 is not a range of it" \
        in result.stderr
    sent = user_text(model_server.requests[0])
    assert sent.startswith("explain @src/app.py, not @src/gone.py; mail me@example.com\n\n<context>")
    assert "[src/app.py:1-2] (def greet)\ndef greet(name):" in sent
    tool_result = next(m["content"] for m in model_server.requests[1]["messages"] if m["role"] == "tool")
    assert tool_result.startswith("[README.md:1-3] (Demo)\n# Demo")
    assert "greet builds a greeting [src/app.py:1-2]" in result.stdout
    [run] = json.loads(rag_cli.run("runs", "--json").stdout)
    assert run["title"] == "explain @src/app.py, not @src/gone.py; mail me@example.com"


def test_at_mentions_in_the_repl(rag_cli: Cli, project: Path, model_server: ScriptedOpenAIServer) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "guide.md").write_text("# Guide\n\n## Deploy\n\nRun make deploy.\n")
    model_server.add_turns([{"content": "Run make deploy [docs/guide.md:1-5]."}, {"content": "Bye."}])
    result = rag_cli.run("chat", input="how do I deploy? @docs/*.md\nthanks, no mention this time\n")
    assert result.returncode == 0, result.stderr
    first, second = (user_text(r) for r in model_server.requests[:2])
    assert first.startswith("how do I deploy? @docs/*.md\n\n<context>") and "[docs/guide.md:1-5]" in first
    later = [m["content"] for m in model_server.requests[1]["messages"] if m["role"] == "user"]
    assert later[-1] == "thanks, no mention this time" and second == first  # the context stays in the history
    assert "Run make deploy [docs/guide.md:1-5]." in result.stdout


def test_rag_commands_have_help_with_examples(rag_cli: Cli) -> None:
    assert "rag" in rag_cli.run("--help").stdout
    for command in ([], ["add"], ["ask"], ["list"], ["show"], ["remove"]):
        result = rag_cli.run("rag", *command, "--help")
        assert result.returncode == 0 and "Examples" in result.stdout, command
    assert rag_cli.run("rag", "add").returncode == 2  # paths are required: typer's usage error


def test_ctrl_c_keeps_the_files_already_indexed(cli: Cli, project: Path) -> None:
    (project / "docs").mkdir()
    for name in CORPUS:
        shutil.copy(DOCS / name, project / "docs" / name)
    with slow_embeddings_server() as url:
        env = {"HELIUM_EMBEDDING_BASE_URL": url}
        process = cli.popen("rag", "add", "docs", env=env)
        database = project / ".helium" / "helium.db"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _indexed_rows(database):
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 130, stderr
        assert stderr.strip().endswith("stopped with Ctrl-C; the files indexed so far are kept: "
                                       "run the same command to go on") and "Traceback" not in stderr
        kept = _indexed_rows(database)
        assert 1 <= len(kept) < len(CORPUS)
        again = json.loads(cli.run("rag", "add", "docs", "--json", env=env).stdout)
    assert {o["path"] for o in again["unchanged"]} == set(kept)
    assert len(again["indexed"]) + len(again["unchanged"]) == len(CORPUS)


def _indexed_rows(database: Path) -> list[str]:
    try:
        with sqlite3.connect(database, timeout=5) as conn:
            return [row[0] for row in conn.execute("SELECT path FROM rag_files")]
    except sqlite3.OperationalError:  # not created yet
        return []
