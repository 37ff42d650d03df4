"""A cadre run as AG-UI events: the run's lifecycle, a step per node, the thread's state, the
answer as a text message, and a review pause as the run's interrupt outcome."""

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
from framework.server.protocols._base import Outcome, events, outcome
from framework.server.protocols.agui._state import StateStream

__all__ = ["refused_events", "run_events"]


async def run_events(server: Server, row: RunRow, run_id: str) -> AsyncIterator[BaseEvent]:
    """The events of ``row``'s run, named ``run_id`` as the client named it, until it ends:
    RUN_STARTED, a STEP_STARTED/STEP_FINISHED pair per node that ran, the thread's values
    (STATE_SNAPSHOT, then STATE_DELTA), then the answer and RUN_FINISHED, the reviews it paused
    for as RUN_FINISHED's interrupt outcome, or RUN_ERROR."""
    yield RunStartedEvent(thread_id=row.thread_id, run_id=run_id)
    state = StateStream()
    async for mode, data in events(server, row):
        if mode == "updates" and isinstance(data, Mapping):
            for node in data:
                if not node.startswith("__"):
                    yield StepStartedEvent(step_name=node)
                    yield StepFinishedEvent(step_name=node)
        elif mode == "values" and isinstance(data, Mapping):
            change = state.event(data)
            if change is not None:
                yield change
    ended = await outcome(server, row)
    if ended.status == "failed":
        yield RunErrorEvent(message=ended.error or "the run failed", code="run_failed")
        return
    change = state.event(ended.values or {})
    if change is not None:
        yield change
    for event in _finished(ended, run_id):
        yield event


def _finished(ended: Outcome, run_id: str) -> list[BaseEvent]:
    """The answer as a text message and RUN_FINISHED (cadre's outcome its result), or
    RUN_FINISHED with the reviews it paused for."""
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
    if not ended.answer:
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
