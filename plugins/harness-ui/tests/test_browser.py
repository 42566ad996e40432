"""A real browser against ``harness serve --demo``: Debian's chromium driven by Playwright.

The demo (``harness_ui.demo``) is the real built-in harness on a throwaway copy of a small
project, only the model scripted. Permission mode ``allow-edits`` makes each
test run (a shell command) ask for an approval in the page. In CI (HARNESS_REQUIRE_RUNTIMES
names chromium) a missing browser fails the test instead of skipping it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Served

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_MS = 120_000

pytestmark = [pytest.mark.requires_runtime("chromium")]


@pytest.fixture
def page() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            tab = browser.new_page(viewport={"width": 1100, "height": 900})
            tab.set_default_timeout(TIMEOUT_MS)
            yield tab
        finally:
            browser.close()


@pytest.fixture
def demo_server(tmp_path: Path) -> Iterator[Served]:
    server = Served("--demo", cwd=tmp_path)
    try:
        yield server
    finally:
        server.stop()


def send_demo_prompt(page: Any, url: str) -> None:
    from harness_ui.demo import DEMO_PROMPT

    page.goto(url + "/")
    prompt = page.get_by_test_id("prompt")
    prompt.fill("")
    prompt.type(DEMO_PROMPT)
    page.get_by_test_id("send").click()


def pending_bash(page: Any) -> Any:
    card = page.locator('[data-testid="tool-card"][data-tool-name="bash"][data-state="approval-requested"]')
    card.first.wait_for()
    assert card.count() == 1
    return card.first


def test_approve_the_shell_command_and_see_the_tests_pass(page: Any, demo_server: Served, tmp_path: Path) -> None:
    send_demo_prompt(page, demo_server.url)
    bash = pending_bash(page)
    reads = page.locator('[data-testid="tool-card"][data-tool-name="read"]')
    assert reads.count() == 2 and reads.first.get_attribute("data-tool-kind") == "built-in"
    assert reads.first.get_attribute("data-state") == "output-available"
    assert "unittest" in bash.inner_text()
    bash.get_by_test_id("approve").click()
    # The fix, the diff (a host tool from harness-tools-git), then the second test run asks again.
    page.locator('[data-testid="tool-card"][data-tool-name="edit"][data-state="output-available"]').wait_for()
    second = pending_bash(page)
    # The first run fails (exit status 1): a tool error the model reads.
    first_run = page.locator('[data-testid="tool-card"][data-tool-name="bash"][data-state="output-error"]')
    assert "FAILED (failures=1)" in first_run.first.inner_text()
    second.get_by_test_id("approve").click()
    page.get_by_text("All 3 tests pass.").wait_for()
    runs = page.locator('[data-testid="tool-card"][data-tool-name="bash"][data-state="output-available"]')
    assert runs.count() == 1
    assert "Ran 3 tests" in runs.first.inner_text() and "\nOK" in runs.first.inner_text()
    diff = page.locator('[data-testid="tool-card"][data-tool-name="git_diff"]')
    assert diff.count() == 1 and diff.get_attribute("data-tool-kind") == "host"
    assert "+    return total(prices) / len(prices)" in diff.inner_text()
    changes = page.locator('[data-testid="tool-card"][data-tool-name="fileChange"]')
    assert changes.count() >= 1 and changes.first.get_attribute("data-tool-kind") == "dynamic"
    page.get_by_test_id("status").filter(has_text="ready").wait_for()
    shot = tmp_path / "chat-approved.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


def test_deny_the_shell_command_and_the_model_sees_the_denial(page: Any, demo_server: Served,
                                                              tmp_path: Path) -> None:
    send_demo_prompt(page, demo_server.url)
    pending_bash(page).get_by_test_id("deny").click()
    denied = page.locator('[data-testid="tool-card"][data-tool-name="bash"][data-state="output-denied"]')
    denied.first.wait_for()
    # The scripted model goes on (fix, diff) and runs the tests again: deny that too.
    page.locator('[data-testid="tool-card"][data-tool-name="edit"][data-state="output-available"]').wait_for()
    pending_bash(page).get_by_test_id("deny").click()
    page.get_by_text("I could not run the tests because the command was denied").wait_for()
    assert denied.count() == 2
    assert page.locator('[data-testid="tool-card"][data-tool-name="bash"][data-state="output-available"]').count() == 0
    shot = tmp_path / "chat-denied.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


def test_a_client_side_tool_is_answered_in_the_page(page: Any, tmp_path: Path) -> None:
    """A host tool without ``execute``: the page asks the user and sends the answer with
    ``addToolOutput``; the model gets it. The compaction card is a dynamic tool."""
    from harness_ui import MemoryChatStore, create_chat_app

    from harness_core import define_harness_tool
    from harness_core.testing import CallHost, Compact, EchoResults, Say, ScriptedAdapter

    from .conftest import serve_in_thread

    pick = define_harness_tool(name="pick_color", description="Ask the user for a color.",
                               input={"type": "object", "properties": {"question": {"type": "string"}}})
    runtime = ScriptedAdapter([[[Say("Let me ask."), CallHost("pick_color", {"question": "Favourite?"})],
                                [Compact("earlier steps"), EchoResults("You chose")]]])
    app = create_chat_app(runtime.agent(tools=[pick]), store=MemoryChatStore())
    with serve_in_thread(app) as url:
        page.goto(url + "/")
        page.get_by_test_id("prompt").type("Pick a color for me")
        page.get_by_test_id("send").click()
        card = page.locator('[data-testid="tool-card"][data-tool-name="pick_color"]')
        card.get_by_test_id("client-tool-prompt").wait_for()
        assert card.get_attribute("data-tool-kind") == "host"
        card.get_by_test_id("client-tool-input").type("teal")
        card.get_by_test_id("client-tool-send").click()
        page.get_by_text("You chose pick_color: teal").wait_for()
        assert card.get_attribute("data-state") == "output-available"
        compaction = page.locator('[data-testid="tool-card"][data-tool-name="compaction"]')
        assert compaction.count() == 1 and compaction.get_attribute("data-tool-kind") == "dynamic"
        page.screenshot(path=str(tmp_path / "chat-client-tool.png"), full_page=True)
