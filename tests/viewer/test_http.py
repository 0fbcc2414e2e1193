"""The viewer over real HTTP (uvicorn on 127.0.0.1) and a real project store filled by the CLI."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import httpx
import pytest

from helium.state.store import ProjectStore
from helium.viewer import pages, serve_in_thread
from tests.e2e.test_chat_cli import call
from tests.viewer.conftest import ViewedProject, wait_for


@pytest.fixture(scope="module")
def finished(viewed: ViewedProject) -> str:
    """A done chat run: read_file, then an answer."""
    viewed.model.add_turns([{"tool_calls": [call("read_file", path="README.md")]}, {"content": "It is a demo."}])
    result = viewed.cli.run("run", "chat", "what is this?")
    assert result.returncode == 0, result.stderr
    return viewed.runs()[0]["id"]


def waiting_run(viewed: ViewedProject, *calls: dict, prompt: str = "write files") -> str:
    """A run that paused for approval of `calls` (`--approve ask` without a terminal)."""
    viewed.model.add_turns([{"tool_calls": list(calls)}])
    result = viewed.cli.run("run", "chat", prompt, "--approve", "ask")
    assert result.returncode == 4, result.stderr
    run = viewed.runs()[0]
    assert run["status"] == "waiting-approval"
    return run["id"]


def test_runs_page_lists_runs_and_filters_by_flow_and_status(viewed: ViewedProject, finished: str) -> None:
    waiting = waiting_run(viewed, call("write_file", path="a.txt", content="a"), prompt="list filter run")
    page = viewed.http.get("/")
    assert page.status_code == 200
    assert finished in page.text and waiting in page.text
    assert "what is this?" in page.text and "scripted" in page.text
    assert "waiting-approval" in page.text and ">done<" in page.text

    only_done = viewed.http.get("/", params={"status": "done"}).text
    assert finished in only_done and waiting not in only_done
    assert viewed.http.get("/", params={"flow": "code"}).text.count('data-run="') == 0
    assert finished in viewed.http.get("/", params={"flow": "chat"}).text


def test_run_page_shows_timeline_messages_calls_decisions_and_graph(viewed: ViewedProject, finished: str) -> None:
    page = viewed.http.get(f"/runs/{finished}")
    assert page.status_code == 200
    history = json.loads(viewed.cli.run("history", finished, "--json").stdout)
    rows = re.findall(r'<tr class="step[^"]*" data-checkpoint="([^"]+)"', page.text)
    assert rows == [s["checkpoint_id"] for s in history]  # every checkpoint, oldest first
    assert "assistant calls read_file(README.md)" in page.text
    assert "A demo project." in page.text  # the tool call's output
    assert '&#34;path&#34;: &#34;README.md&#34;' in page.text or '"path": "README.md"' in page.text  # its input
    assert "It is a demo." in page.text
    assert "approved by policy" in page.text  # the gate's decision, from the audit log
    assert '<td class="mono">turns</td>' in page.text  # a state change
    svg = re.search(r'<div class="svg" id="graph">(.*?)</div>', page.text, re.S).group(1)
    assert svg.startswith("<svg") and "#fbbf24" in svg  # drawn offline, the run's place highlighted
    assert re.search(r"<title>__end__</title>\s*<ellipse[^>]*fill=\"#fbbf24\"", svg)
    assert 'id="approval"' not in page.text


def test_long_timelines_show_the_newest_steps_and_all_on_request(viewed: ViewedProject, finished: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    history = [s["checkpoint_id"] for s in json.loads(viewed.cli.run("history", finished, "--json").stdout)]
    monkeypatch.setattr(pages, "TIMELINE_LIMIT", 3)
    page = viewed.http.get(f"/runs/{finished}").text
    assert re.findall(r'data-checkpoint="([^"]+)"', page) == history[-3:]
    assert 'id="all-steps"' in page and f'data-body="/runs/{finished}/body"' in page
    everything = viewed.http.get(f"/runs/{finished}", params={"all": "1"}).text
    assert re.findall(r'data-checkpoint="([^"]+)"', everything) == history  # the same rows as `helium history`
    assert 'id="all-steps"' not in everything and f'data-body="/runs/{finished}/body?all=1"' in everything
    body = viewed.http.get(f"/runs/{finished}/body", params={"all": "1"}).text  # what the live page fetches
    assert re.findall(r'data-checkpoint="([^"]+)"', body) == history


def test_approving_from_the_page_resumes_the_run_in_the_viewer(viewed: ViewedProject) -> None:
    run_id = waiting_run(viewed, call("write_file", "call_a", path="approved.txt", content="yes"),
                         call("write_file", "call_b", path="denied.txt", content="no"))
    page = viewed.http.get(f"/runs/{run_id}").text
    assert 'id="approval"' in page and "approved.txt" in page and "denied.txt" in page
    assert 'name="decision:call_a"' in page and 'name="decision:call_b"' in page  # an answer for each call
    assert re.search(r'<title>gate</title>\s*<path fill="#fbbf24"', page)  # the run waits at the gate
    viewed.model.add_turns([{"content": "Wrote one file; the other was denied."}])
    token = viewed.csrf(run_id)
    answered = viewed.post(f"/runs/{run_id}/approve",
                           {"csrf": token, "decision:call_a": "always", "decision:call_b": "no"})
    assert answered.status_code == 303 and answered.headers["location"] == f"/runs/{run_id}"

    wait_for(lambda: viewed.run(run_id)["status"] == "done", what="the approved run to finish")
    assert (viewed.root / "approved.txt").read_text() == "yes"
    assert not (viewed.root / "denied.txt").exists()
    audit = {e["tool_call_id"]: e for e in json.loads(viewed.cli.run("audit", run_id, "--json").stdout)}
    assert audit["call_a"]["decision"] == "approved" and audit["call_a"]["decided_by"] == "user"
    assert audit["call_b"]["decision"] == "denied"
    rules = viewed.root / ".helium" / "permissions.toml"
    assert 'tool = "write_file"' in rules.read_text()  # "always" saved an allow rule, as it does on a terminal
    rules.unlink()  # later tests want write_file to ask again
    done_page = viewed.http.get(f"/runs/{run_id}").text
    assert "Wrote one file; the other was denied." in done_page and 'id="approval"' not in done_page

    again = viewed.post(f"/runs/{run_id}/approve", {"csrf": token, "all": "yes"})
    assert again.status_code == 400 and "not waiting for an approval" in again.text


def test_the_deny_button_denies_every_call_and_a_bad_answer_changes_nothing(viewed: ViewedProject) -> None:
    run_id = waiting_run(viewed, call("write_file", "call_d", path="never.txt", content="no"), prompt="deny me")
    token = viewed.csrf(run_id)
    bad = viewed.post(f"/runs/{run_id}/approve", {"csrf": token, "all": "", "decision:call_d": "perhaps"})
    assert bad.status_code == 400 and "unknown answer" in bad.text
    assert viewed.run(run_id)["status"] == "waiting-approval"
    viewed.model.add_turns([{"content": "Understood, I will not write it."}])
    denied = viewed.post(f"/runs/{run_id}/approve", {"csrf": token, "all": "no"})  # the Deny button
    assert denied.status_code == 303
    wait_for(lambda: viewed.run(run_id)["status"] == "done", what="the denied run to finish")
    assert not (viewed.root / "never.txt").exists()
    page = viewed.http.get(f"/runs/{run_id}").text
    assert "denied by user" in page and "Understood, I will not write it." in page


def test_cross_site_posts_are_refused_and_change_nothing(viewed: ViewedProject) -> None:
    run_id = waiting_run(viewed, call("write_file", path="csrf.txt", content="x"), prompt="csrf check")
    token = viewed.csrf(run_id)
    attempts = [
        ({"all": "yes"}, None),                           # no token
        ({"all": "yes", "csrf": "guessed"}, None),        # a wrong token
        ({"all": "yes", "csrf": token}, "http://evil.example"),  # the right token from another site's page
        ({"all": "yes", "csrf": token}, ""),              # no Origin and no Referer
    ]
    for data, origin in attempts:
        response = viewed.post(f"/runs/{run_id}/approve", data, origin=origin)
        assert response.status_code == 403, (data, origin)
        assert "refused" in response.text
    forked = viewed.post(f"/runs/{run_id}/fork", {"at": "0", "message": "x"}, origin="http://evil.example")
    assert forked.status_code == 403
    assert viewed.run(run_id)["status"] == "waiting-approval" and not (viewed.root / "csrf.txt").exists()
    assert len([r for r in viewed.runs() if r["parent_id"] == run_id]) == 0

    rebound = viewed.http.get("/", headers={"Host": f"attacker.example:{viewed.viewer.url.rsplit(':', 1)[1]}"})
    assert rebound.status_code == 400  # a DNS-rebinding page gets nothing
    assert viewed.http.get("/", headers={"Host": "localhost:" + viewed.viewer.url.rsplit(":", 1)[1]}).status_code == 200


def test_fork_from_a_step_on_the_page(viewed: ViewedProject, finished: str) -> None:
    history = json.loads(viewed.cli.run("history", finished, "--json").stdout)
    viewed.model.add_turns([{"content": "Forked answer."}])
    response = viewed.post(f"/runs/{finished}/fork", {"csrf": viewed.csrf(finished),
                                                      "at": history[1]["checkpoint_id"], "message": "what else?"})
    assert response.status_code == 303
    child_id = response.headers["location"].rsplit("/", 1)[1]
    wait_for(lambda: viewed.run(child_id)["status"] == "done", what="the fork to finish")
    child = viewed.run(child_id)
    assert child["parent_id"] == finished and child["parent_checkpoint"] == history[1]["checkpoint_id"]
    sent = [m["content"] for m in viewed.model.requests[-1]["messages"] if m["role"] == "user"]
    assert sent == ["what else?"]
    page = viewed.http.get(f"/runs/{child_id}").text
    assert "Forked answer." in page and f'href="/runs/{finished}"' in page
    assert child_id in viewed.http.get(f"/runs/{finished}").text  # the parent lists its fork

    bad = viewed.post(f"/runs/{finished}/fork", {"csrf": viewed.csrf(finished), "at": "nope"})
    assert bad.status_code == 400 and "matches no checkpoint" in bad.text


def test_live_events_announce_changes(viewed: ViewedProject, finished: str) -> None:
    with viewed.http.stream("GET", f"/runs/{finished}/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        assert next(lines) == "event: change"
        assert next(lines).startswith('data: "done|')
    assert viewed.http.get("/runs/nosuchrun/events").status_code == 404
    with viewed.http.stream("GET", "/events") as stream:  # the runs list's stream
        lines = stream.iter_lines()
        assert next(lines) == "event: change" and next(lines).startswith(f'data: "{len(viewed.runs())}|')
    table = viewed.http.get("/runs-body", params={"status": "done"}).text  # what the live list fetches
    assert finished in table and "waiting-approval" not in table


def test_secrets_in_run_options_are_never_shown_and_task_and_research_outputs_are(viewed: ViewedProject,
                                                                                  finished: str) -> None:
    out = viewed.root / "output" / "hello_1"
    (out / "verifier").mkdir(parents=True)
    (out / "agent").mkdir()
    (out / "verifier" / "reward.txt").write_text("1\n")
    (out / "verifier" / "test-stdout.txt").write_text("PASSED test_hello_file_exists\n")
    (out / "agent" / "trajectory.json").write_text(json.dumps({"schema_version": "ATIF-v1.2", "steps": [
        {"step_id": 1, "source": "user", "message": "Create hello.txt"},
        {"step_id": 2, "source": "agent", "message": "",
         "tool_calls": [{"tool_call_id": "t1", "function_name": "bash",
                         "arguments": {"command": "echo hi > hello.txt"}}],
         "observation": {"results": [{"source_call_id": "t1", "content": "exit code 0"}]}}]}))
    (viewed.root / "report.md").write_text("# Findings\n\nSee [1].\n\n<script>alert(1)</script>\n")
    sources = {"question": "EU AI act", "run_id": "r1", "skipped": [{"url": "https://example.org/gone", "reason": "404"}],
               "sources": [{"number": 1, "url": "https://example.org/a", "title": "A source", "author": None,
                            "found_by": ["duckduckgo"]}]}  # what the research flow writes
    (viewed.root / "sources.json").write_text(json.dumps(sources))
    with ProjectStore(viewed.root / ".helium" / "helium.db") as store:
        task = store.runs.create("task", "create-hello-file", "oracle", extra={
            "task": "create-hello-file", "agent": "oracle", "provider": "local", "output_dir": "output/hello_1",
            "reward": 1.0, "error": None, "api_key": "sk-never-shown", "auth_token": "tok-never-shown"})
        research = store.runs.create("research", "EU AI act", "scripted", extra={
            "report_path": "report.md", "sources_path": "sources.json",
            "searxng_url": "https://me:hunter2@searx.example/"})
        store.runs.set_status(task.id, "done")
        store.runs.set_status(research.id, "done")

    listing = viewed.http.get("/").text
    assert re.search(rf'data-run="{task.id}">.*?<td class="num">1</td>', listing, re.S)  # the reward column
    page = viewed.http.get(f"/runs/{task.id}").text
    assert "sk-never-shown" not in page and "tok-never-shown" not in page and "api_key" not in page
    assert "create-hello-file" in page and "PASSED test_hello_file_exists" in page
    assert "echo hi &gt; hello.txt" in page and "exit code 0" in page  # the trajectory's call and observation
    report = viewed.http.get(f"/runs/{research.id}").text
    assert "<h1>Findings</h1>" in report and "<script>alert(1)</script>" not in report
    assert "hunter2" not in report and "https://***@searx.example/" in report  # a URL's password is hidden
    assert 'href="https://example.org/a"' in report and "A source" in report
    assert "<td>null</td>" not in report and "example.org/gone" not in report  # no author is blank; cited only
    forked = viewed.post(f"/runs/{research.id}/fork", {"csrf": viewed.csrf(finished), "at": "1", "message": "why?"})
    assert forked.status_code == 400 and "takes no message" in forked.text  # a research fork redoes its steps


def test_api_keys_of_the_viewer_process_are_hidden_on_its_pages(viewed: ViewedProject, finished: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_API_KEY", "A demo project.")  # as if read_file had shown a key from a .env file
    with serve_in_thread(viewed.root, port=0) as viewer:
        page = httpx.get(f"{viewer.url}/runs/{finished}").text
    assert "A demo project." not in page and "[redacted]" in page
    assert '<div class="svg" id="graph"><svg' in page  # HTML the page builds itself is not escaped by it
    assert "A demo project." in viewed.http.get(f"/runs/{finished}").text  # a viewer without that key


def test_unknown_run_is_a_404_page_and_a_malformed_query_a_400(viewed: ViewedProject) -> None:
    response = viewed.http.get("/runs/doesnotexist")
    assert response.status_code == 404 and "no run &#39;doesnotexist&#39;" in response.text

    malformed = viewed.http.get("/runs/doesnotexist", params={"all": "banana"})
    assert malformed.status_code == 400 and "bad request: all: Input should be a valid boolean" in malformed.text


def test_helium_view_serves_on_loopback_and_refuses_other_hosts_without_the_flag(viewed: ViewedProject) -> None:
    refused = viewed.cli.run("view", "--host", "0.0.0.0", "--port", "0")
    assert refused.returncode == 1 and "--allow-remote" in refused.stderr
    assert "Traceback" not in refused.stderr and len(refused.stderr.strip().splitlines()) == 1

    proc = viewed.cli.popen("view", "--port", "0")
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+", line).group(0)  # loopback by default
        assert "<h1>Runs" in httpx.get(url + "/").text
    finally:
        proc.send_signal(signal.SIGINT)
        rest, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "viewer stopped" in rest and stderr == ""

    remote = viewed.cli.popen("view", "--host", "0.0.0.0", "--port", "0", "--allow-remote")
    try:
        url = re.search(r"http://0\.0\.0\.0:(\d+)", remote.stdout.readline())
        assert url
        assert httpx.get(f"http://127.0.0.1:{url.group(1)}/").status_code == 200
    finally:
        remote.send_signal(signal.SIGINT)
        _, stderr = remote.communicate(timeout=30)
    assert "warning:" in stderr and "other machines" in stderr


def test_a_port_in_use_is_one_clear_error(viewed: ViewedProject) -> None:
    port = viewed.viewer.url.rsplit(":", 1)[1]
    busy = viewed.cli.run("view", "--port", port)
    assert busy.returncode == 1 and "pick another port" in busy.stderr and "Traceback" not in busy.stderr
    for args, said in ((["--port", "99999"], "not a port"),
                       (["--host", "no-such-host.invalid", "--allow-remote", "--port", "0"], "check --host")):
        bad = viewed.cli.run("view", *args)
        assert bad.returncode == 1 and said in bad.stderr and "unexpected" not in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1


def test_a_real_task_trial_shows_reward_verifier_output_and_trajectory(viewed: ViewedProject, finished: str) -> None:
    task = Path(__file__).resolve().parents[2] / "tasks" / "create-hello-file"
    viewed.model.add_turns([
        {"content": "Writing it.", "tool_calls": [call("bash", "c1", command="echo 'Hello World' > /home/hello.txt")]},
        {"content": "Created /home/hello.txt."},
    ])
    trial = viewed.cli.run("task", "run", str(task), "--provider", "local", "--agent", "helium", "-o", "output",
                           env={"HELIUM_API_KEY": "sk-viewer-test-key"}, timeout=120)
    assert trial.returncode == 0, trial.stderr
    run = next(r for r in viewed.runs() if r["flow"] == "task" and r["extra"].get("agent") == "helium")
    page = viewed.http.get(f"/runs/{run['id']}").text
    assert 'id="task"' in page and "PASS: /home/hello.txt says Hello World" in page  # the verifier's output
    assert re.search(r'id="run-reward">1<', page)
    assert "echo &#39;Hello World&#39; &gt; /home/hello.txt" in page  # in the trajectory and the messages
    assert "sandbox-policy" in page  # the gate's decisions, from the audit log
    steps = re.findall(r'<td class="mono">(model|gate|tools)</td>', page)
    assert steps[:3] == ["model", "gate", "tools"]
    assert "sk-viewer-test-key" not in page
    assert 'action="/runs/' + run["id"] + '/fork"' not in page  # its sandbox is gone: nothing to continue
    refused = viewed.post(f"/runs/{run['id']}/fork", {"csrf": viewed.csrf(finished), "at": "1"})
    assert refused.status_code == 400 and "cannot be forked" in refused.text
    assert re.search(rf'data-run="{run["id"]}">.*?<td class="num">1</td>', viewed.http.get("/").text, re.S)

