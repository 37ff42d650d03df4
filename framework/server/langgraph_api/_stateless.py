"""Runs without a thread (``POST /runs``, ``/runs/wait``, ``/runs/stream``), several runs at
once (``POST /runs/batch``) and cancelling several (``POST /runs/cancel``).

A stateless run gets a new thread of the caller's tenant, claimed through the gate as any new
thread is, and deleted when the run ends unless it asked ``on_completion: keep`` (LangGraph's
default for stateless runs is ``delete``). A server stopped meanwhile keeps that thread.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from framework.runs.gate import Caller, admit, run_action
from framework.server._http import (
    Server,
    authenticated,
    blocking,
    body_of,
    caller_of,
    json_response,
    server_of,
)
from framework.server._requests import RunBody
from framework.server._served import team_of
from framework.server._shapes import run_json
from framework.server._tables import UNFINISHED, RunRow, ThreadRow
from framework.server._thread_ops import erase_thread
from framework.server.langgraph_api._run_routes import awaited, final_answer, streamed, where
from framework.server.run_path.owners import add_owned_thread
from framework.server.run_path.start import start_on_thread

__all__ = ["stateless_routes"]

_ENDING: set[asyncio.Task[str]] = set()
"""The stateless runs being waited for, to answer and delete their threads (kept referenced)."""


async def start_stateless(
    server: Server, caller: Caller, body: RunBody
) -> tuple[RunRow, asyncio.Task[str]]:
    """Start ``body`` on a new thread of the caller's; the run and its answer to come (the
    thread deleted once it is read, unless ``on_completion: keep``)."""
    admit(caller, "create_thread")
    admit(caller, run_action(body.command))
    team_of(body.assistant_id)  # an unknown assistant makes no thread
    made = ThreadRow.new(str(uuid.uuid4()), caller.tenant, body.assistant_id)
    await blocking(add_owned_thread, server.tables, server.runs, caller, made)
    try:
        _, row, _ = await start_on_thread(server, caller, made.thread_id, body)
    except BaseException:
        await blocking(erase_thread, server, made.thread_id)
        raise
    answer = asyncio.create_task(_ended(server, row, keep=body.on_completion == "keep"))
    _ENDING.add(answer)
    answer.add_done_callback(_ENDING.discard)
    return row, answer


async def _ended(server: Server, row: RunRow, *, keep: bool) -> str:
    """The run's answer when it ends; then its thread is deleted (unless ``keep``)."""
    try:
        return await final_answer(server, row)
    finally:
        task = asyncio.current_task()
        if not keep and not (task is not None and task.cancelling()):
            await blocking(erase_thread, server, row.thread_id)


async def _started(request: Request) -> tuple[Server, RunRow, RunBody, asyncio.Task[str]]:
    caller = authenticated(request)  # the body is read only for a known caller
    body = await body_of(request, RunBody)
    server = server_of(request)
    row, answer = await start_stateless(server, caller, body)
    return server, row, body, answer


async def _create(request: Request) -> Response:
    _, row, _, _ = await _started(request)
    return json_response(run_json(row), headers=where(row))


async def _wait(request: Request) -> Response:
    _, row, _, answer = await _started(request)
    return awaited(answer, where(row, "/join"))


async def _stream(request: Request) -> Response:
    server, row, body, _ = await _started(request)
    return await streamed(server, row, body)


class _Batch(RootModel[list[dict[str, Any]]]):
    root: list[dict[str, Any]] = Field(min_length=1, max_length=100)


async def _batch(request: Request) -> Response:
    """Start several runs (each stateless, or on its ``thread_id``), every one checked first."""
    caller = authenticated(request)
    items = (await body_of(request, _Batch)).root
    bodies = [(item.get("thread_id"), _run_body(item, index)) for index, item in enumerate(items)]
    server = server_of(request)
    rows = []
    for thread_id, body in bodies:
        if thread_id is None:
            row, _ = await start_stateless(server, caller, body)
        else:
            _, row, _ = await start_on_thread(server, caller, str(thread_id), body)
        rows.append(run_json(row))
    return json_response(rows)


def _run_body(item: dict[str, Any], index: int) -> RunBody:
    try:
        return RunBody.model_validate({k: v for k, v in item.items() if k != "thread_id"})
    except ValidationError as error:
        detail = "; ".join(
            f"{index}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        raise HTTPException(422, detail) from None


class _CancelBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    thread_id: str | None = None
    run_ids: list[str] | None = None
    status: Literal["pending", "running", "all"] | None = None


async def _cancel_many(request: Request) -> Response:
    """Cancel the caller's runs named (``thread_id`` and ``run_ids``) or of a ``status``."""
    caller = caller_of(request, "cancel_run")
    body = await body_of(request, _CancelBody)
    if request.query_params.get("action", "interrupt") not in ("interrupt", "rollback"):
        raise HTTPException(422, "action: interrupt or rollback")
    server = server_of(request)
    if body.status is not None:
        statuses = UNFINISHED if body.status == "all" else (body.status,)
        rows = [
            row
            for row in await blocking(server.tables.unfinished_runs)
            if row.tenant == caller.tenant and row.status in statuses
        ]
    elif body.run_ids:
        rows = [_named_run(server, caller, body.thread_id, run_id) for run_id in body.run_ids]
    else:
        raise HTTPException(422, "name the runs (thread_id and run_ids) or a status")
    for row in rows:
        server.runs.cancel(row.run_id)
    return Response(status_code=204)


def _named_run(server: Server, caller: Caller, thread_id: str | None, run_id: str) -> RunRow:
    row = server.tables.run(caller.tenant, run_id)
    if row is None or thread_id not in (None, row.thread_id):
        raise HTTPException(404, f"run {run_id} not found")
    return row


def stateless_routes() -> list[Route]:
    """The runs endpoints without a thread."""
    return [
        Route("/runs", _create, methods=["POST"]),
        Route("/runs/wait", _wait, methods=["POST"]),
        Route("/runs/stream", _stream, methods=["POST"]),
        Route("/runs/batch", _batch, methods=["POST"]),
        Route("/runs/cancel", _cancel_many, methods=["POST"]),
    ]
