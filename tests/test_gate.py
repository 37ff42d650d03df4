"""The one gate: every door (API, console, CLI threads in the same home) asks it, and what one
door refuses no other lets through."""

from __future__ import annotations

import html
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from framework.database.home import DataHome
from framework.engine.state import TeamState
from framework.errors import AccessDenied, InvalidUpdate, UnknownThread
from framework.memory import MiniLMEmbedder
from framework.runs.gate import (
    ACTION_SCOPES,
    LOCAL_CALLER,
    Caller,
    acting_spec,
    admit,
    checked_update,
    claim_thread,
    run_action,
)
from framework.runs.spec import RunSpec
from framework.runs.threads import read_thread_spec
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import CADRE, Served, serve

QUESTION = "How are checkpoints written?"
PLAN_REVIEW = {"configurable": {"review": ["plan"]}}
CHANNELS = ("question", "plan", "tasks", "final_answer", "messages", "branch:to:plan", "__start__")


def _caller(*scopes: str, name: str = "carl") -> Caller:
    return Caller(tenant="acme", name=name, scopes=frozenset(scopes))


# -- the rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize("action", sorted(ACTION_SCOPES))
@pytest.mark.parametrize("scopes", [("run",), ("review",), ("run", "review"), ("admin",), ()])
def test_each_action_needs_one_of_its_scopes(action: Any, scopes: tuple[str, ...]) -> None:
    caller = _caller(*scopes)
    allowed = "admin" in scopes or bool(set(scopes) & ACTION_SCOPES[action])
    if allowed:
        assert admit(caller, action) is caller
    else:
        with pytest.raises(AccessDenied, match=r"lacks the .* scope"):
            admit(caller, action)


def test_resuming_or_updating_is_a_review_decision() -> None:
    assert run_action(None) == run_action({}) == "start_run"
    assert run_action({"resume": "approve"}) == "decide_review"
    assert run_action({"update": {"plan": None}}) == "decide_review"


def test_a_run_acts_for_its_caller_not_for_the_threads_first_principal() -> None:
    first = acting_spec(RunSpec(team="meta"), _caller("run", "review", name="ada"))
    again = acting_spec(first, _caller("run"))
    assert again.principal is not None
    assert (again.principal.user, again.principal.scopes) == ("carl", frozenset({"run"}))
    assert again.model_copy(update={"principal": None}) == first.model_copy(
        update={"principal": None}
    )


def test_a_thread_is_claimed_only_by_its_owner_and_refused_as_if_missing() -> None:
    for another_tenants, recorded in ((True, False), (False, True)):
        with pytest.raises(UnknownThread, match="thread nightly not found"):
            claim_thread(
                _caller("admin"),
                "nightly",
                another_tenants=another_tenants,
                recorded_elsewhere=recorded,
            )
    claim_thread(LOCAL_CALLER, "nightly", another_tenants=False, recorded_elsewhere=True)
    claim_thread(_caller("run"), "fresh", another_tenants=False, recorded_elsewhere=False)


@pytest.mark.parametrize(
    ("values", "pending", "message"),
    [
        ({"plan": None}, 1, "waits for 1 review"),
        (["plan"], 0, "one mapping"),
        ({"nope": 1}, 0, "nope are not keys"),
        ({"branch:to:plan": 1}, 0, "branch:to:plan are not keys"),
        ({"__start__": 1}, 0, "__start__ are not keys"),
        ({"tasks": "garbage"}, 0, "tasks: "),
        ({"plan": {"goal": 3, "tasks": "x"}}, 0, "plan: "),
    ],
)
def test_a_state_update_is_checked_before_anything_is_written(
    values: Any, pending: int, message: str
) -> None:
    with pytest.raises(InvalidUpdate, match=re.escape(message)):
        checked_update(values, CHANNELS, TeamState, pending=pending)


def test_a_well_formed_update_goes_through() -> None:
    values = {"final_answer": "42", "messages": [("user", "hi")], "question": "why?"}
    assert checked_update(values, CHANNELS, TeamState, pending=0) == values


# -- the doors ---------------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Served]:
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    tokens = {
        "ada": ("acme", "run,review"),
        "runner": ("acme", "run"),
        "reviewer": ("acme", "review"),
        "eve": ("globex", "run,review,admin"),
    }
    with serve(tmp_path / "home", None, corpus=corpus, tokens=tokens) as server:
        yield server


def _paused(served: Served) -> str:
    client = served.client("ada")
    thread_id: str = client.threads.create()["thread_id"]
    client.runs.wait(thread_id, "meta", input={"question": QUESTION}, config=PLAN_REVIEW)
    return thread_id


@contextmanager
def _console(served: Served, name: str, thread_id: str) -> Iterator[tuple[httpx.Client, str]]:
    """A console session of ``name`` on the thread's page, and the page's CSRF token."""
    with httpx.Client(base_url=served.url, timeout=120) as client:
        signed = client.post("/console/login", data={"token": served.tokens[name]})
        assert signed.status_code == 303
        page = client.get(f"/console/threads/{thread_id}")
        assert page.status_code == 200, page.text
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found is not None
        yield client, found.group(1)


def test_every_door_refuses_what_the_api_refuses(served: Served) -> None:
    thread_id = _paused(served)
    [interrupt] = served.client("ada").threads.get_state(thread_id)["interrupts"]
    decide = {"kind": "approve", "request_id": interrupt["id"]}
    # the console: a run-only token does not decide a review, a review-only one does not fork
    with _console(served, "runner", thread_id) as (runner, csrf):
        refused = runner.post(f"/console/threads/{thread_id}/decide", data={**decide, "csrf": csrf})
        assert refused.status_code == 403 and "'review'" in html.unescape(refused.text)
    with _console(served, "reviewer", thread_id) as (reviewer, csrf):
        forked = reviewer.post(f"/console/threads/{thread_id}/fork", data={"csrf": csrf})
        assert forked.status_code == 403 and "'run'" in html.unescape(forked.text)
    # the API: a state update through a run's command is a review decision
    with served.http("runner") as http:
        update = {"assistant_id": "meta", "command": {"update": {"question": "injected?"}}}
        answer = http.post(f"/threads/{thread_id}/runs/wait", json=update)
        assert answer.status_code == 403, answer.text
    with served.http("ada") as http:
        for values in ({"plan": {"goal": "mine", "tasks": []}}, {"tasks": "garbage"}):
            body = {"assistant_id": "meta", "command": {"update": values}}
            answer = http.post(f"/threads/{thread_id}/runs/wait", json=body)
            assert answer.status_code == 422, answer.text
        assert http.post("/threads/search", json={}).status_code == 200
    state = served.client("ada").threads.get_state(thread_id)
    assert state["next"] == ["research_team"] and state["values"]["question"] == QUESTION
    # nothing was decided meanwhile: the reviewer's interrupt is the planner's plan
    [still] = state["interrupts"]
    assert still["id"] == interrupt["id"] and still["value"] == interrupt["value"]
    assert served.client("reviewer").threads.get_state(thread_id)["interrupts"] == [still]


def test_a_run_continued_by_another_caller_acts_for_that_caller(served: Served) -> None:
    thread_id = _paused(served)
    reviewer = served.client("reviewer")
    [interrupt] = reviewer.threads.get_state(thread_id)["interrupts"]
    reviewer.runs.wait(thread_id, "meta", command={"resume": {interrupt["id"]: "approve"}})
    spec = read_thread_spec(DataHome(root=served.home), thread_id)
    assert spec.principal is not None
    assert (spec.principal.user, spec.principal.scopes) == ("reviewer", frozenset({"review"}))


def test_a_thread_cadre_run_made_is_not_claimed_by_a_tenant(served: Served, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "cli-docs", SMALL_CORPUS)
    args = ["run", QUESTION, "--corpus", str(corpus), "--thread", "nightly", "--no-trace"]
    made = subprocess.run(
        [*CADRE, *args, "--home", str(served.home)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
        check=False,
    )
    assert made.returncode == 0, made.stderr
    with served.http("eve") as http:
        claimed = http.post("/threads", json={"thread_id": "nightly"})
        assert claimed.status_code == 404 and "not found" in claimed.text
        assert http.get("/threads/nightly/state").status_code == 404
        run = {"assistant_id": "meta", "input": {"question": "mine?"}, "if_not_exists": "create"}
        assert http.post("/threads/nightly/runs/wait", json=run).status_code == 404
    assert read_thread_spec(DataHome(root=served.home), "nightly").principal is None


def test_the_console_is_not_framed_cached_or_signed_in_from_another_site(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=120) as client:
        page = client.get("/console/login")
        assert page.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["cache-control"] == "no-store"
        token = {"token": served.tokens["eve"]}
        forged = client.post("/console/login", data=token, headers={"origin": "https://x.test"})
        assert forged.status_code == 403 and "set-cookie" not in forged.headers
        own = client.post("/console/login", data=token, headers={"origin": served.url})
        assert own.status_code == 303 and "set-cookie" in own.headers


def test_another_tenants_thread_id_reads_as_missing_even_to_create_it(served: Served) -> None:
    served.client("eve").threads.create(thread_id="shared-name")
    with served.http("ada") as http:
        taken = http.post("/threads", json={"thread_id": "shared-name"})
        assert taken.status_code == 404, taken.text
        run = {"assistant_id": "meta", "input": {"question": "q"}, "if_not_exists": "create"}
        assert http.post("/threads/shared-name/runs/wait", json=run).status_code == 404
        own = http.post("/threads", json={"thread_id": "mine"})
        again = http.post("/threads", json={"thread_id": "mine"})
        assert own.status_code == 200 and again.status_code == 409
    assert [t["thread_id"] for t in served.client("eve").threads.search()] == ["shared-name"]


def test_cadre_run_does_not_write_a_thread_a_tenant_has(served: Served, tmp_path: Path) -> None:
    served.client("eve").threads.create(thread_id="theirs")  # no run yet: no checkpoints
    corpus = write_corpus(tmp_path / "cli-docs", SMALL_CORPUS)
    args = ["run", QUESTION, "--corpus", str(corpus), "--thread", "theirs", "--no-trace"]
    refused = subprocess.run(
        [*CADRE, *args, "--home", str(served.home)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
        check=False,
    )
    assert refused.returncode != 0 and "thread theirs not found" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert served.client("eve").threads.get_state("theirs")["values"] == {}
