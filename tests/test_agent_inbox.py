"""LangChain's Agent Inbox against a real ``cadre serve``: the calls its ``ThreadsProvider``
(``src/components/agent-inbox/contexts/ThreadContext.tsx``) and ``useInterruptedActions`` make
through ``@langchain/langgraph-sdk``, replayed with ``langgraph-sdk`` (the same server API,
unmodified) over real HTTP. Read at github.com/langchain-ai/agent-inbox commit
``f38301b9d0bec1f5191eaf1946f4fb6a6d6cfe0a`` (2026-08-05).

The inbox lists a graph's interrupted threads (``threads.search`` by ``metadata.graph_id``, or
``assistant_id`` when its graph id is a UUID), reads each thread's interrupts, and answers
with a one-item list: ``accept``, ``edit`` (the edited field as the text of its box),
``response`` (text) or ``ignore``, streamed with ``stream_mode="events"`` (ignore with
``runs.create``). Every decision is in the audit trail under the token's name; "Mark as
resolved" (a state update as ``__end__``) ends the thread, each review rejected by the token's
name.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk.client import SyncLangGraphClient

from framework.memory import MiniLMEmbedder
from framework.review.api import RESOLVED
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, serve

QUESTION = "How are checkpoints written?"
"""One task for the offline planner (no "and" to split on)."""
SPLIT_QUESTION = "How are checkpoints written and how do workers retry?"
APPROVAL = 'approval: {nodes: [worker], question: "may this worker search the corpus?"}\n'


def _served(folder: Path, options: tuple[str, ...] = ()) -> Iterator[Served]:
    corpus = write_corpus(folder / "docs", SMALL_CORPUS)
    tokens = {
        "ada": ("acme", "run,review"),
        "bob": ("globex", "run,review"),
        "runner": ("acme", "run"),
    }
    with serve(folder / "home", None, corpus=corpus, tokens=tokens, options=options) as server:
        yield server


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Iterator[Served]:
    yield from _served(tmp_path_factory.mktemp("inbox"))


@pytest.fixture(scope="module")
def governed(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[Served]:
    """A server whose runs ask a human before each worker runs (a policy review)."""
    folder = tmp_path_factory.mktemp("governed")
    policy = folder / "policy.yaml"
    policy.write_text(APPROVAL, encoding="utf-8")
    yield from _served(folder, ("--policy", str(policy)))


class AgentInbox:
    """One inbox of Agent Inbox (its "Assistant/Graph ID"), making the calls its source makes."""

    def __init__(self, client: SyncLangGraphClient, graph_id: str) -> None:
        self.client = client
        self.graph_id = graph_id

    def fetch_threads(self, inbox: str = "interrupted") -> list[dict[str, Any]]:
        """``fetchThreads``: the threads of the inbox (status ``inbox``, unless ``all``), the
        graph's only, each with the interrupts Agent Inbox shows."""
        status = {} if inbox in ("all", "human_response_needed") else {"status": inbox}
        metadata = (
            {"assistant_id": self.graph_id}
            if _is_uuid(self.graph_id)
            else {"graph_id": self.graph_id}
        )
        threads = self.client.threads.search(offset=0, limit=10, metadata=metadata, **status)
        return [
            {**thread, "inbox_interrupts": self.interrupts(thread)}
            if thread["status"] == "interrupted"
            else thread
            for thread in threads
        ]

    def interrupts(self, thread: dict[str, Any]) -> list[dict[str, Any]]:
        """``getInterruptFromThread`` (the first interrupt of each task whose value has
        ``action_request`` and ``config``), else ``processThreadWithoutInterrupts`` (the last
        interrupt of the state's last task)."""
        found = [
            items[0]["value"]
            for items in (thread.get("interrupts") or {}).values()
            if items
            and isinstance(items[0].get("value"), dict)
            and {"action_request", "config"} <= set(items[0]["value"])
        ]
        if found:
            return found
        state = self.client.threads.get_state(thread["thread_id"])
        last = state["tasks"][-1]["interrupts"][-1]["value"]
        return last if isinstance(last, list) else [last]

    def respond(self, thread_id: str, response: dict[str, Any]) -> list[Any]:
        """``sendHumanResponse(..., {stream: true})``: the submit button."""
        return list(
            self.client.runs.stream(
                thread_id, self.graph_id, command={"resume": [response]}, stream_mode="events"
            )
        )

    def ignore(self, thread_id: str) -> dict[str, Any]:
        """``handleIgnore``: ``sendHumanResponse`` without streaming (then the run's end)."""
        run = self.client.runs.create(
            thread_id, self.graph_id, command={"resume": [{"type": "ignore", "args": None}]}
        )
        return self.client.runs.join(thread_id, run["run_id"])

    def resolve(self, thread_id: str) -> None:
        """``ignoreThread`` ("Mark as resolved"): the state updated as ``END``."""
        self.client.threads.update_state(thread_id, None, as_node="__end__")


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _paused(served: Served, review: str, question: str = QUESTION) -> str:
    client = served.client("ada")
    thread_id: str = client.threads.create()["thread_id"]  # no graph named: a run names it
    config = {"configurable": {"review": [review]}} if review else None
    client.runs.wait(thread_id, "meta", input={"question": question}, config=config)
    return thread_id


def _shown(inbox: AgentInbox, thread_id: str) -> dict[str, Any]:
    """The one interrupt the inbox shows for ``thread_id``."""
    [thread] = [t for t in inbox.fetch_threads() if t["thread_id"] == thread_id]
    [interrupt] = thread["inbox_interrupts"]
    return dict(interrupt)


def _edited(interrupt: dict[str, Any], name: str, text: str) -> dict[str, Any]:
    """An edit as Agent Inbox sends it: the action request, one field the text of its box."""
    request = copy.deepcopy(interrupt["action_request"])
    request["args"][name] = text
    return {"type": "edit", "args": request}


def _audit(served: Served, thread_id: str) -> list[tuple[str, str, str, str]]:
    values = served.client("ada").threads.get_state(thread_id)["values"]
    return [
        (e["request_kind"], e["decision_kind"], e["reviewer"], e["reason"])
        for e in values.get("audit") or []
    ]


def _refused(call: Any) -> httpx.Response:
    with pytest.raises(httpx.HTTPStatusError) as refused:
        call()
    return refused.value.response


def test_the_inbox_lists_a_graphs_interrupted_threads_by_graph_or_assistant_id(
    served: Served,
) -> None:
    client = served.client("ada")
    paused = _paused(served, "plan")
    done = _paused(served, "")
    created = client.threads.create(graph_id="meta")
    assistant = client.assistants.get("meta")["assistant_id"]
    assert created["metadata"] == {"graph_id": "meta", "assistant_id": assistant}
    assert client.threads.get(paused)["metadata"] == {"graph_id": "meta", "assistant_id": assistant}

    for graph_id in ("meta", assistant):  # a graph's name, or an assistant's UUID
        inbox = AgentInbox(client, graph_id)
        [thread] = inbox.fetch_threads()
        assert thread["thread_id"] == paused
        [[raw]] = thread["interrupts"].values()  # one task, its interrupt listed once
        [interrupt] = thread["inbox_interrupts"]
        assert interrupt == raw["value"]
        assert interrupt["action_request"]["action"] == "review_plan"
        assert interrupt["action_request"]["args"]["plan"]["goal"] == QUESTION
        assert interrupt["config"] == {
            "allow_accept": True,
            "allow_edit": True,
            "allow_respond": True,
            "allow_ignore": True,
        }
        assert "Goal: How are checkpoints written?" in interrupt["description"]
        listed = {t["thread_id"] for t in inbox.fetch_threads("all")}
        assert {paused, done, created["thread_id"]} <= listed
        idle = {t["thread_id"] for t in inbox.fetch_threads("idle")}
        assert done in idle and paused not in idle
    assert AgentInbox(client, "research").fetch_threads("all") == []
    assert AgentInbox(served.client("bob"), "meta").fetch_threads("all") == []


def test_accept_and_edit_a_plan_from_the_inbox(served: Served) -> None:
    inbox = AgentInbox(served.client("ada"), "meta")
    edited_thread = _paused(served, "plan", SPLIT_QUESTION)
    interrupt = _shown(inbox, edited_thread)
    plan = interrupt["action_request"]["args"]["plan"]

    bad = copy.deepcopy(plan)
    bad["tasks"][0]["description"] = ""
    before = served.client("ada").threads.get_state(edited_thread)
    answer = _refused(
        lambda: inbox.respond(edited_thread, _edited(interrupt, "plan", json.dumps(bad)))
    )
    assert answer.status_code == 422 and "plan.tasks.0.description" in answer.json()["detail"]
    assert (
        _refused(
            lambda: inbox.respond(edited_thread, _edited(interrupt, "plan", "{not json"))
        ).status_code
        == 422
    )
    assert served.client("ada").threads.get_state(edited_thread) == before  # nothing ran

    good = copy.deepcopy(plan)
    good["tasks"] = good["tasks"][1:2]
    good["tasks"][0]["description"] = "How are checkpoints encrypted?"
    events = inbox.respond(edited_thread, _edited(interrupt, "plan", json.dumps(good, indent=2)))
    assert events[0].event == "metadata" and events[-1].event == "end"
    assert "error" not in [part.event for part in events]
    final = served.client("ada").threads.get_state(edited_thread)
    assert final["next"] == [] and final["values"]["final_answer"]
    assert [t["description"] for t in final["values"]["plan"]["tasks"]] == [
        "How are checkpoints encrypted?"
    ]
    assert _audit(served, edited_thread) == [("plan", "edit_plan", "ada", "")]

    accepted = _paused(served, "plan")
    interrupt = _shown(inbox, accepted)
    inbox.respond(accepted, {"type": "accept", "args": interrupt["action_request"]})
    assert _audit(served, accepted) == [("plan", "approve", "ada", "")]
    assert accepted not in {t["thread_id"] for t in inbox.fetch_threads()}


def test_a_response_on_a_plan_rejects_its_tasks_with_the_reviewers_text(served: Served) -> None:
    inbox = AgentInbox(served.client("ada"), "meta")
    thread_id = _paused(served, "plan", SPLIT_QUESTION)
    assert _shown(inbox, thread_id)["config"]["allow_respond"]
    before = served.client("ada").threads.get_state(thread_id)
    assert (
        _refused(lambda: inbox.respond(thread_id, {"type": "response", "args": None})).status_code
        == 422
    )
    assert served.client("ada").threads.get_state(thread_id) == before

    inbox.respond(thread_id, {"type": "response", "args": "Split it by subsystem instead."})
    values = served.client("ada").threads.get_state(thread_id)["values"]
    assert {task["status"] for task in values["tasks"].values()} == {"rejected"}
    assert set(values["rejections"].values()) == {"Split it by subsystem instead."}
    assert "Not researched" in values["final_answer"]
    assert _audit(served, thread_id) == [
        ("plan", "reject_tasks", "ada", "Split it by subsystem instead.")
    ]


def test_an_answer_is_edited_from_its_draft_and_a_task_is_ignored(served: Served) -> None:
    client = served.client("ada")
    inbox = AgentInbox(client, "meta")
    answered = _paused(served, "answer")
    interrupt = _shown(inbox, answered)
    assert interrupt["kind"] == "answer" and interrupt["draft"].startswith("# ")
    assert interrupt["action_request"]["args"] == {"answer": interrupt["draft"]}
    assert interrupt["config"]["allow_edit"] and not interrupt["config"]["allow_respond"]
    assert not interrupt["config"]["allow_ignore"]
    refused = _refused(lambda: inbox.respond(answered, {"type": "response", "args": "shorter"}))
    assert refused.status_code == 422 and "takes no response" in refused.json()["detail"]
    assert _refused(lambda: inbox.ignore(answered)).status_code == 422

    inbox.respond(answered, _edited(interrupt, "answer", "Checkpoints: after every step."))
    assert client.threads.get_state(answered)["values"]["final_answer"] == (
        "Checkpoints: after every step."
    )
    assert _audit(served, answered) == [("answer", "edit_answer", "ada", "")]

    tasked = _paused(served, "tasks")
    interrupt = _shown(inbox, tasked)
    assert interrupt["action_request"]["args"]["task"]["id"] == "q0"
    assert interrupt["config"]["allow_ignore"]
    inbox.ignore(tasked)
    values = client.threads.get_state(tasked)["values"]
    assert values["tasks"]["q0"]["status"] == "rejected"
    assert _audit(served, tasked) == [("tasks", "reject_tasks", "ada", "ignored")]


def test_mark_as_resolved_ends_the_thread_as_the_reviewers_rejection(served: Served) -> None:
    inbox = AgentInbox(served.client("ada"), "meta")
    thread_id = _paused(served, "plan")
    unreviewed = AgentInbox(served.client("runner"), "meta")  # a run scope only
    assert _refused(lambda: unreviewed.resolve(thread_id)).status_code == 403
    assert len(served.client("ada").threads.get_state(thread_id)["interrupts"]) == 1
    inbox.resolve(thread_id)
    state = served.client("ada").threads.get_state(thread_id)
    assert state["next"] == [] and state["interrupts"] == []  # nothing waits, nothing runs on
    assert "final_answer" not in state["values"]
    assert _audit(served, thread_id) == [("plan", "reject_tasks", "ada", RESOLVED)]
    assert thread_id not in [t["thread_id"] for t in inbox.fetch_threads()]
    assert served.client("ada").threads.get(thread_id)["status"] == "idle"


def test_a_policy_review_is_read_refused_and_ignored_from_the_inbox(governed: Served) -> None:
    client = governed.client("ada")
    inbox = AgentInbox(client, "meta")
    thread_id = _paused(governed, "")
    interrupt = _shown(inbox, thread_id)
    assert interrupt["action_request"] == {
        "action": "review_policy",
        "args": {
            "policy": "approval",
            "hook": "before_node",
            "target": "worker",
            "task_id": "q0",
            "question": "may this worker search the corpus?",
            "call": f"task q0: {QUESTION}",
        },
    }
    assert interrupt["config"] == {
        "allow_accept": True,
        "allow_edit": False,
        "allow_respond": True,
        "allow_ignore": True,
    }
    assert "may this worker search the corpus?" in interrupt["description"]
    assert (
        _refused(lambda: inbox.respond(thread_id, _edited(interrupt, "question", "?"))).status_code
        == 422
    )

    inbox.respond(thread_id, {"type": "response", "args": "Not from this corpus."})
    # the task a person refused is not run again: nothing more is asked, the run ends
    assert thread_id not in {t["thread_id"] for t in inbox.fetch_threads()}
    assert client.threads.get(thread_id)["status"] == "idle"
    assert _audit(governed, thread_id) == [("policy", "reject", "ada", "Not from this corpus.")]
    trail = client.threads.get_state(thread_id)["values"]["policy_audit"]
    assert [(e["policy"], e["action"], e["by"]) for e in trail] == [("approval", "rejected", "ada")]
    ignored = _paused(governed, "")
    _shown(inbox, ignored)
    inbox.ignore(ignored)
    assert client.threads.get(ignored)["status"] == "idle"
    assert _audit(governed, ignored) == [("policy", "reject", "ada", "ignored")]


INBOX_ORIGIN = "http://inbox.example:3000"


def test_a_browser_page_of_an_allowed_origin_may_call_the_api(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """Agent Inbox runs in a browser on another origin: its preflights are answered for the
    origins `--allow-origin` names (its calls still carry their token), no other's."""
    preflight = {
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-api-key,content-type",
    }
    for served in _served(tmp_path, ("--allow-origin", INBOX_ORIGIN)):
        with httpx.Client(base_url=served.url, timeout=60) as http:
            asked = http.options("/threads/search", headers={"origin": INBOX_ORIGIN, **preflight})
            assert asked.status_code == 200
            assert asked.headers["access-control-allow-origin"] == INBOX_ORIGIN
            assert "x-api-key" in asked.headers["access-control-allow-headers"]
            assert "access-control-allow-credentials" not in asked.headers
            other = http.options(
                "/threads/search", headers={"origin": "http://evil.example", **preflight}
            )
            assert "access-control-allow-origin" not in other.headers
            tokened = {"origin": INBOX_ORIGIN, "x-api-key": served.tokens["ada"]}
            found = http.post("/threads/search", json={}, headers=tokened)
            assert found.status_code == 200
            assert found.headers["access-control-allow-origin"] == INBOX_ORIGIN
            bare = http.post("/threads/search", json={}, headers={"origin": INBOX_ORIGIN})
            assert bare.status_code == 401  # the origin is no credential


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--allow-origin", "*"], "is not a web origin"),
        (["--allow-origin", "http://inbox.example/path"], "is not a web origin"),
        (["--allow-origin", INBOX_ORIGIN, "--no-auth"], "needs API tokens"),
    ],
)
def test_origins_that_are_not_one_or_without_tokens_are_refused(
    tmp_path: Path, options: list[str], says: str
) -> None:
    from typer.testing import CliRunner

    from framework.cli.app import app

    done = CliRunner().invoke(app, ["serve", *options, "--home", str(tmp_path / "home")])
    assert done.exit_code == 2 and says in done.stderr, done.output
