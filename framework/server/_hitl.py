"""cadre's review requests in the shape of LangChain's human-in-the-loop middleware, and its
``{"decisions": [...]}`` resumes as cadre decisions (langchain 1.x,
``langchain.agents.middleware.human_in_the_loop``: ``HITLRequest``, ``HITLResponse``), as
Agent Chat UI reads and sends them.

A review request is one action: ``action_requests`` holds ``{name, args, description}``
(``review_<kind>``, the fields Agent Inbox shows, markdown) and ``review_configs`` its
``allowed_decisions``. A resume answers it with a list of one decision:

* ``approve``: approve;
* ``edit``: ``edited_action.args`` is the action's args with the reviewer's edit, read as an
  Agent Inbox edit (the one field that changed: ``edit_plan``, ``edit_tasks`` or
  ``edit_answer``; the text of a box is JSON but for an answer);
* ``reject``: a rejection, ``message`` its reason (``rejected`` without one): a policy
  review's call is refused, a task review's task, a plan review's pending tasks;
* ``respond``: to a question review (a remote agent asking), ``message`` is the response it is
  sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.errors import ReviewError
from framework.review.records import AnyReviewRequest
from framework.server._inbox import (
    action_args,
    edit_decision,
    inbox_config,
    rejection,
    review_lines,
)

__all__ = ["DECISION_TYPES", "HITL_FIELDS", "REJECTED", "hitl_decision", "hitl_fields"]

HITL_FIELDS = frozenset({"action_requests", "review_configs"})
"""What :func:`hitl_fields` adds to a review request's JSON."""
DECISION_TYPES = ("approve", "edit", "reject", "respond")
"""The middleware's decisions."""
REJECTED = "rejected"
"""The reason of a rejection sent without a message."""

_DOES = {
    "approve": "approve approves",
    "edit": "edit replaces the one field you changed",
    "reject": "reject rejects, your message the reason",
    "respond": "respond sends your message to the agent that asked",
}


def _allowed(request: Mapping[str, Any]) -> list[str]:
    """The middleware's decisions a review request (its JSON) takes."""
    config = inbox_config(request)
    offered = {
        "approve": config["allow_accept"],
        "edit": config["allow_edit"],
        "reject": config["allow_ignore"],
        "respond": "respond" in (request.get("allowed") or ()),
    }
    return [name for name in DECISION_TYPES if offered[name]]


def hitl_fields(request: Mapping[str, Any]) -> dict[str, Any]:
    """``action_requests`` and ``review_configs`` for a review request (its JSON)."""
    name = f"review_{request['kind']}"
    allowed = _allowed(request)
    description = [*review_lines(request), "", "; ".join(_DOES[d] for d in allowed) + "."]
    return {
        "action_requests": [
            {"name": name, "args": action_args(request), "description": "\n".join(description)}
        ],
        "review_configs": [{"action_name": name, "allowed_decisions": allowed}],
    }


def hitl_decision(request: AnyReviewRequest, decisions: Any) -> dict[str, Any]:
    """The cadre decision (without request id and reviewer) of a resume's ``decisions``.

    Raises:
        ReviewError: ``decisions`` is not a list of one decision, or its type is unknown or
            not one the request takes, or it lacks what its type needs.
    """
    if not (isinstance(decisions, list) and len(decisions) == 1 and _is_map(decisions[0])):
        raise ReviewError(
            f"request {request.id!r}: decisions is a list of one decision (a review is one "
            f"action): [{{'type': {' | '.join(map(repr, DECISION_TYPES))}, ...}}]"
        )
    decision = decisions[0]
    kind = decision.get("type")
    allowed = _allowed(request.model_dump(mode="json"))
    if kind not in allowed:
        raise ReviewError(
            f"request {request.id!r} ({request.kind} review) takes no decision of type "
            f"{kind!r}: choose {', '.join(allowed)}"
        )
    if kind == "approve":
        return {"kind": "approve"}
    if kind == "edit":
        action = decision.get("edited_action")
        return edit_decision(request, action.get("args") if _is_map(action) else None)
    message = decision.get("message")
    if message is not None and not isinstance(message, str):
        raise ReviewError(f"request {request.id!r}: a decision's message is text")
    if kind == "respond":
        if not message:
            raise ReviewError(f"request {request.id!r}: respond carries the answer as message")
        return {"kind": "respond", "response": message}
    return rejection(request, "reject", message or REJECTED)


def _is_map(value: Any) -> bool:
    return isinstance(value, Mapping)
