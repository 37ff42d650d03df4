"""cadre's review requests as LangChain's Agent Inbox reads them, and its responses as cadre
decisions (replayed from agent-inbox's source, commit ``f38301b``, August 2026).

An interrupt Agent Inbox shows carries ``action_request`` (``{action, args}``: the fields a
reviewer may edit, or reads), ``config`` (which of accept, edit, response and ignore it offers)
and ``description`` (markdown). It answers with a one-item list ``[{"type", "args"}]``:

* ``accept``: approve (its ``args``, the unchanged action request, are not read);
* ``edit``: ``args`` is the action request with the reviewer's edits; Agent Inbox sends an
  edited field as the text of its box (JSON for a plan or a task, plain text for an answer).
  The one field that changed becomes ``edit_plan``, ``edit_tasks`` or ``edit_answer``; an edit
  that changes nothing is an approval (Agent Inbox itself sends ``accept`` then);
* ``response``: the reviewer's text. To a question review (a remote agent asking in free text)
  it is the response the agent is sent; to any other, the reason of a rejection: a policy
  review's call is refused, a task review's task is rejected, a plan review's pending tasks are
  all rejected (none of them runs; the answer and the audit trail say why);
* ``ignore``: the same rejection without a text (the reason reads ``ignored``).

Where a request allows no rejection (answer and node reviews) response and ignore are not
offered, and a client that sends them is told what the request takes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from framework.errors import ReviewError
from framework.review.records import AnyReviewRequest, PlanReview, request_place

__all__ = [
    "IGNORED",
    "INBOX_FIELDS",
    "RESPONSE_TYPES",
    "action_args",
    "edit_decision",
    "inbox_config",
    "inbox_decision",
    "inbox_fields",
    "rejection",
    "review_lines",
]

INBOX_FIELDS = frozenset({"action_request", "config", "description"})
"""What :func:`inbox_fields` adds to a review request's JSON for Agent Inbox."""
RESPONSE_TYPES = ("accept", "edit", "response", "ignore")
"""What Agent Inbox answers with."""

IGNORED = "ignored"
"""The reason of a rejection Agent Inbox sent as ``ignore``."""

_SHOWN: dict[str, tuple[str, ...]] = {
    "plan": ("plan",),
    "tasks": ("task",),
    "answer": ("answer",),
    "node": ("node", "input"),
    "policy": ("policy", "hook", "target", "task_id", "question", "call"),
    "question": ("remote", "task_id", "question"),
}
"""The fields of ``action_request.args`` per kind of request."""

_EDITABLE: dict[str, tuple[str, ...]] = {
    "plan": ("plan", "tasks"),
    "tasks": ("task", "tasks"),
    "answer": ("answer",),
}
"""The fields an edit may carry per kind (``tasks`` for a client that sends them whole)."""

_EDITS = {"plan": "edit_plan", "tasks": "edit_tasks", "task": "edit_tasks", "answer": "edit_answer"}


# -- what Agent Inbox shows ---------------------------------------------------------------------


def action_args(request: Mapping[str, Any]) -> dict[str, Any]:
    """The request's fields as ``action_request.args`` (JSON values)."""
    values = {
        **request,
        "answer": request.get("draft", ""),
        "input": request.get("summary", ""),
        "call": request.get("summary", ""),
    }
    names = _SHOWN.get(str(request.get("kind")), ())
    return {name: values[name] for name in names if values.get(name) not in (None, "")}


def inbox_config(request: Mapping[str, Any]) -> dict[str, bool]:
    """Which of accept, edit, response and ignore a review request (its JSON) offers:
    ``allow_ignore`` is whether it may be rejected."""
    allowed = set(request.get("allowed") or ())
    rejects = bool(allowed & {"reject", "reject_tasks"})
    kind = str(request["kind"])
    return {
        "allow_accept": "approve" in allowed,
        "allow_edit": any(_EDITS[name] in allowed for name in _EDITABLE.get(kind, ())),
        "allow_respond": rejects or "respond" in allowed,
        "allow_ignore": rejects,
    }


def inbox_fields(request: Mapping[str, Any]) -> dict[str, Any]:
    """``action_request``, ``config`` and ``description`` for a review request (its JSON)."""
    config = inbox_config(request)
    return {
        "action_request": {"action": f"review_{request['kind']}", "args": action_args(request)},
        "config": config,
        "description": _description(request, config),
    }


def _task_line(task: Mapping[str, Any]) -> str:
    where = f"{task.get('kind')}, {task.get('status')}"
    return f"- `{task.get('id')}` ({where}): {task.get('description')}"


def _subject(request: Mapping[str, Any]) -> list[str]:
    kind = request.get("kind")
    if kind == "plan":
        plan = request.get("plan") or {}
        return [f"Goal: {plan.get('goal', '')}", "", *map(_task_line, request.get("tasks") or [])]
    if kind == "tasks":
        task = request.get("task") or {}
        inputs = json.dumps(task.get("inputs") or {}, ensure_ascii=False)
        return [_task_line(task), f"Inputs: `{inputs}`"]
    if kind == "answer":
        return ["The draft answer is the `answer` to edit; accept it as it is, or edit it."]
    if kind == "policy":
        task = f" (task `{request['task_id']}`)" if request.get("task_id") else ""
        return [
            f"Policy `{request.get('policy')}` asks at `{request.get('hook')}` on "
            f"`{request.get('target')}`{task}: {request.get('question')}",
            f"Call: `{request.get('summary')}`",
        ]
    if kind == "question":
        return [
            f"`{request.get('remote')}` asks (task `{request.get('task_id')}`): "
            f"{request.get('question')}"
        ]
    return [f"May node `{request.get('node')}` run? Input: {request.get('summary')}"]


_ACTIONS = {
    "accept": "accept approves",
    "edit": "edit replaces what you changed",
    "respond": "a response rejects with your text as the reason",
    "ignore": "ignore rejects without a reason",
}
"""What each action offered does, by its ``config`` key (``allow_<name>``)."""
_RESPONDS = "a response is sent to the agent that asked, as your answer"
"""What a response does to a question review."""


def review_lines(request: Mapping[str, Any]) -> list[str]:
    """What a review request (its JSON) is about, as markdown lines: its kind, place and
    decisions, then its subject (the plan, the task, the call, the question...)."""
    kind = str(request.get("kind"))
    allowed = sorted(request.get("allowed") or ())
    return [
        f"**cadre {'task' if kind == 'tasks' else kind} review** at {request_place(request)} "
        f"(node `{request.get('node')}`); decisions: {', '.join(allowed)}",
        "",
        *_subject(request),
    ]


def _description(request: Mapping[str, Any], config: Mapping[str, bool]) -> str:
    responds = "respond" in (request.get("allowed") or ())
    actions = {**_ACTIONS, "respond": _RESPONDS} if responds else _ACTIONS
    offered = [text for name, text in actions.items() if config[f"allow_{name}"]]
    return "\n".join([*review_lines(request), "", f"In Agent Inbox: {'; '.join(offered)}."])


# -- what Agent Inbox answers --------------------------------------------------------------------


def inbox_decision(request: AnyReviewRequest, response: Mapping[str, Any]) -> dict[str, Any]:
    """The cadre decision (without request id and reviewer) of one Agent Inbox response.

    Raises:
        ReviewError: The response's type is unknown or the request does not take it, or an
            edit carries no field of the request, several changed ones, or text that is not
            JSON where JSON is due.
    """
    kind = response.get("type")
    args = response.get("args")
    if kind == "accept":
        return {"kind": "approve"}
    if kind == "edit":
        return edit_decision(request, args)
    if kind == "response":
        if not isinstance(args, str):
            raise ReviewError(f"request {request.id!r}: a response's args is the reviewer's text")
        if "respond" in request.allowed:
            return {"kind": "respond", "response": args}
        return rejection(request, kind, args)
    if kind == "ignore":
        return rejection(request, kind, IGNORED)
    raise ReviewError(
        f"request {request.id!r}: response type {kind!r} is not one Agent Inbox sends: choose "
        f"{', '.join(RESPONSE_TYPES)}"
    )


def rejection(request: AnyReviewRequest, kind: str, reason: str) -> dict[str, Any]:
    """The rejection a client's ``kind`` of answer means: the request's own (a policy's call,
    a task), or a plan's pending tasks all rejected, with ``reason``.

    Raises:
        ReviewError: The request allows no rejection, or its plan has no pending task.
    """
    if "reject" in request.allowed:
        return {"kind": "reject", "reason": reason}
    if "reject_tasks" not in request.allowed:
        raise ReviewError(
            f"request {request.id!r} ({request.kind} review) takes no {kind}: it allows "
            f"{', '.join(request.allowed)} (send accept{', or edit' if _editable(request) else ''})"
        )
    if not isinstance(request, PlanReview):  # a task review: its own task
        return {"kind": "reject_tasks", "reason": reason}
    pending = [task.id for task in request.tasks if task.status == "pending"]
    if not pending:
        raise ReviewError(f"request {request.id!r}: the plan has no pending task to reject")
    return {"kind": "reject_tasks", "task_ids": pending, "reason": reason}


def _editable(request: AnyReviewRequest) -> tuple[str, ...]:
    return tuple(
        name for name in _EDITABLE.get(request.kind, ()) if _EDITS[name] in request.allowed
    )


def edit_decision(request: AnyReviewRequest, args: Any) -> dict[str, Any]:
    """The decision of an edited action request's ``args`` (or the request with its
    ``args``): the one field that changed, or approval when none did.

    Raises:
        ReviewError: The request takes no edit, or the edit carries no field of it, several
            changed ones, or text that is not JSON where JSON is due.
    """
    editable = _editable(request)
    if not editable:
        raise ReviewError(
            f"request {request.id!r} ({request.kind} review) takes no edit: it allows "
            f"{', '.join(request.allowed)}"
        )
    fields = args.get("args", args) if isinstance(args, Mapping) else None
    given = [name for name in editable if isinstance(fields, Mapping) and name in fields]
    if not isinstance(fields, Mapping) or not given:
        raise ReviewError(
            f"request {request.id!r}: an edit's args are the action request with "
            f"{' or '.join(editable)} in its args"
        )
    shown = action_args(request.model_dump(mode="json"))
    edited = {name: _parsed(name, fields[name]) for name in given}
    changed = {name: value for name, value in edited.items() if shown.get(name) != value}
    if len(changed) > 1:
        raise ReviewError(
            f"request {request.id!r}: the edit changes {' and '.join(changed)}: change one"
        )
    if not changed:
        return {"kind": "approve"}
    [(name, value)] = changed.items()
    return {"kind": _EDITS[name], "tasks" if name == "task" else name: _shaped(name, value)}


def _parsed(name: str, value: Any) -> Any:
    """An edited field: the text of Agent Inbox's box (JSON but for an answer), or a value."""
    if name == "answer" or not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as error:
        raise ReviewError(f"{name}: not JSON ({error.msg} at line {error.lineno})") from None


def _shaped(name: str, value: Any) -> Any:
    return [value] if name == "task" else value
