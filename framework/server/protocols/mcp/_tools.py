"""The MCP tools of ``cadre serve``: one per served team (a question in, the cited answer out)
and ``answer_review`` (the reviews a paused run waits for, answered), each call made as its
caller on the same path as LangGraph's API (:mod:`framework.server.protocols._base`: the
gate decides), with progress notifications from the run's node updates when the client asked
for them."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any

from mcp import types
from mcp.server.session import ServerSession
from mcp.shared.context import RequestContext
from starlette.exceptions import HTTPException
from starlette.requests import Request

from framework.errors import CadreError
from framework.server._http import Server, refusal
from framework.server._requests import StreamModeName
from framework.server._tables import RunRow
from framework.server._trace_context import taken
from framework.server.protocols._base import (
    Outcome,
    ServedTeam,
    ask,
    caller_of,
    decide,
    events,
    outcome,
    served,
)

__all__ = ["ANSWER_REVIEW", "Context", "call_tool", "list_tools"]

logger = logging.getLogger("cadre.server")

ANSWER_REVIEW = "answer_review"
"""The tool that answers a paused run's reviews."""

_INVALID = re.compile(r"[^A-Za-z0-9._-]")
_UPDATES: tuple[StreamModeName, ...] = ("updates",)

_OUTCOME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "thread_id": {"type": "string"},
        "run_id": {"type": "string"},
        "status": {"enum": ["answered", "paused", "failed", "cancelled"]},
        "answer": {"type": "string", "description": "the cited answer (empty unless answered)"},
        "reviews": {
            "type": "array",
            "description": "the reviews a paused run waits for: {id, value: the typed request}",
            "items": {"type": "object"},
        },
        "error": {"type": "string"},
    },
    "required": ["thread_id", "run_id", "status", "answer"],
}

Context = RequestContext[ServerSession, Any, Request]
"""What the SDK knows of the request a tool call came in (the HTTP request, the session)."""


def _tool_name(team: ServedTeam) -> str:
    """The tool a team is called by: its name, with what a tool name may not hold as ``_``."""
    return _INVALID.sub("_", team.name)[:128]


def _teams() -> dict[str, ServedTeam]:
    return {_tool_name(team): team for team in served()}


async def list_tools() -> list[types.Tool]:
    """A tool per served team, then :data:`ANSWER_REVIEW`."""
    teams = _teams()
    asking = [_team_tool(name, team) for name, team in teams.items()]
    return [*asking, _review_tool(list(teams))]


def _team_tool(name: str, team: ServedTeam) -> types.Tool:
    return types.Tool(
        name=name,
        title=team.name,
        description=(
            f"Ask {team.description} a question; it answers with its sources cited. Give a "
            f"thread_id to go on with a thread. A run that pauses for a human review says so: "
            f"answer it with {ANSWER_REVIEW}."
        ),
        inputSchema={
            "type": "object",
            "properties": {
                "question": {"type": "string", "minLength": 1},
                "thread_id": {"type": "string", "description": "a thread of yours to go on with"},
            },
            "required": ["question"],
            "additionalProperties": False,
        },
        outputSchema=_OUTCOME_SCHEMA,
    )


def _review_tool(teams: list[str]) -> types.Tool:
    return types.Tool(
        name=ANSWER_REVIEW,
        title="answer a review",
        description=(
            "Answer the reviews a paused run waits for, as you (the audit names your token), "
            'and go on with the run: \'approve\', a decision such as {"kind": "edit_plan", '
            '"plan": {...}} or {"kind": "reject_tasks", "task_ids": [...], "reason": "..."}, '
            "or, when several reviews wait, decisions keyed by review id."
        ),
        inputSchema={
            "type": "object",
            "properties": {
                "team": {"type": "string", "enum": teams},
                "thread_id": {"type": "string"},
                "decision": {"anyOf": [{"const": "approve"}, {"type": "object"}]},
            },
            "required": ["team", "thread_id", "decision"],
            "additionalProperties": False,
        },
        outputSchema=_OUTCOME_SCHEMA,
    )


async def call_tool(
    name: str, arguments: Mapping[str, Any], context: Context
) -> types.CallToolResult:
    """Call tool ``name`` as the caller of the request ``context`` answers; a refusal or a
    failed run is a tool error of one line, never a traceback."""
    try:
        return await _called(name, arguments, context)
    except (HTTPException, CadreError) as error:
        return _error(refusal(error)[1])
    except Exception as error:
        logger.error("an MCP tool call failed", exc_info=error)
        return _error("the server failed to answer; see its log")


async def _called(
    name: str, arguments: Mapping[str, Any], context: Context
) -> types.CallToolResult:
    if context.request is None:  # a call that came in by no HTTP request has no caller
        raise HTTPException(401, "a valid API token is needed: call over HTTP with one")
    server, caller = caller_of(context.request.scope)
    teams = _teams()
    # the caller's trace as MCP carries it (params._meta, SEP-414), over the HTTP headers'
    meta = context.meta.model_extra if context.meta is not None else None
    with taken(meta):
        if name == ANSWER_REVIEW:
            team = _team(teams, str(arguments["team"]))
            thread_id = str(arguments["thread_id"])
            decision = arguments["decision"]
            row = await decide(server, caller, team, thread_id, decision, modes=_UPDATES)
        else:
            team = _team(teams, name)
            question = str(arguments["question"])
            asked = arguments.get("thread_id")
            thread = None if asked is None else str(asked)
            row = await ask(server, caller, team, question, thread_id=thread, modes=_UPDATES)
    await _tell_progress(context, server, team, row)
    return _result(await outcome(server, row), _tool_name(team))


def _team(teams: Mapping[str, ServedTeam], name: str) -> ServedTeam:
    team = teams.get(name)
    if team is None:
        raise HTTPException(404, f"no team is served as {name!r}: list the tools")
    return team


async def _tell_progress(context: Context, server: Server, team: ServedTeam, row: RunRow) -> None:
    """One progress notification per node the run finishes, until it ends, when the client
    sent a progress token (else nothing)."""
    token = context.meta.progressToken if context.meta is not None else None
    if token is None:
        return
    done = 0
    async for mode, data in events(server, row):
        if mode != "updates" or not isinstance(data, Mapping):
            continue
        for node in data:
            done += 1
            await context.session.send_progress_notification(
                token, done, message=_step(team, node), related_request_id=str(context.request_id)
            )


def _step(team: ServedTeam, node: str) -> str:
    if node == "__interrupt__":
        return f"{team.name}: paused for review"
    return f"{team.name}: {node} done"


def _result(ended: Outcome, tool: str) -> types.CallToolResult:
    if ended.status in ("failed", "cancelled", "stopped"):
        return _error(
            f"run {ended.run_id} on thread {ended.thread_id} {ended.status}: {ended.error}"
        )
    text = ended.answer if ended.status == "answered" else _paused(ended, tool)
    return types.CallToolResult(
        content=[
            types.TextContent(type="text", text=text),
            types.TextContent(type="text", text=f"thread_id: {ended.thread_id}"),
        ],
        structuredContent=ended.to_json(),
    )


def _paused(ended: Outcome, tool: str) -> str:
    """What a paused run waits for (each typed request as JSON), and how to answer it."""
    lines = [f"Paused for review on thread {ended.thread_id}: {len(ended.reviews)} waiting."]
    for review in ended.reviews:
        lines += _review_lines(review)
    example = {"team": tool, "thread_id": ended.thread_id, "decision": "approve"}
    lines.append(
        f"Answer with {ANSWER_REVIEW}, e.g. {json.dumps(example)}: the decision is 'approve', "
        'a decision such as {"kind": "edit_plan", "plan": {...}}, or, when several reviews '
        "wait, decisions keyed by review id."
    )
    return "\n".join(lines)


def _review_lines(review: Mapping[str, Any]) -> list[str]:
    """One waiting review: what it is and what it takes, then the typed request as JSON."""
    value = review["value"]
    if not isinstance(value, Mapping) or "kind" not in value:  # an interrupt of another kind
        return [f"- review {review['id']}: {json.dumps(value, ensure_ascii=False)}"]
    where = f" at {value['where']}" if value.get("where") else ""
    allowed = ", ".join(value.get("allowed") or ())
    return [
        f"- {value['kind']} review {review['id']}{where}; decide one of: {allowed}",
        f"  {json.dumps(value, ensure_ascii=False)}",
    ]


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=True)
