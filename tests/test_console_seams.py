"""The reviewer console over real HTTP (httpx against a real ``cadre serve``): a policy review
shows what it asks (policy, question, the node or tool, the call's input or arguments, hook,
task) as ``cadre reviews`` prints it; the answer review's editor holds the draft; the thread
page shows the policy audit and the usage; statuses read as ``cadre threads`` says them
(paused at review, interrupted, done), a task review's page has its task to reject or edit."""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from framework.memory import MiniLMEmbedder
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, make_tokens, serve, start

QUESTION = "How are checkpoints written?"
POLICY = """\
approval: {nodes: [worker], question: "may this worker search the corpus?"}
custom: ["paced_policy:Paced"]
"""
PACED = '''"""A policy that makes every node wait a millisecond: its waits are the run's usage."""

from framework.policy import Policy, allow


class Paced(Policy):
    name = "paced"

    def before_node(self, call):
        return allow(wait_s=0.001)
'''


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("console")
    corpus = write_corpus(folder / "docs", SMALL_CORPUS)
    with serve(folder / "home", None, corpus=corpus, tokens={"ada": ("acme", "run,review")}) as s:
        yield s


@pytest.fixture(scope="module")
def governed(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[Served]:
    """A server whose runs ask before each worker and wait a little before each node."""
    folder = tmp_path_factory.mktemp("governed")
    corpus = write_corpus(folder / "docs", SMALL_CORPUS)
    (folder / "modules").mkdir()
    (folder / "modules" / "paced_policy.py").write_text(PACED, encoding="utf-8")
    policy = folder / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    path = os.pathsep.join(filter(None, [str(folder / "modules"), os.environ.get("PYTHONPATH")]))
    served = Served(url="", home=folder / "home", database=None)
    served.tokens = make_tokens(served.home, None, {"ada": ("acme", "run,review")})
    env = {**os.environ, "PYTHONPATH": path}
    with start(served, corpus=corpus, env=env, options=["--policy", str(policy)]):
        yield served


@contextmanager
def _console(served: Served) -> Iterator[httpx.Client]:
    """A console session of ada's."""
    with httpx.Client(base_url=served.url, timeout=120) as client:
        signed = client.post("/console/login", data={"token": served.tokens["ada"]})
        assert signed.status_code == 303
        yield client


def _run(served: Served, review: str = "", **options: object) -> str:
    client = served.client("ada")
    thread_id: str = client.threads.create()["thread_id"]
    config = {"configurable": {"review": [review]}} if review else None
    client.runs.wait(thread_id, "meta", input={"question": QUESTION}, config=config, **options)
    return thread_id


def _element(page: str, element_id: str) -> str:
    """The text inside the element with ``element_id`` (tags dropped, entities decoded)."""
    found = re.search(rf'<(\w+)[^>]*\bid="{re.escape(element_id)}"[^>]*>(.*?)</\1>', page, re.S)
    assert found, f"no element #{element_id} in the page"
    return html.unescape(re.sub(r"<[^>]+>", " ", found.group(2)))


def _words(text: str) -> str:
    return " ".join(text.split())


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found
    return found.group(1)


def _review_id(page: str) -> str:
    found = re.search(r'name="request_id" value="([^"]+)"', page)
    assert found
    return found.group(1)


def _decide(console: httpx.Client, thread_id: str, **form: str) -> None:
    page = console.get(f"/console/threads/{thread_id}").text
    data = {"csrf": _csrf(page), "request_id": _review_id(page), **form}
    decided = console.post(f"/console/threads/{thread_id}/decide", data=data)
    assert decided.status_code == 303, decided.text


def _joined(served: Served, thread_id: str) -> None:
    """Wait for the thread's latest run to end."""
    client = served.client("ada")
    [latest, *_] = client.runs.list(thread_id, limit=1)
    client.runs.join(thread_id, latest["run_id"])


def test_a_policy_review_shows_what_it_asks_and_the_thread_its_policy_audit_and_usage(
    governed: Served,
) -> None:
    thread_id = _run(governed)
    with _console(governed) as console:
        page = console.get(f"/console/threads/{thread_id}").text
        asks = _words(_element(page, f"asks-{_review_id(page)}"))
        assert asks == (
            "Policy approval Asks may this worker search the corpus? Node worker "
            f"Input task q0: {QUESTION} Hook before_node Task q0"
        )
        inbox = _words(_element(console.get("/console").text, "threads"))
        assert "approval asks about worker: may this worker search the corpus?" in inbox
        assert "paused at review" in inbox

        _decide(console, thread_id, kind="approve")
        _joined(governed, thread_id)
        page = console.get(f"/console/threads/{thread_id}").text
        assert _element(page, "thread-status") == "done"
        [row] = re.findall(
            r"<tr>(.*?)</tr>", _element_html(page, "policy-audit").split("<tbody>")[1], re.S
        )
        cells = [
            _words(html.unescape(re.sub(r"<[^>]+>", " ", c)))
            for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        assert cells[1:] == [
            "approval",
            "approved by ada",
            "before_node",
            "worker",
            "node research_team > team research · node worker · task q0",
            "may this worker search the corpus?",
        ]
        usage = _words(_element(page, "usage"))
        assert re.fullmatch(r"Usage: wait_s \d+(\.\d+)?(e-\d+)?", usage), usage


def _element_html(page: str, element_id: str) -> str:
    found = re.search(rf'<(\w+)[^>]*\bid="{re.escape(element_id)}"[^>]*>(.*?)</\1>', page, re.S)
    assert found, f"no element #{element_id} in the page"
    return found.group(2)


def test_the_answer_editor_holds_the_draft(served: Served) -> None:
    thread_id = _run(served, "answer")
    [interrupt] = served.client("ada").threads.get_state(thread_id)["interrupts"]
    draft = interrupt["value"]["draft"]
    assert draft.startswith("# ")
    with _console(served) as console:
        page = console.get(f"/console/threads/{thread_id}").text
        assert _element(page, "edit-answer") == draft
        _decide(console, thread_id, kind="edit_answer", answer=draft + "\nChecked by ada.")
        _joined(served, thread_id)
    values = served.client("ada").threads.get_state(thread_id)["values"]
    assert values["final_answer"].endswith("Checked by ada.")


def test_statuses_read_as_the_command_line_says_them(served: Served) -> None:
    paused = _run(served, "plan")
    tasked = _run(served, "tasks")
    stopped = _run(served, interrupt_before=["risk_assessment"])
    done = _run(served)
    with _console(served) as console:
        words = {
            thread_id: _element(console.get(f"/console/threads/{thread_id}").text, "thread-status")
            for thread_id in (paused, tasked, stopped, done)
        }
        assert words == {
            paused: "paused at review",
            tasked: "paused at review",
            stopped: "interrupted",
            done: "done",
        }
        listed = {
            status: console.get("/console", params={"status": status}).text
            for status in ("paused", "interrupted", "done")
        }
        assert paused in listed["paused"] and tasked in listed["paused"]
        assert stopped not in listed["paused"] and done not in listed["paused"]
        assert stopped in listed["interrupted"] and paused not in listed["interrupted"]
        assert done in listed["done"] and paused not in listed["done"]
        assert 'option value="paused" selected>paused at review<' in console.get("/console").text

        page = console.get(f"/console/threads/{tasked}").text  # a task review: its one task
        assert _words(_element(page, f"asks-{_review_id(page)}")).startswith(
            f"Task q0 (search): {QUESTION}"
        )
        assert 'name="task_ids" value="q0"' in page
        assert '"id": "q0"' in html.unescape(_element_html(page, "edit-tasks"))
