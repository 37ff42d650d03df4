"""A client's ``command={"resume": ...}`` turned into cadre review decisions, checked by the
review API before anything runs (so an invalid edit leaves the thread as it was).

A resume value is, per pending request (keyed by interrupt id; a lone request needs no key):
cadre's own decision (``{"kind": "edit_plan", "plan": {...}}``), the word ``"approve"``,
Agent Inbox's response (a one-item list of ``{"type": "accept" | "edit" | "response" |
"ignore", "args": ...}``, see :mod:`framework.server._inbox`), or the human-in-the-loop
middleware's (``{"decisions": [{"type": "approve" | "edit" | "reject" | "respond", ...}]}``,
see :mod:`framework.server._hitl`). The reviewer is always the
caller (the API token's name), and every decision is audited like any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.types import Command, StateSnapshot

from framework.errors import ReviewError
from framework.review.api import requests_in, resume_command
from framework.review.records import AnyReviewRequest
from framework.server._hitl import hitl_decision
from framework.server._inbox import RESPONSE_TYPES, inbox_decision

__all__ = ["resume_from"]


def resume_from(
    snapshot: StateSnapshot, thread_id: str, resume: Any, reviewer: str
) -> Command[Any]:
    """The command resuming ``thread_id`` with ``resume``, every decision checked.

    A thread paused without cadre review requests (a static breakpoint, another interrupt) is
    resumed with the value as it is.

    Raises:
        ReviewError: A decision is invalid (with the field errors), names no pending request
            (or is keyed by an id no pending request has), or several requests are pending
            and the value is not keyed by their ids.
    """
    requests = {request.id: request for request in requests_in(snapshot, thread_id)}
    if not requests:
        if snapshot.next:
            return Command(resume=resume)
        raise ReviewError(f"nothing pending on thread {thread_id!r}: it waits for no review")
    keyed = isinstance(resume, Mapping) and bool(resume) and not {"kind", "decisions"} & set(resume)
    if keyed and set(resume) <= set(requests):
        chosen = dict(resume)
    elif keyed:
        unknown = ", ".join(sorted(set(resume) - set(requests)))
        raise ReviewError(
            f"no review pending on thread {thread_id!r} has the id {unknown}: key the decisions "
            f"by the ids pending ({', '.join(requests)})"
        )
    elif len(requests) == 1:
        chosen = {next(iter(requests)): resume}
    else:
        raise ReviewError(
            f"{len(requests)} reviews are pending on thread {thread_id!r}: key the resume value "
            f"by interrupt id ({', '.join(requests)})"
        )
    decisions = [
        _decision(requests[request_id], value, reviewer) for request_id, value in chosen.items()
    ]
    return resume_command(snapshot, thread_id, decisions)


def _decision(request: AnyReviewRequest, value: Any, reviewer: str) -> dict[str, Any]:
    base = {"request_id": request.id, "reviewer": reviewer}
    if value == "approve":
        return {**base, "kind": "approve"}
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], Mapping):
        return {**base, **inbox_decision(request, value[0])}
    if isinstance(value, Mapping) and set(value) == {"decisions"}:
        return {**base, **hitl_decision(request, value["decisions"])}
    if isinstance(value, Mapping) and "kind" in value:
        return {**dict(value), **base}
    raise ReviewError(
        f"request {request.id!r}: a resume value is a decision ({{'kind': ...}}), 'approve', "
        f"an Agent Inbox response ([{{'type': {' | '.join(map(repr, RESPONSE_TYPES))}, "
        "'args': ...}]) or the human-in-the-loop middleware's ({'decisions': [...]})"
    )
