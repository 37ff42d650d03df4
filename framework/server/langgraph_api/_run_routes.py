"""Runs on a thread: create, wait, stream (Server-Sent Events), join, reattach, cancel, list.

A run goes on when its client disconnects (unless it asked ``on_disconnect: cancel``);
``join`` and ``GET .../stream`` (from ``Last-Event-ID``) reattach to it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from framework.runs.gate import Action
from framework.server._http import (
    Server,
    authenticated,
    blocking,
    body_of,
    caller_of,
    json_response,
    owned_thread,
    server_of,
)
from framework.server._requests import RunBody
from framework.server._shapes import run_json
from framework.server._tables import RunRow
from framework.server.run_path.outcome import final_values, run_error
from framework.server.run_path.run_log import RunLog
from framework.server.run_path.start import start_on_thread
from framework.server.run_path.stream_modes import event_mode

__all__ = ["awaited", "final_answer", "run_routes", "streamed", "where"]

_KEEPALIVE_S = 10.0
"""How often a waiting ``wait``/``join`` sends a blank line (clients time out reads at 300 s)."""


async def _started(request: Request) -> tuple[Server, RunRow, RunBody]:
    """The run a request asks for, recorded and started (the thread made on demand)."""
    caller = authenticated(request)  # the body is read only for a known caller
    body = await body_of(request, RunBody)
    server = server_of(request)
    return await start_on_thread(server, caller, request.path_params["thread_id"], body)


def where(row: RunRow, tail: str = "") -> dict[str, str]:
    """The headers naming a run, and where a client reattaches (``Location``, with ``tail``)."""
    base = f"/threads/{row.thread_id}/runs/{row.run_id}"
    headers = {"Content-Location": base}
    if tail:
        headers["Location"] = base + tail
    return headers


async def _create(request: Request) -> Response:
    _, row, _ = await _started(request)
    return json_response(run_json(row), headers=where(row))


async def _wait(request: Request) -> Response:
    server, row, _ = await _started(request)
    return awaited(asyncio.ensure_future(final_answer(server, row)), where(row, "/join"))


async def _stream(request: Request) -> Response:
    server, row, body = await _started(request)
    return await streamed(server, row, body)


async def streamed(server: Server, row: RunRow, body: RunBody) -> Response:
    """The events of a run just started, in the stream modes ``body`` asked for."""
    log = server.runs.log_of(row.run_id) or await _replayed(server, row)
    cancel = body.on_disconnect == "cancel"
    events = _sse(log, set(body.modes()), -1, server if cancel else None, row)
    return _event_stream(events, where(row, "/stream"))


def _event_stream(events: AsyncIterator[str], headers: dict[str, str]) -> Response:
    return StreamingResponse(
        events,
        media_type="text/event-stream",
        headers={**headers, "Cache-Control": "no-store"},
    )


async def _sse(
    log: RunLog, modes: set[str], after: int, canceller: Server | None, row: RunRow
) -> AsyncIterator[str]:
    """The log's events after ``after`` as SSE, those of ``modes`` (and metadata, errors),
    then ``end``; a client that goes away cancels the run only when it asked so."""
    finished = False
    try:
        async for index, name, data in log.follow(after):
            if event_mode(name) in modes or name in ("metadata", "error"):
                yield _frame(name, data, log.event_id(index))
        finished = True
        yield _frame("end", None, None)
    finally:
        if not finished and canceller is not None:
            canceller.runs.cancel(row.run_id)


def _frame(name: str, data: Any, event_id: str | None) -> str:
    lines = [f"event: {name}", f"data: {json.dumps(data, ensure_ascii=False, default=str)}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    return "\n".join(lines) + "\n\n"


def _owned_run(request: Request, action: Action = "read") -> tuple[Server, RunRow]:
    caller = caller_of(request, action)
    server = server_of(request)
    thread = owned_thread(server, caller, request.path_params["thread_id"])
    row = server.tables.run(caller.tenant, request.path_params["run_id"])
    if row is None or row.thread_id != thread.thread_id:
        raise HTTPException(404, f"run {request.path_params['run_id']} not found")
    return server, row


async def _get(request: Request) -> Response:
    _, row = _owned_run(request)
    return json_response(run_json(row))


async def _list(request: Request) -> Response:
    caller = caller_of(request, "read")
    server = server_of(request)
    thread = owned_thread(server, caller, request.path_params["thread_id"])
    status = request.query_params.get("status")
    limit = _count(request, "limit", 10)
    offset = _count(request, "offset", 0)
    rows = [r for r in server.tables.runs(thread.thread_id) if status in (None, r.status)]
    return json_response([run_json(r) for r in rows[offset : offset + limit]])


def _count(request: Request, name: str, default: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isdigit():
        raise HTTPException(422, f"{name}: a whole number, got {text!r}")
    return int(text)


async def _delete(request: Request) -> Response:
    server, row = _owned_run(request, "cancel_run")
    if server.runs.active_run(row.thread_id) == row.run_id:
        raise HTTPException(409, f"run {row.run_id} is running: cancel it first")
    server.tables.delete_run(row.run_id)
    return Response(status_code=204)


async def _join(request: Request) -> Response:
    server, row = _owned_run(request)
    return awaited(asyncio.ensure_future(final_answer(server, row)), {})


async def _join_stream(request: Request) -> Response:
    server, row = _owned_run(request)
    asked = [mode for mode in request.query_params.getlist("stream_mode") if mode]
    modes = set(asked or _modes_of(row))
    cancel = request.query_params.get("cancel_on_disconnect") == "true"
    log = server.runs.log_of(row.run_id)
    if log is None:  # a run of an earlier server process: its final values only
        log = await _replayed(server, row)
    after = log.position(request.headers.get("last-event-id"))
    return _event_stream(_sse(log, modes, after, server if cancel else None, row), {})


def _modes_of(row: RunRow) -> list[str]:
    mode = row.arguments.get("stream_mode") or "values"
    return [mode] if isinstance(mode, str) else list(mode)


async def _replayed(server: Server, row: RunRow) -> RunLog:
    log = RunLog(asyncio.get_running_loop())
    log.add("metadata", {"run_id": row.run_id, "attempt": 1})
    log.add("values", await blocking(final_values, server, row))
    log.finish()
    return log


async def _cancel(request: Request) -> Response:
    server, row = _owned_run(request, "cancel_run")
    action = request.query_params.get("action", "interrupt")
    if action not in ("interrupt", "rollback"):
        raise HTTPException(422, f"action: interrupt or rollback, got {action!r}")
    server.runs.cancel(row.run_id)
    if request.query_params.get("wait") in ("1", "true"):
        log = server.runs.log_of(row.run_id)
        if log is not None:
            await log.ended()
        return Response(status_code=204)
    return Response(status_code=202)


def awaited(answer: asyncio.Future[str], headers: dict[str, str]) -> Response:
    """``answer`` (a run's :func:`final_answer`) when it comes, blank lines meanwhile (a read
    timeout would cut a long wait). A client that goes away leaves it be."""

    async def body() -> AsyncIterator[str]:
        while not answer.done():
            done, _ = await asyncio.wait({answer}, timeout=_KEEPALIVE_S)
            if not done:
                yield "\n"
        yield answer.result()

    return StreamingResponse(body(), media_type="application/json", headers=headers)


async def final_answer(server: Server, row: RunRow) -> str:
    """What a wait or join answers when the run ends (JSON): the thread's final values, or
    ``__error__`` when it failed."""
    log = server.runs.log_of(row.run_id)
    if log is not None:
        await log.ended()
    current = server.tables.run(row.tenant, row.run_id) or row
    if current.status == "error" or (log is not None and log.unrecorded_error):
        return json.dumps({"__error__": run_error(log)})
    return json.dumps(await blocking(final_values, server, row), ensure_ascii=False, default=str)


def run_routes() -> list[Route]:
    """The runs endpoints."""
    base = "/threads/{thread_id}/runs"
    return [
        Route(base, _create, methods=["POST"]),
        Route(base, _list, methods=["GET"]),
        Route(f"{base}/wait", _wait, methods=["POST"]),
        Route(f"{base}/stream", _stream, methods=["POST"]),
        Route(base + "/{run_id}", _get, methods=["GET"]),
        Route(base + "/{run_id}", _delete, methods=["DELETE"]),
        Route(base + "/{run_id}/join", _join, methods=["GET"]),
        Route(base + "/{run_id}/stream", _join_stream, methods=["GET"]),
        Route(base + "/{run_id}/cancel", _cancel, methods=["POST"]),
    ]
