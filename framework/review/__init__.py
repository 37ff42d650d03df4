"""Human review: typed review requests at review points, decisions, audit trail, time travel.

A team built with :attr:`framework.engine.builder.TeamSettings.review` pauses at its review
points with typed requests (:class:`PlanReview`, :class:`TaskReview`, :class:`AnswerReview`,
:class:`NodeReview`; a policy asks with a :class:`PolicyReview`, a remote agent's free-text
question is a :class:`QuestionReview`). :func:`pending` lists them (several at once, subgraphs
included); :func:`decide` checks decisions against them and resumes the run; every applied
decision is kept in the thread's ``audit`` trail. :func:`history` lists a thread's checkpoints
and :func:`fork` continues one of them in a new thread, with an edited plan if wanted. The
checks (:func:`parse_decision`, :func:`check_decision`, :func:`check_plan`) are public, so a
client can refuse bad input the same way before it calls the API.

The API functions are imported on first use: the state module needs the records of this
package, and the API needs the state module.

It may import the engine, and the runner (:mod:`framework.runs.runner`) for the API that
resumes runs; never the server, the fleet or the CLI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports
from framework.review._rules import (
    check_decision,
    check_plan,
    parse_decision,
    tasks_of,
    validation_message,
)
from framework.review._summary import call_summary, input_summary
from framework.review.limits import ReviewLimits
from framework.review.records import (
    ALLOWED_DECISIONS,
    AnswerReview,
    AnyReviewRequest,
    AuditEntry,
    CheckpointSummary,
    Decision,
    DecisionKind,
    NodeReview,
    PlanReview,
    QuestionReview,
    ReviewKind,
    ReviewRequest,
    TaskReview,
    pending_revision,
)

if TYPE_CHECKING:
    from framework.review._apply import decision_entry
    from framework.review._pending import requests_in
    from framework.review.api import (
        adecide,
        approve_all,
        decide,
        fork,
        history,
        pending,
        thread_ids,
    )

__all__ = [
    "ALLOWED_DECISIONS",
    "AnswerReview",
    "AnyReviewRequest",
    "AuditEntry",
    "CheckpointSummary",
    "Decision",
    "DecisionKind",
    "NodeReview",
    "PlanReview",
    "QuestionReview",
    "ReviewKind",
    "ReviewLimits",
    "ReviewRequest",
    "TaskReview",
    "adecide",
    "approve_all",
    "call_summary",
    "check_decision",
    "check_plan",
    "decide",
    "decision_entry",
    "fork",
    "history",
    "input_summary",
    "parse_decision",
    "pending",
    "pending_revision",
    "requests_in",
    "tasks_of",
    "thread_ids",
    "validation_message",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.review._apply": ("decision_entry",),
        "framework.review._pending": ("requests_in",),  # no graph machinery
        "framework.review.api": (
            "adecide",
            "approve_all",
            "decide",
            "fork",
            "history",
            "pending",
            "thread_ids",
        ),
    },
)
