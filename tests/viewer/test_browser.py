"""The viewer in a real headless Chromium (Debian's /usr/bin/chromium driven by Playwright): a scripted run
shows its steps live, waits for an approval, is approved from the page and finishes, all without a reload."""

from __future__ import annotations

import os
import shutil
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

SCREENSHOT_DIR = Path(os.environ.get("HELIUM_SCREENSHOTS", "")) if os.environ.get("HELIUM_SCREENSHOTS") else None


def test_live_run_is_approved_from_the_page(viewed: ViewedProject, tmp_path: Path) -> None:
    # the delays leave time to open the page while the run is still at its first steps (on a busy machine too)
    viewed.model.add_turns([
        {"tool_calls": [call("read_file", "call_r", path="README.md")], "delay": 5},
        {"tool_calls": [call("write_file", "call_w", path="hello.txt", content="hello from the browser\n")],
         "delay": 3},
        {"content": "I wrote hello.txt.", "delay": 4},
    ])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        proc = viewed.cli.popen("run", "chat", "write a hello file", "--approve", "ask")
        try:
            run_id = newest_run(viewed.root)
            page.goto(f"{viewed.viewer.url}/runs/{run_id}")
            page.evaluate("window.__loaded_once = true")
            first_rows = page.locator("#timeline tr.step").count()
            assert page.locator("#approval").count() == 0, "the page opened too late to see the run go on"

            # steps appear while the run goes on, then the approval it waits for, with no reload
            expect(page.locator("#approval")).to_be_visible(timeout=30_000)
            assert page.evaluate("window.__loaded_once") is True
            assert page.locator("#timeline tr.step").count() > first_rows
            expect(page.locator("#run-status")).to_have_text("waiting-approval")
            expect(page.locator("#approval")).to_contain_text("hello.txt")
            expect(page.locator("#messages")).to_contain_text("A demo project.")  # read_file's output
            proc.wait(timeout=30)
            assert proc.returncode == 4
            save_screenshot(page, tmp_path / "waiting.png")

            page.locator("#approve-all").click()
            page.wait_for_url(f"**/runs/{run_id}")
            page.evaluate("window.__loaded_once = true")
            expect(page.locator("#run-status")).to_have_text("running")  # the viewer drives it now
            expect(page.locator("#run-status")).to_have_text("done", timeout=30_000)
            assert page.evaluate("window.__loaded_once") is True  # the end arrived live, too
            expect(page.locator("#messages")).to_contain_text("I wrote hello.txt.")
            expect(page.locator("#audit")).to_contain_text("approved")
            expect(page.locator("#position")).to_have_text("__end__")
            assert page.locator("#approval").count() == 0
            save_screenshot(page, tmp_path / "run-page.png")

            page.goto(viewed.viewer.url + "/")
            expect(page.locator(f'tr[data-run="{run_id}"]')).to_contain_text("done")
            page.evaluate("window.__loaded_once = true")
            viewed.model.add_turns([{"content": "Hello again.", "delay": 1.0}])
            second = viewed.cli.popen("run", "chat", "a second run")
            expect(page.locator("#runs")).to_contain_text("a second run", timeout=30_000)  # the list is live too
            expect(page.locator("#runs tr", has_text="a second run")).to_contain_text("done", timeout=30_000)
            assert page.evaluate("window.__loaded_once") is True
            assert second.wait(timeout=30) == 0
            assert (viewed.root / "hello.txt").read_text() == "hello from the browser\n"
            assert viewed.run(run_id)["status"] == "done"
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
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
