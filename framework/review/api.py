"""The review API: what is pending, decide it, look back over a thread, fork it.

Every decision is checked against its pending request before anything is resumed: an unknown
thread or request id, a decision the request does not allow, an invalid edit, nothing pending
or a finished thread raise :class:`~framework.errors.ReviewError` and leave the thread exactly
as it was (nothing is resumed, nothing is written). Valid decisions are resumed together, in
one ``Command(resume={request_id: decision})``: LangGraph ignores ids it does not know, so
cadre never lets one through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.constants import END
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, StateSnapshot, StateUpdate

from framework.errors import ReviewError
from framework.review._apply import audit_entry
from framework.review._fork import fork
from framework.review._history import history
from framework.review._pending import (
    checkpointer_of,
    requests_in,
    thread_config,
    thread_ids,
    unknown_thread,
)
from framework.review._rules import check_decision, parse_decision
from framework.review.records import AnyReviewRequest, AuditEntry, Decision, DecisionKind
from framework.runs.observe import RunObserver
from framework.runs.runner import (
    EventHandler,
    RunResult,
    StreamOptions,
    arun_team,
    hold_thread,
    run_team,
)

__all__ = [
    "adecide",
    "approve_all",
    "decide",
    "fork",
    "history",
    "pending",
    "requests_in",
    "resolvable",
    "resolve",
    "resume_command",
    "thread_config",
    "thread_ids",
]

App = CompiledStateGraph[Any, Any, Any, Any]
RESOLVED = "marked as resolved: the run ends here, without going on"
"""The reason of each rejection :func:`resolve` records."""
DecisionInput = Decision | Mapping[str, Any]
"""A decision, or its fields (read from JSON or YAML): both are validated the same way."""


def pending(app: App, thread_id: str | None = None) -> list[AnyReviewRequest]:
    """The open review requests of one thread, or of every thread the app's checkpointer holds.

    Several requests may be open at once (a task review per task), and requests raised inside
    a subgraph (the research team inside the MetaCoordinator) are listed like top-level ones.

    Raises:
        ReviewError: ``thread_id`` names no thread.
    """
    checkpointer = checkpointer_of(app)
    if thread_id is not None:
        return _open_requests(app.get_state(thread_config(thread_id), subgraphs=True), thread_id)
    found: list[AnyReviewRequest] = []
    for thread in thread_ids(checkpointer):
        found += requests_in(app.get_state(thread_config(thread), subgraphs=True), thread)
    return found


def _open_requests(snapshot: StateSnapshot, thread_id: str) -> list[AnyReviewRequest]:
    if snapshot.created_at is None:
        raise unknown_thread(thread_id)
    return requests_in(snapshot, thread_id)


def resume_command(
    snapshot: StateSnapshot, thread_id: str, decisions: Sequence[DecisionInput]
) -> Command[Any]:
    """Check every decision against the thread's open requests; the command that resumes them.

    Raises:
        ReviewError: The first problem found; nothing has been resumed or written.
    """
    requests = {request.id: request for request in _open_requests(snapshot, thread_id)}
    if not requests:
        if not snapshot.next and not snapshot.tasks:  # tasks: results not applied yet
            raise ReviewError(
                f"thread {thread_id!r} is finished: there is nothing to decide; fork it from "
                "a checkpoint (see history) to change its course"
            )
        raise ReviewError(
            f"nothing pending on thread {thread_id!r}: it waits for no review; a run that "
            f"stopped after its decision goes on with `cadre resume {thread_id}` (over the "
            "API: a run with no input)"
        )
    if not decisions:
        raise ReviewError(
            f"no decision given for thread {thread_id!r}: pending are {', '.join(requests)}"
        )
    resume: dict[str, Any] = {}
    for value in decisions:
        decision = parse_decision(value)
        request = requests.get(decision.request_id)
        if request is None:
            raise ReviewError(
                f"request {decision.request_id!r} is not pending on thread {thread_id!r}: "
                f"pending are {', '.join(requests)}"
            )
        if decision.request_id in resume:
            raise ReviewError(f"request {decision.request_id!r} is decided twice in one call")
        check_decision(request, decision)
        resume[decision.request_id] = decision.model_dump(mode="json")
    return Command(resume=resume)


def decide(
    app: App,
    thread_id: str,
    decisions: Sequence[DecisionInput],
    *,
    on_event: EventHandler | None = None,
    observer: RunObserver | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> RunResult:
    """Apply ``decisions`` to the thread's pending requests and run on to the next pause or
    the end.

    Args:
        app: The compiled team the thread ran on, with its checkpointer.
        thread_id: The paused thread.
        decisions: One decision per request to answer (several at once are resumed together;
            requests left unanswered stay pending).
        on_event: Receives the run's progress events.
        observer: Telemetry for the resumed part of the run.
        metadata: Recorded with the checkpoints the resumed part writes (see
            :func:`framework.runs.runner.run_team`).

    Raises:
        ReviewError: Unknown thread or request id, a decision the request does not allow, an
            invalid edit (with the validation errors), nothing pending, or a finished thread.
            The thread is left exactly as it was.
        ThreadBusyError: Another process is running the thread; nothing was decided.
    """
    checkpointer_of(app)
    with hold_thread(app, thread_id):
        snapshot = app.get_state(thread_config(thread_id), subgraphs=True)
        command = resume_command(snapshot, thread_id, decisions)
        return run_team(
            app, command, thread_id, on_event=on_event, observer=observer, metadata=metadata
        )


async def adecide(
    app: App,
    thread_id: str,
    decisions: Sequence[DecisionInput],
    *,
    on_event: EventHandler | None = None,
    observer: RunObserver | None = None,
    metadata: Mapping[str, Any] | None = None,
    options: StreamOptions | None = None,
) -> RunResult:
    """Async form of :func:`decide` (the app's checkpointer must support async access);
    ``options`` stream more of the resumed run (its callbacks, say)."""
    checkpointer_of(app)
    with hold_thread(app, thread_id):
        snapshot = await app.aget_state(thread_config(thread_id), subgraphs=True)
        command = resume_command(snapshot, thread_id, decisions)
        return await arun_team(
            app,
            command,
            thread_id,
            on_event=on_event,
            observer=observer,
            metadata=metadata,
            options=options or StreamOptions(),
        )


def approve_all(
    app: App,
    thread_id: str,
    reviewer: str,
    *,
    on_event: EventHandler | None = None,
    observer: RunObserver | None = None,
) -> RunResult:
    """Approve every pending request of the thread at once, as ``reviewer``.

    Raises:
        ReviewError: As :func:`decide` (nothing pending, finished or unknown thread).
    """
    requests = pending(app, thread_id)
    decisions = [{"request_id": r.id, "kind": "approve", "reviewer": reviewer} for r in requests]
    return decide(app, thread_id, decisions, on_event=on_event, observer=observer)


def resolvable(app: App, thread_id: str) -> list[tuple[AnyReviewRequest, DecisionKind]]:
    """The pending requests of ``thread_id`` with how each is rejected, when the thread may be
    marked resolved (:func:`resolve`).

    Raises:
        ReviewError: Nothing is pending, or a pending request may not be rejected (an answer
            or node review: decide it instead).
    """
    requests = pending(app, thread_id)
    if not requests:
        raise ReviewError(f"thread {thread_id!r} waits for no review: nothing to resolve")
    rejections = [(request, _rejection(request)) for request in requests]
    kept = [request.id for request, kind in rejections if kind is None]
    if kept:
        raise ReviewError(
            f"review(s) {', '.join(kept)} of thread {thread_id!r} may not be rejected, so the "
            "thread cannot be marked resolved: decide them instead"
        )
    return [(request, kind) for request, kind in rejections if kind is not None]


def resolve(app: App, thread_id: str, reviewer: str) -> list[AuditEntry]:
    """End ``thread_id``, paused for review, without running on ("Mark as resolved" in Agent
    Inbox and Agent Chat UI): every pending request rejected by ``reviewer`` (a plan's or
    tasks' review: its tasks; reason :data:`RESOLVED`), in the audit trail, and the thread's
    due tasks cleared as LangGraph's update as ``__end__`` clears them; the audit entries
    written.

    Raises:
        ReviewError: See :func:`resolvable`; the thread is left as it was.
    """
    entries = [
        audit_entry(
            request.kind,
            kind,
            request_id=request.id,
            reviewer=reviewer,
            path=request.path,
            where=request.where,
            reason=RESOLVED,
        )
        for request, kind in resolvable(app, thread_id)
    ]
    config = thread_config(thread_id)
    node = app.get_state(config).tasks[0].name  # the audit is written as a task that waits
    app.bulk_update_state(
        config, [[StateUpdate({"audit": entries}, as_node=node)], [StateUpdate(None, END)]]
    )
    return entries


def _rejection(request: AnyReviewRequest) -> DecisionKind | None:
    """How ``request`` is rejected (None: it may not be)."""
    return next((kind for kind in ("reject", "reject_tasks") if kind in request.allowed), None)
