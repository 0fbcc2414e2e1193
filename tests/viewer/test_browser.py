"""The viewer in a real headless Chromium (Debian's /usr/bin/chromium driven by Playwright): a scripted run
shows its steps live, waits for an approval, is approved from the page and finishes, all without a reload."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from helium.state.store import ProjectStore
from tests.e2e.test_chat_cli import call
from tests.viewer.conftest import ViewedProject, wait_for

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

if not Path(CHROMIUM).exists():
    print(f"skipping the browser tests: {CHROMIUM} is not installed (apt-get install chromium)")
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)

from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402 - only where a browser exists

LIVE_TIMEOUT = 120_000
"""Milliseconds to wait for a change to reach the page (generous: CI shares 2 cores with other tests)."""
SCREENSHOT_DIR = Path(os.environ.get("HELIUM_SCREENSHOTS", "")) if os.environ.get("HELIUM_SCREENSHOTS") else None


@pytest.mark.timeout(300)  # each step waits up to a minute for a busy machine; the whole takes ~40 s here
def test_live_run_is_approved_from_the_page(viewed: ViewedProject, tmp_path: Path) -> None:
    # Gated turns hold the run at known points until the page is there to see what follows, so a busy
    # machine (CI runs this beside other heavy tests on 2 cores) makes the test slower, never wrong.
    page_open, watching_resume, list_open = threading.Event(), threading.Event(), threading.Event()
    viewed.model.add_turns([
        {"tool_calls": [call("read_file", "call_r", path="README.md")], "gate": page_open},
        {"tool_calls": [call("write_file", "call_w", path="hello.txt", content="hello from the browser\n")]},
        {"content": "I wrote hello.txt.", "gate": watching_resume},
    ])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        proc = viewed.cli.popen("run", "chat", "write a hello file", "--approve", "ask")
        second = None
        try:
            run_id = newest_run(viewed.root)
            page.goto(f"{viewed.viewer.url}/runs/{run_id}")
            page.evaluate("window.__loaded_once = true")
            expect(page.locator("#run-status")).to_have_text("running")  # held at its first model call
            first_rows = page.locator("#timeline tr.step").count()
            assert page.locator("#approval").count() == 0
            assert "call_r" not in page.content()
            page_open.set()

            # steps appear while the run goes on, then the approval it waits for, with no reload
            expect(page.locator("#approval")).to_be_visible(timeout=LIVE_TIMEOUT)
            assert page.evaluate("window.__loaded_once") is True
            assert page.locator("#timeline tr.step").count() > first_rows
            expect(page.locator("#run-status")).to_have_text("waiting-approval")
            expect(page.locator("#approval")).to_contain_text("hello.txt")
            expect(page.locator("#messages")).to_contain_text("A demo project.")  # read_file's output
            proc.wait(timeout=60)
            assert proc.returncode == 4
            save_screenshot(page, tmp_path / "waiting.png")

            page.locator("#approve-all").click()
            page.wait_for_url(f"**/runs/{run_id}")
            page.evaluate("window.__loaded_once = true")
            expect(page.locator("#run-status")).to_have_text("running")  # the viewer drives it, held at the model
            watching_resume.set()
            expect(page.locator("#run-status")).to_have_text("done", timeout=LIVE_TIMEOUT)
            assert page.evaluate("window.__loaded_once") is True  # the end arrived live, too
            expect(page.locator("#messages")).to_contain_text("I wrote hello.txt.")
            expect(page.locator("#audit")).to_contain_text("approved")
            expect(page.locator("#position")).to_have_text("__end__")
            assert page.locator("#approval").count() == 0
            save_screenshot(page, tmp_path / "run-page.png")

            page.goto(viewed.viewer.url + "/")
            expect(page.locator(f'tr[data-run="{run_id}"]')).to_contain_text("done")
            page.evaluate("window.__loaded_once = true")
            viewed.model.add_turns([{"content": "Hello again.", "gate": list_open}])
            second = viewed.cli.popen("run", "chat", "a second run")
            new_row = page.locator("#runs tr", has_text="a second run")
            expect(new_row).to_contain_text("running", timeout=LIVE_TIMEOUT)  # the list is live too
            list_open.set()
            expect(new_row).to_contain_text("done", timeout=LIVE_TIMEOUT)
            assert page.evaluate("window.__loaded_once") is True
            save_screenshot(page, tmp_path / "runs.png")
            assert second.wait(timeout=60) == 0
            assert (viewed.root / "hello.txt").read_text() == "hello from the browser\n"
            assert viewed.run(run_id)["status"] == "done"
        finally:
            for gate in (page_open, watching_resume, list_open):
                gate.set()  # a failed test must not leave the model server holding a request
            for child in (proc, second):
                if child is not None and child.poll() is None:
                    child.kill()
                    child.wait()
            browser.close()


def save_screenshot(page: Page, shot: Path) -> None:
    """A full-page PNG; also copied to $HELIUM_SCREENSHOTS when set, to look at."""
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if SCREENSHOT_DIR:
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, SCREENSHOT_DIR / shot.name)


def newest_run(root: Path) -> str:
    """The id of the run the CLI just recorded, read from the store as soon as it is there."""
    found: list[str] = []

    def recorded() -> bool:
        if (root / ".helium" / "helium.db").exists():
            with ProjectStore(root / ".helium" / "helium.db") as store:
                found[:] = [r.id for r in store.runs.list() if r.title == "write a hello file"]
        return bool(found)

    wait_for(recorded, what="the run to be recorded")
    return found[0]
