"""What LangGraph's chat front ends (Agent Chat UI, ``useStream``) send and read, through
``langgraph-sdk`` (unmodified) over real HTTP against a real ``cadre serve``: a run started
from chat ``messages`` (the last human message is the question; a later one the next
question), a thread's ``messages`` holding the human turn and the answer, the answer streamed
in ``messages-tuple`` mode, a review pause in the shape of LangChain's human-in-the-loop
middleware answered with ``{"decisions": [...]}``, and the ``tools`` and ``lifecycle`` stream
modes; and, given a built app (``$CADRE_CHAT_UI_APP``), the real Agent Chat UI in Chromium
(``bench/chat_ui.py``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain.agents.middleware.human_in_the_loop import HITLRequest, HITLResponse
from pydantic import TypeAdapter

from framework.engine.spoken import ANSWER_KEY
from framework.errors import ReviewError
from framework.memory import MiniLMEmbedder
from framework.review.api import RESOLVED
from framework.review.records import QuestionReview
from framework.server._hitl import HITL_FIELDS, hitl_decision, hitl_fields
from tests.chromium import SCREENSHOTS_VARIABLE
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.openai_server import OpenAIServer, openai_server
from tests.served import Served, serve
from tests.test_local_models import README, _readme_example, respond

QUESTION = "How are checkpoints written?"
NEXT_QUESTION = "How do workers retry?"
PLAN_REVIEW = {"configurable": {"review": ["plan"]}}


def _said(text: str) -> dict[str, Any]:
    """A human message as Agent Chat UI sends it (content as parts)."""
    return {"type": "human", "content": [{"type": "text", "text": text}]}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("chat")
    corpus = write_corpus(folder / "docs", SMALL_CORPUS)
    tokens = {"ada": ("acme", "run,review"), "runner": ("acme", "run")}
    with serve(folder / "home", None, corpus=corpus, tokens=tokens) as server:
        yield server


def _refused(call: Any) -> httpx.Response:
    with pytest.raises(httpx.HTTPStatusError) as refused:
        call()
    return refused.value.response


def test_chat_messages_ask_and_the_thread_holds_each_human_turn_and_answer(
    served: Served,
) -> None:
    client = served.client("ada")
    thread_id = client.threads.create()["thread_id"]
    parts = list(
        client.runs.stream(
            thread_id,
            "meta",
            input={"messages": [_said(QUESTION)]},
            stream_mode=["values", "messages-tuple"],
        )
    )
    assert not [p for p in parts if p.event == "error"]
    values = client.threads.get_state(thread_id)["values"]
    assert values["question"] == QUESTION
    human, *_, answer = values["messages"]
    assert (human["type"], human["content"]) == ("human", [{"type": "text", "text": QUESTION}])
    assert answer["type"] == "ai" and answer["content"] == values["final_answer"]
    spoken = [
        message
        for message, metadata in (p.data for p in parts if p.event == "messages")
        if metadata.get(ANSWER_KEY) and message["type"] == "AIMessageChunk"
    ]
    assert len(spoken) > 3  # a few words at a time, as the answer's own message
    assert "".join(m["content"] for m in spoken) == answer["content"]
    assert {m["id"] for m in spoken} == {answer["id"]}

    client.runs.wait(thread_id, "meta", input={"messages": [{"role": "user", "content": "x"}]})
    client.runs.wait(thread_id, "meta", input={"messages": [_said(NEXT_QUESTION)]})
    values = client.threads.get_state(thread_id)["values"]
    assert values["question"] == NEXT_QUESTION
    asked = [m["content"] for m in values["messages"] if m["type"] == "human"]
    assert asked == [_said(QUESTION)["content"], "x", _said(NEXT_QUESTION)["content"]]
    assert values["messages"][-1]["content"] == values["final_answer"]


def test_cadres_own_question_is_the_threads_human_turn_and_no_human_text_is_refused(
    served: Served,
) -> None:
    client = served.client("ada")
    thread_id = client.threads.create()["thread_id"]
    client.runs.wait(thread_id, "meta", input={"question": QUESTION})
    first = client.threads.get_state(thread_id)["values"]["messages"][0]
    assert (first["type"], first["content"]) == ("human", QUESTION)

    ai_only = {"messages": [{"type": "ai", "content": "hello"}]}
    refused = _refused(lambda: client.runs.wait(thread_id, "meta", input=ai_only))
    assert refused.status_code == 422
    assert "input.messages holds no human message with text" in refused.json()["detail"]


def _paused(served: Served) -> tuple[str, dict[str, Any]]:
    """A new thread paused at its plan review, asked as a chat front end asks; the thread and
    the interrupt's value."""
    client = served.client("ada")
    thread_id = client.threads.create()["thread_id"]
    waited = client.runs.wait(
        thread_id, "meta", input={"messages": [_said(QUESTION)]}, config=PLAN_REVIEW
    )
    [interrupt] = waited["__interrupt__"]
    return thread_id, interrupt["value"]


def _resumed(served: Served, thread_id: str, *decisions: dict[str, Any]) -> dict[str, Any]:
    resume = TypeAdapter(HITLResponse).validate_python({"decisions": list(decisions)})
    client = served.client("ada")
    parts = list(
        client.runs.stream(thread_id, "meta", command={"resume": resume}, stream_mode="values")
    )
    assert not [p for p in parts if p.event == "error"]
    values: dict[str, Any] = client.threads.get_state(thread_id)["values"]
    return values


def _audit(values: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        (e["request_kind"], e["decision_kind"], e["reviewer"], e["reason"])
        for e in values.get("audit") or []
    ]


def test_a_plan_review_has_the_middlewares_shape_and_takes_its_decisions(served: Served) -> None:
    thread_id, value = _paused(served)
    request = TypeAdapter(HITLRequest).validate_python({k: value[k] for k in HITL_FIELDS})
    [action] = request["action_requests"]
    assert action["name"] == "review_plan" and action["args"]["plan"] == value["plan"]
    assert "Goal:" in action["description"]
    assert request["review_configs"] == [
        {"action_name": "review_plan", "allowed_decisions": ["approve", "edit", "reject"]}
    ]
    assert value["action_request"]["action"] == "review_plan"  # Agent Inbox's fields stay

    client = served.client("ada")
    before = client.threads.get_state(thread_id)
    for wrong, said in (
        ([{"type": "respond", "message": "yes"}], "takes no decision of type 'respond'"),
        ([{"type": "approve"}, {"type": "approve"}], "a list of one decision"),
        ([{"type": "edit", "edited_action": {"name": "review_plan", "args": {}}}], "an edit"),
    ):
        command = {"resume": {"decisions": wrong}}
        refused = _refused(lambda c=command: client.runs.wait(thread_id, "meta", command=c))
        assert refused.status_code == 422 and said in refused.json()["detail"], refused.text
    assert client.threads.get_state(thread_id)["checkpoint"] == before["checkpoint"]

    approved = _resumed(served, thread_id, {"type": "approve"})
    assert approved["final_answer"] and _audit(approved) == [("plan", "approve", "ada", "")]

    edited_thread, value = _paused(served)
    plan = {**value["plan"], "goal": "How are checkpoints written, briefly?"}
    edit = {"type": "edit", "edited_action": {"name": "review_plan", "args": {"plan": plan}}}
    edited = _resumed(served, edited_thread, edit)
    assert edited["plan"]["goal"] == plan["goal"]
    assert _audit(edited) == [("plan", "edit_plan", "ada", "")]

    rejected_thread, _ = _paused(served)
    rejected = _resumed(served, rejected_thread, {"type": "reject", "message": "out of scope"})
    assert _audit(rejected) == [("plan", "reject_tasks", "ada", "out of scope")]
    assert all(task["status"] == "rejected" for task in rejected["tasks"].values())


def test_a_question_review_takes_respond_and_reject() -> None:
    request = QuestionReview(
        id="q1",
        node="worker",
        remote="a2a http://remote",
        question="Which year?",
        task_id="t1",
        allowed=["respond", "reject"],
    )
    shown = hitl_fields(request.model_dump(mode="json"))
    assert shown["review_configs"][0]["allowed_decisions"] == ["reject", "respond"]
    respond_decision = [{"type": "respond", "message": "2024"}]
    assert hitl_decision(request, respond_decision) == {"kind": "respond", "response": "2024"}
    assert hitl_decision(request, [{"type": "reject"}]) == {"kind": "reject", "reason": "rejected"}
    with pytest.raises(ReviewError, match="respond carries the answer as message"):
        hitl_decision(request, [{"type": "respond"}])


def test_lifecycle_tells_when_each_subgraph_starts_and_ends(served: Served) -> None:
    client = served.client("ada")
    thread_id = client.threads.create()["thread_id"]
    parts = list(
        client.runs.stream(thread_id, "meta", input={"question": QUESTION}, stream_mode="lifecycle")
    )
    events = [p.data for p in parts if p.event == "lifecycle"]
    assert {p.event for p in parts} == {"metadata", "lifecycle", "end"}
    started = [e for e in events if e["event"] == "started"]
    assert "research_team" in {e["graph_name"] for e in started}
    for event in started:
        namespace = event["namespace"]
        assert namespace[-1] == f"{event['graph_name']}:{event['trigger_call_id']}"
        [ended] = [e for e in events if e["namespace"] == namespace and e is not event]
        assert ended == {"event": "completed", "namespace": namespace}
        assert events.index(event) < events.index(ended)

    paused = client.threads.create()["thread_id"]
    parts = list(
        client.runs.stream(
            paused,
            "meta",
            input={"question": QUESTION},
            config=PLAN_REVIEW,
            stream_mode="lifecycle",
        )
    )
    started, ended = [p.data for p in parts if p.event == "lifecycle"]
    assert started["event"] == "started" and started["graph_name"] == "research_team"
    assert ended == {"event": "interrupted", "namespace": started["namespace"]}


@pytest.fixture
def model_server() -> Iterator[OpenAIServer]:
    with openai_server(respond) as httpd:
        yield httpd


def test_tools_streams_each_tool_call_a_team_makes(
    tmp_path: Path, model_server: OpenAIServer, embedder: MiniLMEmbedder
) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    _readme_example(conf)
    team = conf / "team.yaml"
    models = re.search(r"`(models: \{default: .*?\})`", README.read_text(encoding="utf-8"))
    assert models, "the README names the file's model"
    named = models[1].replace("http://localhost:11434/v1", model_server.base_url)
    team.write_text(f"{named}\n{team.read_text(encoding='utf-8')}", encoding="utf-8")
    corpus = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    options = ["--team-config", str(team)]
    with serve(tmp_path / "home", None, corpus=corpus, options=options) as served:
        client = served.client()
        thread_id = client.threads.create()["thread_id"]
        question = {"question": "What is 6 times 7?"}
        parts = list(
            client.runs.stream(thread_id, "calc-team", input=question, stream_mode="tools")
        )
    events = [p.data for p in parts if p.event.startswith("tools")]
    assert [e["event"] for e in events] == ["tool-started", "tool-finished"], parts
    started, finished = events
    assert started["tool_name"] == "multiply" and started["tool_call_id"] == "call_1"
    assert finished["tool_call_id"] == "call_1" and "42" in str(finished["output"])


APP_VARIABLE = "CADRE_CHAT_UI_APP"
"""The path of a built agent-chat-ui checkout (``npm install && npm run build``); unset (as
in CI, which has no built app), the browser test is skipped."""


def test_agent_chat_ui_asks_streams_and_approves_in_chromium(tmp_path: Path) -> None:
    """The real Agent Chat UI (``bench/chat_ui.py``): two questions on one thread, each plan
    review approved in the app, each answer growing on the page as it streams; screenshots in
    ``$CADRE_SCREENSHOTS`` (else the test's folder)."""
    app = os.environ.get(APP_VARIABLE)
    if not app:
        pytest.skip(f"no built Agent Chat UI: set ${APP_VARIABLE} to its checkout")
    from bench.chat_ui import QUESTIONS, chat

    shots = Path(os.environ.get(SCREENSHOTS_VARIABLE) or tmp_path)
    seen = chat(Path(app), shots)
    for number, (turn, question) in enumerate(zip(seen["turns"], QUESTIONS, strict=True), 1):
        assert question in turn["review_on_page"] and turn["question"] == question
        assert len(turn["human_turns"]) == number  # the same thread, one human turn each
        lengths = turn["answer_lengths_seen"]
        growing = [b for a, b in pairwise(lengths) if b > a]
        assert len(growing) > 3, lengths  # the answer came a few words at a time
    assert len(seen["screenshots"]) == 4


def test_mark_as_resolved_ends_the_thread_as_the_reviewers_decision(served: Served) -> None:
    thread_id, _ = _paused(served)
    client = served.client("ada")
    before = client.threads.get_state(thread_id)
    resolving = {"goto": "__end__"}
    refused = _refused(
        lambda: served.client("runner").runs.wait(thread_id, "meta", command=resolving)
    )  # a review decision: the review scope, not run
    assert refused.status_code == 403, refused.text
    assert client.threads.get_state(thread_id)["checkpoint"] == before["checkpoint"]
    ended = client.runs.wait(thread_id, "meta", command={"goto": "__end__"})
    assert isinstance(ended, dict) and "__interrupt__" not in ended, ended
    state = client.threads.get_state(thread_id)
    assert state["next"] == [] and state["interrupts"] == []
    assert _audit(state["values"]) == [("plan", "reject_tasks", "ada", RESOLVED)]
    assert client.threads.get(thread_id)["status"] == "idle"
    refused = _refused(lambda: client.runs.wait(thread_id, "meta", command={"goto": "__end__"}))
    assert refused.status_code in (409, 422) and "nothing to resolve" in refused.json()["detail"]
