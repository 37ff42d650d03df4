"""Which decision a request accepts: every check runs before anything is resumed or written."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from framework.engine.records import Plan, Task
from framework.errors import ReviewError
from framework.review.limits import ReviewLimits
from framework.review.records import Decision, PlanReview, ReviewRequest, TaskReview

__all__ = [
    "check_decision",
    "check_plan",
    "parse_decision",
    "task_ids_of",
    "tasks_of",
    "validation_message",
]


def validation_message(error: ValidationError) -> str:
    """The validation errors on one line: ``where: what; where: what``."""
    return "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or 'value'}: {item['msg']}"
        for item in error.errors()
    )


def parse_decision(value: Decision | Mapping[str, Any] | Any) -> Decision:
    """A decision validated through its model (a :class:`Decision` is validated again).

    Raises:
        ReviewError: The value is no valid decision; the message carries the validation errors.
    """
    data = value.model_dump() if isinstance(value, Decision) else value
    try:
        return Decision.model_validate(data)
    except ValidationError as error:
        request = data.get("request_id", "?") if isinstance(data, Mapping) else "?"
        raise ReviewError(
            f"invalid decision for request {request!r}: {validation_message(error)}"
        ) from None


def tasks_of(request: ReviewRequest) -> dict[str, Task]:
    """The tasks a request is about, by id, in order."""
    if isinstance(request, PlanReview):
        return {task.id: task for task in request.tasks}
    if isinstance(request, TaskReview):
        return {request.task.id: request.task}
    return {}


def task_ids_of(request: ReviewRequest) -> list[str]:
    """The ids of the tasks a request is about, in order."""
    return list(tasks_of(request))


def check_decision(request: ReviewRequest, decision: Decision) -> None:
    """Refuse a decision ``request`` does not accept, saying why and what it accepts.

    Raises:
        ReviewError: The decision's kind is not allowed, or it names tasks the request is not
            about, names one twice, edits the plan into one with no work and no answer, or
            carries more than the :class:`ReviewLimits` of the process allow.
    """
    where = f"{request.kind} review {request.id or '(this request)'}"
    limits = ReviewLimits.from_environment()
    limits.check_text(decision.reason, "the reason")
    limits.check_text(decision.reviewer, "the reviewer's name")
    if decision.answer is not None:
        limits.check_text(decision.answer, "the edited answer", answer=True)
    if decision.response is not None:
        limits.check_text(decision.response, "the response")
    if decision.tasks is not None:
        limits.check_tasks(decision.tasks, "the edited tasks")
    if decision.kind not in request.allowed:
        raise ReviewError(
            f"{decision.kind} is not allowed for {where}: choose one of "
            f"{', '.join(request.allowed)}"
        )
    known = task_ids_of(request)
    if decision.kind == "edit_plan" and decision.plan is not None:
        plan = check_plan(decision.plan, f"the edited plan for {where}")
        _kinds(plan.tasks, request.task_kinds, where)
    if decision.kind == "edit_tasks":
        _known(_unique(_ids(decision.tasks or []), "the edited tasks"), known, where)
        _kinds(decision.tasks or [], request.task_kinds, where)
    if decision.kind == "reject_tasks":
        if not decision.task_ids and not isinstance(request, TaskReview):
            raise ReviewError(f"reject_tasks for {where} names no task: list the task ids")
        _known(_unique(decision.task_ids, "the rejected tasks"), known, where)


def check_plan(plan: Plan | Mapping[str, Any], what: str) -> Plan:
    """``plan`` validated again through its model, with unique task ids and some work to do.

    Raises:
        ReviewError: The plan is invalid (with the validation errors), names a task id twice,
            has neither tasks nor a direct answer, or is over the :class:`ReviewLimits`.
    """
    try:
        checked = Plan.model_validate(plan.model_dump() if isinstance(plan, Plan) else plan)
    except ValidationError as error:
        raise ReviewError(f"{what} is invalid: {validation_message(error)}") from None
    _unique((task.id for task in checked.tasks), f"the tasks of {what}")
    if not checked.tasks and checked.direct_answer is None:
        raise ReviewError(f"{what} has no tasks and no direct answer: give it one")
    ReviewLimits.from_environment().check_plan(checked, what)
    return checked


def _kinds(tasks: Iterable[Task], kinds: list[str], where: str) -> None:
    """Refuse a task of a kind no worker of the team takes (no kinds listed: any is taken)."""
    if not kinds:
        return
    for task in tasks:
        if task.kind not in kinds:
            raise ReviewError(
                f"task {task.id} of {where} has kind {task.kind!r}, which no worker of this "
                f"team takes: choose one of {', '.join(kinds)}"
            )


def _ids(tasks: Iterable[Task]) -> list[str]:
    return [task.id for task in tasks]


def _unique(ids: Iterable[str], what: str) -> list[str]:
    listed = list(ids)
    twice = sorted({task_id for task_id in listed if listed.count(task_id) > 1})
    if twice:
        raise ReviewError(f"{what} name task ids more than once: {', '.join(twice)}")
    return listed


def _known(ids: Iterable[str], known: list[str], where: str) -> None:
    unknown = [task_id for task_id in ids if task_id not in known]
    if unknown:
        raise ReviewError(
            f"unknown task id(s) {', '.join(unknown)} for {where}: it reviews "
            f"{', '.join(known) or 'no task'}"
        )
