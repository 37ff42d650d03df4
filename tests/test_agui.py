"""AG-UI against a real ``cadre serve``: ``RunAgentInput`` built with ``ag-ui-protocol``'s own
models, posted with httpx over real HTTP on loopback, and every event of the SSE stream validated
with the package's ``Event`` union. A question streams RUN_STARTED, a step per node, the thread's
state (a snapshot, then JSON Patch deltas that rebuild the thread's values), the cited answer as a
text message streamed in parts and RUN_FINISHED; a team file's plan review ends the run with an
interrupt outcome carrying the typed request, answered through AG-UI's resume entries (an invalid
decision refused by the review checks) and then in ``cadre show``'s audit under the token's name;
tenancy and scopes are the gate's (one RUN_ERROR, one line), as is a failed run; a missing token is
401, a bad body 422, a cancelled interrupt 501."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import jsonpatch
import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    Event,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    UserMessage,
)
from pydantic import TypeAdapter
from typer.testing import CliRunner

from framework.cli.app import app
from framework.memory import MiniLMEmbedder
from framework.server.protocols.agui._state import SHOWN
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.served import Served, make_tokens, start

QUESTION = "How do workers retry transient errors?"
CITED = "`docs/retries.md:3`"
SUPPORT = "name: support\nreview: [plan]\nkinds:\n  - {name: docs, builtin: search}\n"
LOOKUP = "name: lookup\nkinds:\n  - {name: docs, builtin: search}\n"
STOPPING = '''"""Stops every run of the team ``lookup`` at its formatter."""

from framework.policy import ALLOW, Policy, deny


class Stopping(Policy):
    name = "stopping"

    def before_node(self, call):
        if call.team == "lookup" and call.node == "formatter":
            return deny("lookup answers nothing today")
        return ALLOW
'''
HOLDING = '''"""Holds each run of the team ``held`` before its aggregator until a file is there."""

import os
import time
from pathlib import Path

from framework.policy import ALLOW, Policy


class Holding(Policy):
    name = "holding"

    def before_node(self, call):
        if call.team == "held" and call.node == "aggregator":
            release = Path(os.environ["AGUI_RELEASE"])
            deadline = time.monotonic() + 120
            while not release.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
        return ALLOW
'''
HELD = "name: held\nkinds:\n  - {name: docs, builtin: search}\n"
POLICY = 'custom: ["stopping_policy:Stopping", "holding_policy:Holding"]\n'
OPTIONS = (
    ("team-config", "support.yaml"),
    ("team-config", "lookup.yaml"),
    ("team-config", "held.yaml"),
    ("policy", "policy.yaml"),
)
EVENTS: TypeAdapter[BaseEvent] = TypeAdapter(Event)
TEXT_MESSAGE = (TextMessageStartEvent, TextMessageContentEvent, TextMessageEndEvent)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Iterator[Served]:
    """Installed teams, ``support`` (a plan review) and ``lookup`` (whose runs a policy stops)."""
    root = tmp_path_factory.mktemp("agui")
    corpus = write_corpus(root / "docs", SMALL_CORPUS)
    files = {"support.yaml": SUPPORT, "lookup.yaml": LOOKUP, "held.yaml": HELD}
    files |= {"policy.yaml": POLICY, "modules/stopping_policy.py": STOPPING}
    files["modules/holding_policy.py"] = HOLDING
    (root / "modules").mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    served = Served(url="", home=root / "home", database=None)
    tokens = {
        "ada": ("acme", "run,review"),
        "runner": ("acme", "run"),
        "bob": ("globex", "run,review"),
    }
    served.tokens = make_tokens(served.home, None, tokens)
    path = os.pathsep.join(filter(None, [str(root / "modules"), os.environ.get("PYTHONPATH")]))
    options = [f"--{option}={root / name}" for option, name in OPTIONS]
    env = {**os.environ, "PYTHONPATH": path, "AGUI_RELEASE": str(root / "release")}
    with start(served, corpus=corpus, env=env, options=options):
        yield served


def _input(thread_id: str, question: str = QUESTION, **fields: Any) -> dict[str, Any]:
    """A ``RunAgentInput`` as a chat front end sends it (camelCase JSON)."""
    made = RunAgentInput(
        thread_id=thread_id,
        run_id=str(uuid.uuid4()),
        messages=[UserMessage(id="m1", content=question)],
        tools=[],
        context=[],
        state={},
        forwarded_props={},
        **fields,
    )
    return made.model_dump(mode="json", by_alias=True)


def _post(served: Served, team: str, body: Any, headers: dict[str, str]) -> httpx.Response:
    with httpx.Client(base_url=served.url, timeout=120) as http:
        return http.post(f"/agui/{team}", json=body, headers=headers)


def _run(
    served: Served, token: str, team: str, body: dict[str, Any], *, bearer: bool = False
) -> list[BaseEvent]:
    """The events of one run, each validated with the package's event models."""
    key = served.tokens[token]
    auth = {"authorization": f"Bearer {key}"} if bearer else {"x-api-key": key}
    response = _post(served, team, body, {**auth, "accept": "text/event-stream"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    frames = [frame for frame in response.text.split("\n\n") if frame]
    assert all(frame.startswith("data: ") for frame in frames), frames
    return [EVENTS.validate_json(frame.removeprefix("data: ")) for frame in frames]


def _check_lifecycle(events: Sequence[BaseEvent], body: dict[str, Any]) -> RunFinishedEvent:
    """Run started first and finished last (the client's ids), every step closed in turn."""
    first, last = events[0], events[-1]
    assert isinstance(first, RunStartedEvent) and isinstance(last, RunFinishedEvent)
    assert (first.thread_id, first.run_id) == (body["threadId"], body["runId"])
    assert (last.thread_id, last.run_id) == (body["threadId"], body["runId"])
    open_step = None
    for event in events[1:-1]:
        assert not event.type.name.startswith("RUN_")
        if isinstance(event, StepStartedEvent):
            assert open_step is None
            open_step = event.step_name
        elif isinstance(event, StepFinishedEvent):
            assert event.step_name == open_step
            open_step = None
    assert open_step is None
    return last


def _state(events: Sequence[BaseEvent]) -> dict[str, Any]:
    """The state a consumer holds after applying the snapshot and every delta (RFC 6902)."""
    changes = [e for e in events if isinstance(e, StateSnapshotEvent | StateDeltaEvent)]
    assert isinstance(changes[0], StateSnapshotEvent)
    assert all(isinstance(change, StateDeltaEvent) for change in changes[1:])
    state: dict[str, Any] = changes[0].snapshot
    for change in changes[1:]:
        assert isinstance(change, StateDeltaEvent)
        operations = [operation.model_dump(by_alias=True) for operation in change.delta]
        state = jsonpatch.apply_patch(state, operations)
    return state


def _answer(events: Sequence[BaseEvent]) -> str:
    """The text of the one text message, checked to open, stream its content in parts (as the
    team's formatter speaks it), and close."""
    text = [e for e in events if isinstance(e, TEXT_MESSAGE)]
    start, *content, end = text
    assert isinstance(start, TextMessageStartEvent) and start.role == "assistant"
    assert isinstance(end, TextMessageEndEvent) and len(content) > 1
    assert all(isinstance(part, TextMessageContentEvent) for part in content)
    assert {start.message_id, end.message_id} == {part.message_id for part in content}
    return "".join(part.delta for part in content if isinstance(part, TextMessageContentEvent))


def _steps(events: Sequence[BaseEvent]) -> list[str]:
    return [event.step_name for event in events if isinstance(event, StepStartedEvent)]


def _refusal(events: Sequence[BaseEvent]) -> RunErrorEvent:
    [refused] = events
    assert isinstance(refused, RunErrorEvent)
    assert "\n" not in refused.message and refused.message
    return refused


def test_a_question_streams_steps_state_and_the_cited_answer(served: Served) -> None:
    thread_id = str(uuid.uuid4())
    body = _input(thread_id)
    events = _run(served, "ada", "research", body, bearer=True)

    finished = _check_lifecycle(events, body)
    assert isinstance(finished.outcome, RunFinishedSuccessOutcome)
    assert {"planner", "worker", "formatter"} <= set(_steps(events))
    answer = _answer(events)
    assert CITED in answer and "retry" in answer.lower()
    assert isinstance(finished.result, dict)
    assert finished.result["answer"] == answer and finished.result["status"] == "answered"
    assert finished.result["thread_id"] == thread_id

    state = _state(events)
    assert any(isinstance(e, StateDeltaEvent) for e in events)
    assert state["final_answer"] == answer
    values = served.client("ada").threads.get_state(thread_id)["values"]
    assert state == {key: values[key] for key in SHOWN if key in values}  # the client's view


def test_a_long_conversation_is_never_refused_and_its_state_stays_one_questions_size(
    served: Served,
) -> None:
    thread_id = str(uuid.uuid4())
    first = _run(served, "ada", "research", _input(thread_id), bearer=True)
    held = _state(first)
    assert "worker_results" not in held and "messages" not in held
    said = "An earlier answer of this long conversation, quoted back by the client. " * 60
    history = [
        message
        for turn in range(400)  # about 1.8 MB of earlier turns: over the API's 1 MiB bodies
        for message in (
            UserMessage(id=f"u{turn}", content=f"question {turn}"),
            AssistantMessage(id=f"a{turn}", content=said),
        )
    ]
    body = _input(thread_id)
    body["state"] = held  # as HttpAgent sends back the state it holds
    body["messages"] = [
        *(m.model_dump(mode="json", by_alias=True) for m in history),
        *body["messages"],
    ]
    assert len(json.dumps(body)) > 1_500_000
    second = _run(served, "ada", "research", body, bearer=True)
    assert CITED in _answer(second)
    assert len(json.dumps(_state(second))) < 2 * len(json.dumps(held)) + 10_000


def test_a_plan_review_is_an_interrupt_outcome_resumed_through_agui(served: Served) -> None:
    thread_id = str(uuid.uuid4())
    body = _input(thread_id)
    events = _run(served, "ada", "support", body)
    finished = _check_lifecycle(events, body)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    assert not any(isinstance(event, TEXT_MESSAGE) for event in events)
    [interrupt] = finished.outcome.interrupts
    request = interrupt.metadata["value"] if interrupt.metadata else {}
    assert interrupt.reason == "review:plan" and request["kind"] == "plan"
    assert request["plan"]["goal"] == QUESTION and request["allowed"][0] == "approve"
    assert (request["id"], request["thread_id"]) == (interrupt.id, thread_id)
    [shown] = served.client("ada").threads.get_state(thread_id)["interrupts"]
    assert shown["id"] == interrupt.id  # the id LangGraph's API shows for the same pause

    approve = [ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload="approve")]
    resume = _input(thread_id, resume=approve)
    refused = _refusal(_run(served, "runner", "support", resume))  # no review scope
    assert refused.code == "403" and "review" in refused.message
    for other in (resume, _input(thread_id)):  # another tenant: not their thread
        assert _refusal(_run(served, "bob", "support", other)).code == "404"
    unchecked = [
        ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"kind": "edit_plan"})
    ]
    invalid = _refusal(_run(served, "ada", "support", _input(thread_id, resume=unchecked)))
    assert invalid.code == "422" and "edit_plan needs the edited plan" in invalid.message

    events = _run(served, "ada", "support", resume)
    finished = _check_lifecycle(events, resume)
    assert isinstance(finished.outcome, RunFinishedSuccessOutcome)
    assert CITED in _answer(events)
    values = served.client("ada").threads.get_state(thread_id)["values"]
    assert _state(events) == {key: values[key] for key in SHOWN if key in values}

    shown_thread = CliRunner().invoke(app, ["show", thread_id, "--home", str(served.home)])
    assert shown_thread.exit_code == 0, shown_thread.output
    [audited] = [line for line in shown_thread.stdout.splitlines() if interrupt.id in line]
    assert f"  ada  approve on plan review {interrupt.id}" in audited


def test_a_refusal_before_a_run_is_one_line(served: Served) -> None:
    thread_id = str(uuid.uuid4())
    no_token = _post(served, "research", _input(thread_id), {})
    assert no_token.status_code == 401, no_token.text
    assert no_token.json() == {"detail": "a valid API token is needed: send it as x-api-key"}

    key = {"x-api-key": served.tokens["ada"]}
    entry = ResumeEntry(interrupt_id="i1", status="cancelled")
    no_text = {**_input(thread_id), "messages": []}
    cases = [
        ("research", {"threadId": thread_id}, 422, "messages"),
        ("research", no_text, 422, "no user message"),
        ("nobody", _input(thread_id), 404, "nobody"),
        ("support", _input(thread_id, resume=[entry]), 501, "cancelling an interrupt (i1)"),
    ]
    for team, body, status, words in cases:
        refused = _post(served, team, body, key)
        assert refused.status_code == status, refused.text
        detail = refused.json()["detail"]
        assert words in detail and "\n" not in detail
    with served.http("ada") as http:  # nothing was started: no thread made
        assert http.get(f"/threads/{thread_id}").status_code == 404


def test_a_failed_run_ends_with_one_run_error(served: Served) -> None:
    thread_id = str(uuid.uuid4())
    events = _run(served, "ada", "lookup", _input(thread_id))
    first, failed = events[0], events[-1]
    assert isinstance(first, RunStartedEvent) and isinstance(failed, RunErrorEvent)
    assert "lookup answers nothing today" in failed.message and "\n" not in failed.message
    assert failed.code == "run_failed"
    assert not any(isinstance(e, RunFinishedEvent | RunErrorEvent) for e in events[:-1])
    assert "formatter" not in _steps(events) and "planner" in _steps(events)


def test_a_cancelled_run_finishes_cancelled_not_with_the_threads_answer(served: Served) -> None:
    """A run cancelled over LangGraph's API (while a policy holds it before its aggregator)
    ends its AG-UI stream with the cancelled outcome: no answer, no success."""
    thread_id = str(uuid.uuid4())
    body = _input(thread_id)
    headers = {"x-api-key": served.tokens["ada"], "accept": "text/event-stream"}
    client = served.client("ada")
    with (
        httpx.Client(base_url=served.url, timeout=120) as http,
        http.stream("POST", "/agui/held", json=body, headers=headers) as response,
    ):
        lines = response.iter_lines()
        events: list[BaseEvent] = []
        for line in lines:  # up to the worker's step: the run is held before its aggregator
            if line.startswith("data: "):
                events.append(EVENTS.validate_json(line.removeprefix("data: ")))
                if isinstance(events[-1], StepFinishedEvent) and events[-1].step_name == "worker":
                    break
        [run] = client.runs.list(thread_id)
        client.runs.cancel(thread_id, run["run_id"])
        (served.home.parent / "release").touch()
        events += [EVENTS.validate_json(line[6:]) for line in lines if line.startswith("data: ")]
    finished = _check_lifecycle(events, body)
    assert isinstance(finished.outcome, RunFinishedCancelledOutcome)
    assert not any(isinstance(event, TEXT_MESSAGE) for event in events)
    assert "aggregator" not in _steps(events)
