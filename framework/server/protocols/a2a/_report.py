"""How a cadre run looks as an A2A task, and what an A2A message says to cadre.

A run that answered is a completed task whose artifact ``answer`` holds the cited answer (a
text part) and a data part: the thread and run, what the run used, how sure the team was
(``confidence``) and the passages its answer stands on (``evidence``: ``{"source", "text",
"score"}`` each, as the team's workers cited them, so a calling team cites the same sources).
A run paused for review is ``input-required``, its status message a text part saying how to
answer and one data part per pending review (the interrupt as LangGraph's API shows it:
``{"id", "value": the typed request}``); a failed run is ``failed`` with its one-line error. A
client answers a review with a message on the task: one data part holding a decision
(``{"kind": "approve"}``, an edit, or decisions keyed by review id), or the text ``approve``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from a2a.helpers import (
    get_data_parts,
    get_message_text,
    new_data_part,
    new_message,
    new_text_part,
)
from a2a.types.a2a_pb2 import Artifact, Message, Part, TaskState
from a2a.utils.errors import ContentTypeNotSupportedError, InvalidParamsError

from framework.engine.records import Task
from framework.engine.team_worker import team_result
from framework.policy.usage import usage_totals
from framework.review.records import request_place
from framework.server.protocols._base import Outcome

__all__ = ["ANSWER_ARTIFACT", "Report", "question_of", "report_of", "resume_value"]

ANSWER_ARTIFACT = "answer"
"""The name (and id) of the artifact holding a run's answer."""

_APPROVE = "approve"
_CITED = {"source", "text", "score"}
"""What an answer's data part tells of each passage."""


@dataclass(frozen=True, kw_only=True)
class Report:
    """A run's outcome in A2A's terms: the task's state, its status message and its answer."""

    state: TaskState
    parts: list[Part] = field(default_factory=list)
    """The status message's parts (none: no message)."""
    artifact: Artifact | None = None

    def message(self, task_id: str, context_id: str) -> Message | None:
        """The task's status message (None without parts)."""
        if not self.parts:
            return None
        return new_message(self.parts, context_id=context_id, task_id=task_id)


def report_of(ended: Outcome) -> Report:
    """How ``ended`` shows on its task."""
    if ended.status == "paused":
        reviews = [new_data_part(review) for review in ended.reviews]
        return Report(
            state=TaskState.TASK_STATE_INPUT_REQUIRED,
            parts=[new_text_part(_how_to_answer(ended.reviews)), *reviews],
        )
    if ended.status == "stopped":  # not ended: the task goes on when the server is back
        follow = f"{ended.error}; this task goes on then: follow it with GetTask or SubscribeToTask"
        return Report(state=TaskState.TASK_STATE_WORKING, parts=[new_text_part(follow)])
    if ended.status in ("failed", "cancelled"):
        state = TaskState.TASK_STATE_FAILED
        if ended.status == "cancelled":
            state = TaskState.TASK_STATE_CANCELED
        return Report(state=state, parts=[new_text_part(ended.error or ended.status)])
    about: dict[str, Any] = {"threadId": ended.thread_id, "runId": ended.run_id}  # A2A: camelCase
    records = ((ended.values or {}).get("usage") or {}).values()
    about["usage"] = usage_totals(record.get("counts") or {} for record in records)
    found = team_result(
        Task(id=ANSWER_ARTIFACT, description=ended.answer or ANSWER_ARTIFACT),
        "",
        ended.values or {},
    )
    about["confidence"] = found.confidence
    about["evidence"] = [item.model_dump(include=_CITED) for item in found.evidence]
    answer = Artifact(
        artifact_id=ANSWER_ARTIFACT,
        name=ANSWER_ARTIFACT,
        parts=[new_text_part(ended.answer, media_type="text/markdown"), new_data_part(about)],
    )
    return Report(state=TaskState.TASK_STATE_COMPLETED, artifact=answer)


def _how_to_answer(reviews: tuple[dict[str, Any], ...]) -> str:
    waiting = "; ".join(_pending(review) for review in reviews)
    if len(reviews) == 1:
        how = (
            'one data part holding the decision (as {"kind": "approve"} or an edit such as '
            '{"kind": "edit_plan", "plan": {...}}), or the text "approve"'
        )
    else:
        how = "one data part holding a decision for each, keyed by review id"
    return (
        f"The run waits for {len(reviews)} review(s): {waiting}. Answer with a message on this "
        f"task: {how}."
    )


def _pending(review: Mapping[str, Any]) -> str:
    value = review.get("value")
    request = value if isinstance(value, Mapping) else {}
    allowed = ", ".join(request.get("allowed") or [_APPROVE])
    kind = request.get("kind", "review")
    return f"{review.get('id')}: {kind} at {request_place(request)} (allows {allowed})"


def question_of(message: Message) -> str:
    """The question a message asks: its text parts.

    Raises:
        ContentTypeNotSupportedError: The message has no text, only files (raw bytes or URLs).
        InvalidParamsError: The message has no text.
    """
    question = get_message_text(message).strip()
    if question:
        return question
    files = sorted(
        part.media_type or "a file"
        for part in message.parts
        if part.WhichOneof("content") in ("raw", "url")
    )
    if files:
        raise ContentTypeNotSupportedError(
            f"{', '.join(files)} is not read: send the question as a text part of the message"
        )
    raise InvalidParamsError("send the question as a text part of the message")


def resume_value(message: Message) -> Any:
    """The decision(s) a message gives on a task's pending reviews: its one data part, or the
    text ``approve``.

    Raises:
        InvalidParamsError: The message holds neither (naming what it should hold).
    """
    data = get_data_parts(message.parts)
    if len(data) == 1:
        return data[0]
    text = get_message_text(message).strip()
    if not data and text.lower() == _APPROVE:
        return _APPROVE
    raise InvalidParamsError(
        'answer a review with one data part holding the decision (as {"kind": "approve"}, an '
        "edit, or decisions keyed by review id) or the text 'approve'"
    )
