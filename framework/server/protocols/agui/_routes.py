"""The AG-UI route: a ``RunAgentInput`` in, the run's events out as Server-Sent Events."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from ag_ui.core import BaseEvent, Message, ResumeEntry, RunAgentInput, TextPart, UserMessage
from ag_ui.encoder import EventEncoder
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route, Router

from framework.errors import CadreError
from framework.server._http import body_of, refusal
from framework.server._requests import StreamModeName
from framework.server.protocols._base import Authenticated, ask, caller_of, decide, served_team
from framework.server.protocols.agui._events import refused_events, run_events

__all__ = ["agui_routes"]

_MODES: tuple[StreamModeName, ...] = ("values", "updates", "messages-tuple")
"""The thread's values after each step (state events), each node's update (its step), the
messages as they are written (the answer's text events)."""


async def _run(request: Request) -> Response:
    """A run of the team the path names, as the ``RunAgentInput`` asks: a question, or the
    answers to the reviews the thread waits for; its events, or the gate's refusal."""
    server, caller = caller_of(request.scope)
    team = served_team(request.path_params["team"])
    run_input = await body_of(request, RunAgentInput)
    thread_id = run_input.thread_id
    if run_input.resume:
        resume = _resume_value(run_input.resume)
        starting = decide(server, caller, team, thread_id, resume, modes=_MODES)
    else:
        question = _question(run_input.messages)
        starting = ask(server, caller, team, question, thread_id=thread_id, modes=_MODES)
    stream: AsyncIterator[BaseEvent]
    try:
        row = await starting
    except (HTTPException, CadreError) as error:
        status, detail = refusal(error)
        stream = refused_events(detail, status)
    else:
        stream = run_events(server, row, run_input.run_id)
    encoder = EventEncoder(accept=request.headers.get("accept") or "")
    return StreamingResponse(
        (encoder.encode(event) async for event in stream),
        media_type=encoder.get_content_type(),
        headers={"Cache-Control": "no-store"},
    )


def _question(messages: Sequence[Message]) -> str:
    """The text of the last user message.

    Raises:
        HTTPException: 422 when there is none, or it holds no text.
    """
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            content = message.content
            parts = [content] if isinstance(content, str) else _texts(content)
            text = "\n".join(parts).strip()
            if not text:
                raise HTTPException(422, "messages: the last user message holds no text to answer")
            return text
    raise HTTPException(422, "messages: no user message to answer (or resume to answer a review)")


def _texts(parts: Sequence[Any]) -> list[str]:
    """The text parts of a multimodal message."""
    return [part.text for part in parts if isinstance(part, TextPart)]


def _resume_value(entries: Sequence[ResumeEntry]) -> dict[str, Any]:
    """The resume entries as decisions keyed by interrupt id.

    Raises:
        HTTPException: 501 for an entry that cancels an interrupt.
    """
    cancelled = [entry.interrupt_id for entry in entries if entry.status == "cancelled"]
    if cancelled:
        raise HTTPException(
            501,
            f"resume: cancelling an interrupt ({', '.join(cancelled)}) is not supported: a cadre "
            "review waits for a decision; resolve it with 'approve' or a decision {'kind': ...}",
        )
    return {entry.interrupt_id: entry.payload for entry in entries}


def agui_routes() -> list[BaseRoute]:
    """``POST /agui/{team}``, authenticated (:class:`~framework.server.protocols.Authenticated`)."""
    routes = Router(routes=[Route("/{team}", _run, methods=["POST"])])
    return [Mount("/agui", app=Authenticated(routes))]
