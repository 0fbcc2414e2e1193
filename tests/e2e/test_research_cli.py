"""`helium run research` as a user runs it: a subprocess against the local web (SearxNG and DuckDuckGo
endpoints, real pages) and the scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.research.local_web import LocalWeb
from tests.research.scripts import GOOD_CLAIMS, PLANTED, QUESTION, research_config, research_turns
from tests.research.test_search import closed_port_url
from tests.support.scripted_openai import ScriptedOpenAIServer

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def module_web() -> Iterator[LocalWeb]:
    with LocalWeb() as web:
        yield web


@pytest.fixture
def web(module_web: LocalWeb) -> Iterator[LocalWeb]:
    module_web.max_results, module_web.delays, module_web.extra_results = 1, {}, []
    module_web.searxng, module_web.duckduckgo = "ok", "ok"
    module_web.counts.clear()
    yield module_web


def configure(cli: Cli, web: LocalWeb, **extra: object) -> None:
    (cli.cwd / ".helium").mkdir(exist_ok=True)
    (cli.cwd / ".helium" / "config.toml").write_text(research_config(web.base_url, **extra))


def only_run(cli: Cli) -> dict:
    [run] = json.loads(cli.run("runs", "--json").stdout)
    return run


def test_research_writes_a_cited_report_and_catches_a_planted_bad_citation(
        cli: Cli, web: LocalWeb, model_server: ScriptedOpenAIServer) -> None:
    configure(cli, web)
    model_server.add_turns(research_turns(rounds=2))
    out_dir = cli.cwd / "out"
    result = cli.run("run", "research", QUESTION, "--output", str(out_dir), timeout=240)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr

    # progress lines, then the report printed
    assert "research · 3 sub-questions, 3 queries" in result.stdout
    assert "pages fetched 3/3" in result.stdout
    assert "research · another round: rustc lint levels allow warn deny" in result.stdout
    assert "pages fetched 1/1" in result.stdout  # the second round found one new page
    report = (out_dir / "report.md").read_text()
    assert report in result.stdout

    # every good claim keeps its citation; the planted one and the one naming no source lose theirs
    for claim in GOOD_CLAIMS:
        assert claim in report
    assert PLANTED.replace(" [1]", "") in report and PLANTED not in report
    assert "Every crate must have a logo." in report and "[7]" not in report.split("## Citation check")[0]
    assert "## Citation check" in report and "there is no source [7]" in report
    assert report.rstrip().endswith("4 of 6 citations verified.")
    sources_list = report.split("## Sources")[1]
    assert "[1] Documentation tests - The rustdoc book. <http://127.0.0.1" in sources_list
    assert "[4] What is rustdoc? - The rustdoc book." in sources_list

    sources = json.loads((out_dir / "sources.json").read_text())
    assert [s["url"].rsplit("/", 1)[1] for s in sources["sources"]] == [
        "documentation-tests.html", "lint-levels.html", "what-is-rustc.html", "what-is-rustdoc.html"]
    assert all(s["found_by"] == ["duckduckgo", "searxng"] and s["chunks"] > 0 for s in sources["sources"])
    planted = [c for c in sources["citations"] if not c["verified"]]
    assert [c["number"] for c in planted] == [1, 7]

    run = only_run(cli)
    assert (run["flow"], run["status"]) == ("research", "done")
    assert run["extra"]["report_path"] == str(out_dir / "report.md")
    assert all(web.counts[f"/pages/{name}"] == 1 for name in ("what-is-rustdoc.html", "lint-levels.html"))
    history = json.loads(cli.run("history", run["id"], "--json").stdout)
    nodes = [step["node"] for step in history]
    assert nodes.count("reflect") == 2 and nodes[-1] == "write"
    summaries = [step["summary"] for step in history]
    assert "search (round 2): 2 searches, 2 hits, 0 failed" in summaries
    assert "reflect: another round: rustc lint levels allow warn deny" in summaries
    assert "verify: 4 of 6 citations verified" in summaries


def test_kill_9_during_fetch_then_resume_fetches_no_page_twice(
        cli: Cli, web: LocalWeb, model_server: ScriptedOpenAIServer) -> None:
    configure(cli, web, max_rounds=1)
    web.max_results = 2
    slow = ["/pages/what-is-rustc.html", "/pages/lint-levels.html"]
    web.delays = dict.fromkeys(slow, 60.0)
    model_server.add_turns(research_turns(rounds=1))
    proc = cli.popen("run", "research", QUESTION)
    db = cli.cwd / ".helium" / "helium.db"

    def fetched() -> list[str]:
        try:
            with sqlite3.connect(db, timeout=5) as conn:
                return [row[0] for row in conn.execute("SELECT url FROM research_pages")]
        except sqlite3.OperationalError:
            return []

    deadline = time.monotonic() + 120
    while len(fetched()) < 3 or sum(web.counts[p] for p in slow) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the fast pages were never fetched"
        time.sleep(0.1)
    done_before_kill = fetched()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    proc.stderr.close()
    assert only_run(cli)["status"] == "interrupted"

    web.delays = {}
    resumed = cli.run("resume", only_run(cli)["id"], "--json", timeout=240)
    assert resumed.returncode == 0, resumed.stderr
    outcome = json.loads(resumed.stdout)
    assert outcome["status"] == "done" and outcome["result"]["pages_read"] == 5
    assert Path(outcome["result"]["report_path"]).read_text().rstrip().endswith("citations verified.")
    for url in done_before_kill:  # fetched before the kill: never again
        assert web.counts[url.split("127.0.0.1", 1)[1].split("/", 1)[1].join(["/", ""])] == 1, url
    for path in slow:  # cut off mid-fetch by the kill: fetched again, once
        assert web.counts[path] == 2


def test_on_a_terminal_searxng_down_and_bad_pages_show_live_and_the_report_still_comes(
        cli: Cli, web: LocalWeb, model_server: ScriptedOpenAIServer) -> None:
    """One run for three things a user watches: the live display, SearxNG down (DuckDuckGo carries on, with
    the warning on screen and in `helium show`), and bad pages skipped with their reasons."""
    configure(cli, web, max_rounds=1, fetch_timeout=1, max_page_bytes=2_000_000, max_redirects=3)
    web.extra_results = ["/bad/huge.html", "/bad/binary.html", "/bad/loop", "/bad/slow.html"]
    model_server.add_turns(research_turns(rounds=1))
    master, slave = pty.openpty()
    proc = subprocess.Popen(cli.command("run", "research", QUESTION, "--searxng-url", closed_port_url()),
                            cwd=cli.cwd,
                            env=cli.environ({"TERM": "xterm-256color", "COLUMNS": "160", "LINES": "40"}),
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    screen = b""
    deadline = time.monotonic() + 240
    while proc.poll() is None or select.select([master], [], [], 0.2)[0]:
        assert time.monotonic() < deadline, screen.decode(errors="replace")[-3000:]
        if select.select([master], [], [], 0.2)[0]:
            try:
                screen += os.read(master, 65536)
            except OSError:
                break
    os.close(master)
    proc.wait(timeout=30)
    text = screen.decode(errors="replace")
    assert proc.returncode == 0, text[-3000:]
    assert "\x1b[2K" in text and "\x1b[1A" in text  # redrawn in place: a live display, not a log
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    assert "research · round 1 · " in text
    assert "what is rustdoc" in text and "duckduckgo: 5 hits" in text  # the queries and how each search went
    assert "searxng: failed: SearxNG at http://127.0.0.1:" in text
    assert "pages fetched 7/7 · failures 4" in text
    assert "✗ http://127.0.0.1" in text
    warning = "warning: searxng failed 3 of 3 searches (SearxNG at http://127.0.0.1:"
    assert warning in text and "is unreachable" in text and "duckduckgo carried on" in text
    assert "# Rustdoc and rustc" in text and "2 of 6 citations verified." in text  # the report, at the end

    run = only_run(cli)
    assert run["status"] == "done"
    assert warning in cli.run("show", run["id"]).stdout
    assert web.counts["/search"] == 0 and web.counts["/html/"] == 3
    sources = json.loads(Path(run["extra"]["sources_path"]).read_text())
    assert all(s["found_by"] == ["duckduckgo"] for s in sources["sources"])
    assert sources["warnings"][0].startswith("searxng failed 3 of 3 searches")
    reasons = {s["url"].split("/bad/")[1]: s["reason"] for s in sources["skipped"]}
    assert reasons == {"huge.html": "too large (over 2,000,000 bytes)",
                       "binary.html": "binary content served as text/html",
                       "loop": "too many redirects (more than 3)",
                       "slow.html": "timed out after 1 s"}
    assert len(sources["sources"]) == 3


@pytest.mark.parametrize(("args", "config", "message"), [
    (["   "], "", "error: give a question to research"),
    (["q"], "[research]\nmax_rounds = 0\n", "error: max_rounds in [research] in config.toml is out of range: 0"),
    (["q", "--searxng-url", "localhost:8888"], "", "error: searxng_url from option --searxng-url must be an "
                                                   "http(s) URL"),
])
def test_bad_input_is_one_line_and_records_no_run(cli: Cli, args: list[str], config: str, message: str) -> None:
    (cli.cwd / ".helium").mkdir(exist_ok=True)
    (cli.cwd / ".helium" / "config.toml").write_text(config)
    result = cli.run("run", "research", *args)
    assert result.returncode == 1
    assert result.stderr.startswith(message) and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert json.loads(cli.run("runs", "--json").stdout) == []
