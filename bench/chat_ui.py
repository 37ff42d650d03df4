"""LangChain's Agent Chat UI, built from its public repository and run as its users run it
(``next start``), against a real ``cadre serve``, in Debian's headless Chromium: ask a
question, approve the plan review it pauses at, watch the answer come, ask the thread's next
question the same way, and save screenshots.

The app is built outside this repository (its build fetches Google's Inter font: offline, point
``NEXT_FONT_GOOGLE_MOCKED_RESPONSES`` at a file answering any font URL with a local font)::

    git clone https://github.com/langchain-ai/agent-chat-ui APP && cd APP
    npm install && npm run build
    PYTHONPATH=. .venv/bin/python bench/chat_ui.py APP --out shots/

The served team is a team file (``review: [plan]``) over a small corpus, served with the
app's origin allowed (``--allow-origin``: the page calls the API from the browser); the app is
pointed at it by its own query parameters (``apiUrl``, ``assistantId``) and API key (local
storage). It prints what it saw as JSON, per question: the plan review's text on the page,
the thread's question and human turns, the answer, and each length the last AI message's text
had as the page changed (growing a few words at a time: it streamed); and the screenshots.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from tests.chromium import headless_chromium
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, serve

QUESTIONS = ("How are checkpoints written?", "How do workers retry?")
"""Two questions on one thread: the second is the thread's next question."""
TEAM = """name: chat
review: [plan]
kinds:
  - {name: docs, description: passages from the documentation, builtin: search}
"""
BOX = "textarea[placeholder='Type your message...']"
WAIT_S = 180.0
"""How long each step may take (the app compiles nothing at start, the team runs offline)."""

_T = TypeVar("_T")

_WATCH = """
window.__lengths = [];
const seen = () => {
  const ai = [...document.querySelectorAll('.group.mr-auto')].pop();
  const n = ai ? ai.innerText.length : 0;
  const all = window.__lengths;
  if (!all.length || all[all.length - 1] !== n) all.push(n);
};
new MutationObserver(seen).observe(document.body, {subtree: true, childList: true,
  characterData: true});
"""
"""Records each length the last AI message's text takes as the page changes."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _until(what: str, check: Callable[[], _T | None], timeout: float = WAIT_S) -> _T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise SystemExit(f"timed out waiting for {what}")


@contextmanager
def _app(path: Path, port: int, log: Path) -> Iterator[str]:
    """``next start`` of the built app on ``port``; its address."""
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(path / "node_modules" / ".bin" / "next"), "start", "-p", str(port)],
            cwd=path,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _until("the app to listen", lambda: _listens(port))
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def _listens(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _text(driver: WebDriver, needle: str, times: int = 1) -> str | None:
    """The page's text when it holds ``needle`` (at least ``times`` times)."""
    body: str = driver.find_element(By.TAG_NAME, "body").text
    return body if body.count(needle) >= times else None


def _button(driver: WebDriver, label: str) -> Any:
    buttons = driver.find_elements(By.XPATH, f"//button[normalize-space()='{label}']")
    return next((b for b in buttons if b.is_displayed() and b.is_enabled()), None)


def chat(app: Path, out: Path) -> dict[str, Any]:
    """Ask, approve and read the answer in the app at ``app``; screenshots in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        corpus = write_corpus(work / "docs", SMALL_CORPUS)
        team = work / "team.yaml"
        team.write_text(TEAM, encoding="utf-8")
        tokens = {"ada": ("acme", "run,review")}
        port = _free_port()  # the app's page calls the API: its origin is allowed
        options = ("--team-config", str(team), "--allow-origin", f"http://127.0.0.1:{port}")
        with (
            serve(work / "home", None, corpus=corpus, tokens=tokens, options=options) as served,
            _app(app, port, out / "next.log") as url,
            headless_chromium() as driver,
        ):
            try:
                return _ask_and_approve(driver, served, url, out)
            except SystemExit:
                driver.save_screenshot(str(out / "failed.png"))
                raise


def _ask_and_approve(driver: WebDriver, served: Served, url: str, out: Path) -> dict[str, Any]:
    page = f"{url}/?apiUrl={served.url}&assistantId=chat"
    driver.set_window_size(1280, 1800)  # the question, the review and the answer in one shot
    driver.get(page)
    driver.execute_script(
        "localStorage.setItem('lg:chat:apiKey', arguments[0])", served.tokens["ada"]
    )
    driver.get(page)
    turns = [_turn(driver, served, out, q, number) for number, q in enumerate(QUESTIONS, 1)]
    return {
        "turns": turns,
        "screenshots": sorted(str(p) for p in out.glob("*.png")),
    }


def _turn(
    driver: WebDriver, served: Served, out: Path, question: str, number: int
) -> dict[str, Any]:
    """Ask ``question`` (the ``number``th on the thread), approve its plan, read its answer."""
    box = _until("the message box", lambda: driver.find_elements(By.CSS_SELECTOR, BOX))[0]
    box.send_keys(question, Keys.ENTER)
    review = _until("the plan review", lambda: _text(driver, f'"goal":"{question}"'))
    driver.save_screenshot(str(out / f"{number}a-plan-review.png"))
    approve = _until("the approve button", lambda: _button(driver, "Approve"))
    driver.execute_script(_WATCH)
    approve.click()
    client = served.client("ada")
    thread_id = client.threads.search(metadata={"graph_id": "chat"}, limit=1)[0]["thread_id"]
    _until("the run to end", lambda: client.threads.get(thread_id)["status"] == "idle")
    values = client.threads.get_state(thread_id)["values"]
    _until("the answer on the page", lambda: _text(driver, "Sources", times=number))
    time.sleep(1)  # the last frames paint
    driver.save_screenshot(str(out / f"{number}b-answer.png"))
    return {
        "thread_id": thread_id,
        "review_on_page": review.split("Edit/Approve")[0][-200:],
        "question": values["question"],
        "human_turns": [m["content"] for m in values["messages"] if m["type"] == "human"],
        "answer": values["final_answer"],
        "answer_lengths_seen": driver.execute_script("return window.__lengths"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("app", type=Path, help="the built agent-chat-ui checkout")
    parser.add_argument("--out", type=Path, default=Path("chat-ui-shots"))
    args = parser.parse_args()
    if not (args.app / ".next" / "BUILD_ID").exists():
        raise SystemExit(f"{args.app}: not a built agent-chat-ui (run npm install, npm run build)")
    print(json.dumps(chat(args.app.resolve(), args.out), indent=2))


if __name__ == "__main__":
    main()
