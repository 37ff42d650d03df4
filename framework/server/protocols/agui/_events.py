"""A cadre run as AG-UI events: the run's lifecycle, a step per node, the thread's state, the
answer as a text message (streamed as the team's formatter speaks it), and a review pause as the
run's interrupt outcome."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)

from framework.review.records import ALLOWED_DECISIONS, request_place
from framework.server._http import Server
from framework.server._tables import RunRow
from framework.server.protocols._base import Outcome, answer_words, events, outcome
from framework.server.protocols.agui._state import StateStream

__all__ = ["refused_events", "run_events"]


async def run_events(server: Server, row: RunRow, run_id: str) -> AsyncIterator[BaseEvent]:
    """The events of ``row``'s run, named ``run_id`` as the client named it, until it ends:
    RUN_STARTED, a STEP_STARTED/STEP_FINISHED pair per node that ran, the thread's values
    (STATE_SNAPSHOT, then STATE_DELTA), then the answer and RUN_FINISHED, the reviews it paused
    for as RUN_FINISHED's interrupt outcome, or RUN_ERROR."""
    yield RunStartedEvent(thread_id=row.thread_id, run_id=run_id)
    state, answer = StateStream(), _AnswerStream()
    async for mode, data in events(server, row):
        for event in _during(mode, data, state, answer):
            yield event
    ended = await outcome(server, row)
    if answer.message_id is not None:
        yield TextMessageEndEvent(message_id=answer.message_id)
    if ended.status in ("failed", "stopped"):
        code = "server_stopping" if ended.status == "stopped" else "run_failed"
        yield RunErrorEvent(message=ended.error or "the run failed", code=code)
        return
    change = state.event(ended.values or {})
    if change is not None:
        yield change
    for event in _finished(ended, run_id, spoken=answer.message_id is not None):
        yield event


def _during(mode: str, data: Any, state: StateStream, answer: _AnswerStream) -> list[BaseEvent]:
    """The AG-UI events of one event of the run: the answer's text, a node's step, a change of
    the thread's values."""
    if mode == "messages":
        return answer.events(mode, data)
    if mode == "updates" and isinstance(data, Mapping):
        steps: list[BaseEvent] = []
        for node in data:
            if not node.startswith("__"):
                steps += [StepStartedEvent(step_name=node), StepFinishedEvent(step_name=node)]
        return steps
    if mode == "values" and isinstance(data, Mapping):
        change = state.event(data)
        return [change] if change is not None else []
    return []


class _AnswerStream:
    """The team's answer as its formatter speaks it, as AG-UI text message events."""

    def __init__(self) -> None:
        self.message_id: str | None = None

    def events(self, mode: str, data: Any) -> list[BaseEvent]:
        """The events of one run event that may be a chunk of the answer."""
        words = answer_words(mode, data)
        if words is None:
            return []
        message_id, text = words
        found: list[BaseEvent] = []
        if self.message_id is None:
            self.message_id = message_id
            found.append(TextMessageStartEvent(message_id=message_id, role="assistant"))
        if message_id == self.message_id and text:
            found.append(TextMessageContentEvent(message_id=message_id, delta=text))
        return found


def _finished(ended: Outcome, run_id: str, *, spoken: bool) -> list[BaseEvent]:
    """The answer as a text message (unless it was ``spoken`` as it was written) and
    RUN_FINISHED (cadre's outcome its result), or RUN_FINISHED with the reviews it paused
    for."""
    if ended.status == "paused":
        interrupts = [_interrupt(review) for review in ended.reviews]
        paused = RunFinishedInterruptOutcome(interrupts=interrupts)
        return [RunFinishedEvent(thread_id=ended.thread_id, run_id=run_id, outcome=paused)]
    if ended.status == "cancelled":
        cancelled = RunFinishedCancelledOutcome()
        return [RunFinishedEvent(thread_id=ended.thread_id, run_id=run_id, outcome=cancelled)]
    finished = RunFinishedEvent(
        thread_id=ended.thread_id,
        run_id=run_id,
        result=ended.to_json(),
        outcome=RunFinishedSuccessOutcome(),
    )
    if spoken or not ended.answer:
        return [finished]
    message_id = f"answer-{ended.run_id}"
    return [
        TextMessageStartEvent(message_id=message_id, role="assistant"),
        TextMessageContentEvent(message_id=message_id, delta=ended.answer),
        TextMessageEndEvent(message_id=message_id),
        finished,
    ]


def _interrupt(review: Mapping[str, Any]) -> Interrupt:
    """A paused run's interrupt (``{"id", "value"}``) for AG-UI: cadre's typed request is its
    ``metadata.value``; a review request also says what answers it."""
    value = review["value"]
    kind = value.get("kind") if isinstance(value, Mapping) else None
    if kind not in ALLOWED_DECISIONS or not isinstance(value, Mapping):
        return Interrupt(id=review["id"], reason="interrupt", metadata={"value": value})
    allowed = list(value.get("allowed") or ())
    return Interrupt(
        id=review["id"],
        reason=f"review:{kind}",
        message=(
            f"{kind} review at {request_place(value)}: resume with 'approve' or a decision "
            f"{{'kind': ...}} ({', '.join(allowed)})"
        ),
        response_schema=_answer_schema(allowed),
        metadata={"value": value},
    )


def _answer_schema(allowed: list[str]) -> dict[str, Any]:
    """What a resume payload for a review may be: ``"approve"``, or a decision of a kind the
    request allows (its other fields as :class:`~framework.review.records.Decision` reads)."""
    decision = {"type": "object", "required": ["kind"], "properties": {"kind": {"enum": allowed}}}
    return {"anyOf": [{"const": "approve"}, decision]}


async def refused_events(message: str, status: int) -> AsyncIterator[BaseEvent]:
    """A run the server refused to start: one RUN_ERROR, its code the HTTP status LangGraph's
    API answers the same refusal with."""
    yield RunErrorEvent(message=message, code=str(status))
