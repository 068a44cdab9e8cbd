"""The web page in a real headless Chromium: open the printed address, filter, edit a memory,
then read MEMORY.md. The system's browser is driven by Playwright (nothing is downloaded);
without one the test skips and says why."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from everbot_memory import Memory

pytest.importorskip("starlette", reason="the ui extra is not installed")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')"
)

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(
        "no Chromium on this machine (apt-get install chromium; .ci/run installs it where it can)"
    )


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    memory = Memory(tmp_path / "MEMORY.md")
    memory.init()
    memory.remember("The user prefers pytest over unittest.", "preference", "high")
    memory.remember("The user deploys on Fridays after lunch.", "workflow", "medium")
    memory.remember(
        "The user once tried Vue for a side project.", "experience", "low", group="hobby"
    )
    return memory


@pytest.fixture
def url(memory: Memory) -> Iterator[str]:
    """The address ``everbot-memory ui`` prints, with the command serving it."""
    command = [sys.executable, "-m", "everbot_memory", "ui", "--file", str(memory.path)]
    server = subprocess.Popen(
        [*command, "--no-browser", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line:
            pytest.fail(f"everbot-memory ui did not start: {server.communicate(timeout=10)[1]}")
        yield json.loads(line)["url"]
    finally:
        server.terminate()
        server.communicate(timeout=10)  # and close its pipes


def test_filter_and_edit_in_a_real_browser(memory: Memory, url: str, tmp_path: Path) -> None:
    executable = _browser()
    friday = next(e.id for e in memory.entries() if "Fridays" in e.content)
    # Root cannot use Chromium's sandbox (CI runs as root).
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=args)
        try:
            page = browser.new_page()
            # Nothing outside this machine is asked for: every request goes to the server.
            requested: list[str] = []
            page.on("request", lambda request: requested.append(request.url))
            page.goto(url)
            assert page.url.endswith("/")  # the token went into a cookie, out of the address
            assert page.locator("tr[data-id]").count() == 3

            page.select_option("select[name=category]", "workflow")
            page.click("#filters button[type=submit]")
            page.wait_for_url("**/?*category=workflow*")
            rows = page.locator("tr[data-id]")
            assert rows.count() == 1 and rows.first.get_attribute("data-id") == friday

            # The group filter: only the memory filed under "hobby".
            page.select_option("select[name=category]", "")
            page.select_option("select[name=group]", "hobby")
            page.click("#filters button[type=submit]")
            page.wait_for_url("**/?*group=hobby*")
            assert page.locator("tr[data-id]").count() == 1
            assert "Vue" in page.locator("tr[data-id] td.content").first.inner_text()

            page.goto(url.split("/?", 1)[0] + f"/memories/{friday}")
            page.wait_for_url(f"**/memories/{friday}")
            assert page.locator("svg.chart polyline").count() == 1
            page.fill("form.edit textarea[name=content]", "The user deploys on Thursdays.")
            page.select_option("form.edit select[name=category]", "decision")
            page.fill("form.edit input[name=group]", "work")
            page.fill("form.edit input[name=score]", "0.75")
            with page.expect_navigation():
                page.click("form.edit button[type=submit]")
            assert page.url.endswith(f"/memories/{friday}?saved=saved"), page.inner_text("main")
            assert "Saved." in page.inner_text("main")

            shot = tmp_path / "everbot-memory-ui.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"screenshot: {shot}")
            assert shot.stat().st_size > 0
            origin = url.split("/?", 1)[0]
            assert all(address.startswith(origin) for address in requested), requested
        finally:
            browser.close()

    entry = memory.get(friday)
    assert (entry.content, entry.category, entry.score, entry.group) == (
        "The user deploys on Thursdays.",
        "decision",
        0.75,
        "work",
    )
    text = memory.path.read_text(encoding="utf-8")
    assert "The user deploys on Thursdays." in text and "Fridays" not in text
