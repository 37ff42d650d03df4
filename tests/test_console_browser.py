"""The reviewer console in a real headless Chromium (Debian's ``chromium`` and
``chromium-driver``, through Selenium): sign in with a token, find the paused run in the inbox,
submit an invalid plan edit and see the error beside the field (the thread unchanged), approve,
and read the answer; a task description with ``<script>`` renders as text; another tenant's
thread is not there; forms without their CSRF token are refused; the pages fit a phone.

Screenshots go to ``$CADRE_SCREENSHOTS`` when set (the README's come from there), else to the
test's temporary folder.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.wait import WebDriverWait

from bench.crash import CrashLab, CrashSettings
from framework.memory import MiniLMEmbedder
from tests.chromium import SCREENSHOTS_VARIABLE, headless_chromium
from tests.conftest import (
    HELD_TEAM,
    SMALL_CORPUS,
    HeldRun,
    held_run,
    wait_for_effects,
    write_corpus,
)
from tests.served import Served, make_tokens, serve, start

QUESTION = "How are checkpoints written? <script>window.__xss = 1</script>"
WAIT_S = 90.0
ONE_AT_A_TIME = {"configurable": {"max_parallel": 1}}


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with headless_chromium() as driver:
        yield driver


@pytest.fixture
def served(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Served]:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    tokens = {"ada": ("acme", "run,review"), "bob": ("globex", "run,review")}
    with serve(tmp_path / "home", None, corpus=corpus, tokens=tokens) as server:
        yield server


def _screenshot(driver: WebDriver, tmp_path: Path, name: str) -> None:
    folder = Path(os.environ.get(SCREENSHOTS_VARIABLE) or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(folder / name))


_NAVIGATING = (StaleElementReferenceException, WebDriverException)
"""What a wait across a page load ignores and polls again: an element of the page going away,
which Chromium may report as an inspector error ("Node with given id does not belong to the
document") rather than a stale element when the machine is busy."""


def _shown(driver: WebDriver, locator: tuple[str, str]) -> WebElement:
    """The element once the page that has it is loaded (clicks navigate)."""
    wait = WebDriverWait(driver, WAIT_S, ignored_exceptions=_NAVIGATING)
    found: WebElement = wait.until(expected_conditions.presence_of_element_located(locator))
    return found


def _heading(driver: WebDriver, text: str) -> None:
    wait = WebDriverWait(driver, WAIT_S, ignored_exceptions=_NAVIGATING)
    wait.until(expected_conditions.text_to_be_present_in_element((By.TAG_NAME, "h1"), text))


def _sign_in(driver: WebDriver, served: Served, name: str) -> None:
    driver.delete_all_cookies()
    driver.get(f"{served.url}/console")
    _shown(driver, (By.ID, "token")).send_keys(served.tokens[name])
    driver.find_element(By.ID, "sign-in").click()
    _heading(driver, "Inbox")


def _paused_thread(served: Served) -> str:
    client = served.client("ada")
    thread_id: str = client.threads.create()["thread_id"]
    review = {"configurable": {"review": ["plan"]}}
    client.runs.wait(thread_id, "meta", input={"question": QUESTION}, config=review)
    return thread_id


def _wait_for_answer(driver: WebDriver) -> str:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            found = driver.find_elements(By.ID, "answer")
            if found:
                return str(found[0].text)
        except _NAVIGATING:  # the page was loading
            pass
        time.sleep(0.5)
        driver.refresh()
    raise AssertionError(f"no answer after {WAIT_S} s: {driver.page_source[:2000]}")


def test_a_reviewer_edits_badly_then_approves_and_reads_the_answer(
    browser: WebDriver, served: Served, tmp_path: Path
) -> None:
    thread_id = _paused_thread(served)
    _sign_in(browser, served, "ada")
    [item] = browser.find_elements(By.CLASS_NAME, "thread-item")
    assert "<script>" in item.text and "plan review" in item.text
    _screenshot(browser, tmp_path, "console-inbox.png")

    item.find_element(By.CLASS_NAME, "thread-link").click()
    assert "<script>window.__xss = 1</script>" in _shown(browser, (By.ID, "question")).text
    assert browser.execute_script("return window.__xss === undefined")  # text, never run

    editor = browser.find_element(By.ID, "edit-plan")
    plan = json.loads(editor.get_attribute("value") or "{}")
    plan["tasks"][0]["description"] = ""
    browser.execute_script("arguments[0].value = arguments[1]", editor, json.dumps(plan))
    browser.find_element(By.ID, "save-plan").click()
    error = _shown(browser, (By.ID, "error-plan")).text
    assert "plan.tasks.0.description" in error and "at least 1 character" in error
    state = served.client("ada").threads.get_state(thread_id)
    assert state["next"] == ["research_team"] and len(state["interrupts"]) == 1  # untouched

    _shown(browser, (By.ID, "approve")).click()
    answer = _wait_for_answer(browser)
    assert answer and not answer.startswith("#")  # the answer's Markdown, rendered
    assert browser.find_elements(By.CSS_SELECTOR, "#answer h1, #answer h2, #answer h3")
    assert all(_one_line(browser, cell) for cell in _task_id_cells(browser))
    audit = browser.find_element(By.CLASS_NAME, "audit").text
    assert "approve of the plan review by ada" in audit
    assert browser.find_elements(By.CSS_SELECTOR, "#waterfall .span-bar")  # the trace
    _screenshot(browser, tmp_path, "console-thread.png")

    [paused_row] = [
        row
        for row in browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
        if row.find_elements(By.TAG_NAME, "td")[2].text == "research_team"
    ]
    paused_row.find_element(By.CLASS_NAME, "fork").click()  # a new thread from the pause
    _shown(browser, (By.ID, "question"))
    WebDriverWait(browser, WAIT_S).until(lambda driver: thread_id not in driver.current_url)
    fork_id = browser.current_url.rsplit("/", 1)[-1]
    deadline = time.monotonic() + WAIT_S
    while not browser.find_elements(By.ID, "approve") and time.monotonic() < deadline:
        time.sleep(0.5)
        browser.refresh()
    assert browser.find_elements(By.ID, "approve")  # the fork waits at the plan review again
    forked = served.client("ada").threads.get_state(fork_id)
    assert forked["next"] == ["research_team"]
    assert served.client("ada").threads.get_state(thread_id)["next"] == []  # original done

    browser.set_window_size(390, 844)  # a phone
    try:
        browser.refresh()
        assert browser.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth + 1"
        )
        _screenshot(browser, tmp_path, "console-phone.png")
    finally:
        browser.set_window_size(1280, 1000)


def _task_id_cells(driver: WebDriver) -> list[WebElement]:
    cells = driver.find_elements(By.CSS_SELECTOR, "#tasks td.task-id")
    assert cells
    return cells


def _one_line(driver: WebDriver, cell: WebElement) -> bool:
    """Whether the cell's text is laid out on one line (no word broken across lines)."""
    return bool(
        driver.execute_script(
            "const range = document.createRange(); range.selectNodeContents(arguments[0]);"
            "return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size === 1;",
            cell,
        )
    )


@contextmanager
def _held_server(tmp_path: Path, *, max_parallel: int) -> Iterator[tuple[Served, HeldRun]]:
    """``cadre serve`` whose held team's workers wait after the first task until released."""
    lab = CrashLab(tmp_path, CrashSettings(tasks=4, max_parallel=max_parallel))
    held = held_run(lab.env, tmp_path, None)
    served = Served(url="", home=tmp_path / "home", database=None)
    served.tokens = make_tokens(served.home, None, {"ada": ("acme", "run,review")})
    with start(served, env=held.env):
        yield served, held


def test_after_a_decision_the_page_shows_the_run_going_on_without_stale_forms(
    browser: WebDriver, tmp_path: Path
) -> None:
    with _held_server(tmp_path, max_parallel=1) as (served, held):
        client = served.client("ada")
        thread_id = client.threads.create()["thread_id"]
        config: Any = {"configurable": {"max_parallel": 1, "review": ["plan"]}}
        client.runs.wait(thread_id, HELD_TEAM, input={"question": "count"}, config=config)
        _sign_in(browser, served, "ada")
        browser.get(f"{served.url}/console/threads/{thread_id}")
        _shown(browser, (By.ID, "approve")).click()  # the run goes on, held after one task
        assert served.process is not None
        wait_for_effects(held.effects, served.process, timeout=WAIT_S)
        browser.get(f"{served.url}/console/threads/{thread_id}")
        assert _shown(browser, (By.ID, "thread-status")).text == "running"
        stale = "#approve, #edit-plan, #reject, #reject-tasks, form[action$='/decide']"
        assert not browser.find_elements(By.CSS_SELECTOR, stale)
        _screenshot(browser, tmp_path, "console-decided.png")
        held.release.touch()
        WebDriverWait(browser, WAIT_S, ignored_exceptions=_NAVIGATING).until(
            lambda driver: driver.find_elements(By.ID, "answer")
        )
        assert _shown(browser, (By.ID, "thread-status")).text == "done"
        assert not browser.find_elements(By.CSS_SELECTOR, stale)
        assert client.threads.get_state(thread_id)["next"] == []


def test_another_tenants_thread_is_not_reachable(browser: WebDriver, served: Served) -> None:
    thread_id = _paused_thread(served)
    _sign_in(browser, served, "bob")
    assert browser.find_elements(By.ID, "empty-inbox")
    browser.get(f"{served.url}/console/threads/{thread_id}")
    _heading(browser, "no such thread")
    assert "plan" not in browser.page_source.lower().split("<h1>")[-1].split("</h1>")[0]


def test_a_form_without_its_csrf_token_is_refused(served: Served) -> None:
    thread_id = _paused_thread(served)
    with httpx.Client(base_url=served.url) as client:
        signed = client.post("/console/login", data={"token": served.tokens["ada"]})
        assert signed.status_code == 303
        cookie = signed.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/console" in cookie
        page = client.get(f"/console/threads/{thread_id}")
        assert page.status_code == 200
        forged = client.post(
            f"/console/threads/{thread_id}/decide", data={"kind": "approve", "request_id": "x"}
        )
        assert forged.status_code == 403 and "CSRF" in forged.text
        wrong = client.post("/console/login", data={"token": "cadre_000000000000_nope"})
        assert wrong.status_code == 401
    assert served.client("ada").threads.get_state(thread_id)["next"] == ["research_team"]


def test_a_running_thread_shows_it_and_the_page_turns_to_the_answer_when_it_ends(
    browser: WebDriver, tmp_path: Path
) -> None:
    with _held_server(tmp_path, max_parallel=2) as (served, held):
        client = served.client("ada")
        thread_id = client.threads.create()["thread_id"]
        client.runs.create(thread_id, HELD_TEAM, input={"question": "count"}, config=ONE_AT_A_TIME)
        assert served.process is not None
        wait_for_effects(held.effects, served.process, timeout=WAIT_S)
        _sign_in(browser, served, "ada")
        browser.get(f"{served.url}/console/threads/{thread_id}")
        assert _shown(browser, (By.ID, "thread-status")).text == "running"
        assert browser.find_element(By.ID, "live").is_displayed()
        held.release.touch()  # the run goes on; its end reloads the page (plain JavaScript)
        WebDriverWait(browser, WAIT_S, ignored_exceptions=_NAVIGATING).until(
            lambda driver: driver.find_elements(By.ID, "answer")
        )
        assert _shown(browser, (By.ID, "thread-status")).text == "done"
