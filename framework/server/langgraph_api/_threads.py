"""Threads: create, get, update, delete, copy; their state (at the head or a checkpoint),
state updates, and history. Every thread belongs to its creator's tenant: another tenant's id
answers 404. Searching and counting are in ``_thread_search``; time to live and pruning in
``_expiry``."""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.constants import END
from langgraph.types import StateSnapshot
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from framework.review.api import pending, resolve, thread_config
from framework.runs.gate import Caller, checked_update
from framework.runs.runner import hold_thread
from framework.server._graph_ids import with_assistant
from framework.server._http import (
    Server,
    blocking,
    body_of,
    caller_of,
    json_response,
    owned_thread,
    server_of,
)
from framework.server._requests import (
    HistoryBody,
    StateBody,
    StateUpdateBody,
    ThreadBody,
    ThreadUpdateBody,
    checked_state_fields,
)
from framework.server._shapes import state_json, thread_json
from framework.server._tables import ThreadRow
from framework.server._thread_ops import App, copy_thread, erase_thread, with_thread_app
from framework.server.run_path.owners import add_owned_thread

__all__ = ["select_state", "thread_answer", "thread_routes", "thread_status"]


def _snapshot(server: Server, thread_id: str) -> StateSnapshot | None:
    def read(app: App | None) -> StateSnapshot | None:
        return None if app is None else app.get_state(thread_config(thread_id), subgraphs=True)

    found: StateSnapshot | None = with_thread_app(server, thread_id, read)
    return found


def thread_status(server: Server, row: ThreadRow) -> str:
    """The thread's status: ``busy`` while a run of it executes or waits its turn."""
    return "busy" if server.runs.active_run(row.thread_id) is not None else row.status


def thread_answer(server: Server, row: ThreadRow) -> dict[str, Any]:
    """The ``Thread`` the API answers: its row, latest values and open interrupts."""
    return thread_json(row, _snapshot(server, row.thread_id), thread_status(server, row))


# -- threads --------------------------------------------------------------------------------


async def _create(request: Request) -> Response:
    caller = caller_of(request, "create_thread")
    body = await body_of(request, ThreadBody)
    server = server_of(request)
    thread_id = body.thread_id or str(uuid.uuid4())
    metadata = with_assistant(body.metadata or {})
    ttl = body.ttl.ttl if body.ttl is not None else None
    row = ThreadRow.new(
        thread_id, caller.tenant, metadata.get("graph_id"), metadata=metadata, ttl_minutes=ttl
    )
    if not await blocking(
        add_owned_thread, server.tables, server.runs, caller, row
    ):  # the caller's own already
        existing = server.tables.thread(caller.tenant, thread_id)
        if existing is None or body.if_exists != "do_nothing":
            raise HTTPException(409, f"thread {thread_id} exists already: choose another id")
        row = existing
    return json_response(await blocking(thread_answer, server, row))


async def _get(request: Request) -> Response:
    caller = caller_of(request, "read")
    server = server_of(request)
    row = owned_thread(server, caller, request.path_params["thread_id"])
    return json_response(await blocking(thread_answer, server, row))


async def _update(request: Request) -> Response:
    """Merge metadata into the thread's (and set its time to live)."""
    caller = caller_of(request, "update_thread")
    body = await body_of(request, ThreadUpdateBody)
    server = server_of(request)
    row = owned_thread(server, caller, request.path_params["thread_id"])
    ttl = body.ttl.ttl if body.ttl is not None else None
    await blocking(
        lambda: server.tables.update_thread(row.thread_id, metadata=body.metadata, ttl_minutes=ttl)
    )
    if request.headers.get("prefer") == "return=minimal":
        return Response(status_code=204)
    updated = owned_thread(server, caller, row.thread_id)
    return json_response(await blocking(thread_answer, server, updated))


async def _delete(request: Request) -> Response:
    caller = caller_of(request, "delete_thread")
    server = server_of(request)
    row = owned_thread(server, caller, request.path_params["thread_id"])
    if server.runs.active_run(row.thread_id) is not None:
        raise HTTPException(409, f"thread {row.thread_id} is running: cancel its run first")
    await blocking(erase_thread, server, row.thread_id)
    return Response(status_code=204)


async def _copy(request: Request) -> Response:
    caller = caller_of(request, "copy_thread")
    server = server_of(request)
    row = owned_thread(server, caller, request.path_params["thread_id"])
    copy = await blocking(copy_thread, server, row, caller)
    return json_response(await blocking(thread_answer, server, copy))


# -- state ----------------------------------------------------------------------------------


def _state_at(server: Server, thread_id: str, config: RunnableConfig, subgraphs: bool) -> Any:
    def read(app: App | None) -> dict[str, Any]:
        if app is None:
            return _empty_state(thread_id)
        snapshot = app.get_state(config, subgraphs=subgraphs)
        if snapshot.created_at is None and config["configurable"].get("checkpoint_id"):
            raise HTTPException(404, f"checkpoint of thread {thread_id} not found")
        return state_json(snapshot)

    return with_thread_app(server, thread_id, read)


def _empty_state(thread_id: str) -> dict[str, Any]:
    return {
        "values": {},
        "next": [],
        "checkpoint": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": None},
        "metadata": {},
        "created_at": None,
        "parent_checkpoint": None,
        "tasks": [],
        "interrupts": [],
    }


def _config(thread_id: str, checkpoint: dict[str, Any] | None) -> RunnableConfig:
    config = thread_config(thread_id)
    for key in ("checkpoint_id", "checkpoint_ns"):
        if checkpoint and checkpoint.get(key):
            config["configurable"][key] = checkpoint[key]
    return config


async def _state(request: Request) -> Response:
    caller = caller_of(request, "read")
    server = server_of(request)
    row = owned_thread(server, caller, request.path_params["thread_id"])
    subgraphs = request.query_params.get("subgraphs", "false") == "true"
    checkpoint_id = request.path_params.get("checkpoint_id")
    select = _query_select(request)
    config = _config(row.thread_id, {"checkpoint_id": checkpoint_id})
    state = await blocking(_state_at, server, row.thread_id, config, subgraphs)
    return json_response(select_state(state, select))


def _query_select(request: Request) -> list[str] | None:
    """The state fields a ``GET`` asks for (``select``, repeated).

    Raises:
        HTTPException: 422 for a field a state does not have.
    """
    try:
        return checked_state_fields(request.query_params.getlist("select"))
    except ValueError as error:
        raise HTTPException(422, f"select: {error}") from None


def select_state(state: dict[str, Any], select: list[str] | None) -> dict[str, Any]:
    """Only the fields ``select`` names of a thread state (``values.KEY``: that key of its
    values); all without it."""
    if not select:
        return state
    chosen = {name: state[name] for name in select if name in state}
    keys = [name.removeprefix("values.") for name in select if name.startswith("values.")]
    if keys and "values" not in chosen:
        values = state.get("values") or {}
        chosen["values"] = {key: values[key] for key in keys if key in values}
    return chosen


async def _state_at_checkpoint(request: Request) -> Response:
    caller = caller_of(request, "read")
    server = server_of(request)
    row = owned_thread(server, caller, request.path_params["thread_id"])
    body = await body_of(request, StateBody)
    config = _config(row.thread_id, body.checkpoint)
    state = await blocking(_state_at, server, row.thread_id, config, body.subgraphs)
    return json_response(select_state(state, body.select))


async def _update_state(request: Request) -> Response:
    caller = caller_of(request, "update_state")
    server = server_of(request)
    row = owned_thread(server, caller, request.path_params["thread_id"])
    body = await body_of(request, StateUpdateBody)
    if server.runs.active_run(row.thread_id) is not None:
        raise HTTPException(409, f"thread {row.thread_id} is running: wait for its run")
    checkpoint = body.checkpoint or (
        {"checkpoint_id": body.checkpoint_id} if body.checkpoint_id else None
    )
    config = _config(row.thread_id, checkpoint)
    updated, resolved = await blocking(_apply_update, server, row.thread_id, config, body, caller)
    server.tables.update_thread(row.thread_id, status="idle" if resolved else None)
    return json_response({"checkpoint": updated})


def _apply_update(
    server: Server, thread_id: str, config: RunnableConfig, body: StateUpdateBody, caller: Caller
) -> tuple[dict[str, Any], bool]:
    """The update applied: the checkpoint it wrote, and whether it resolved pending reviews
    (an update as ``__end__`` with no values: Agent Inbox's and Agent Chat UI's "Mark as
    resolved", each review rejected by the caller, in the audit)."""

    def apply(app: App | None) -> tuple[dict[str, Any], bool]:
        if app is None:
            raise HTTPException(422, f"thread {thread_id} has no state yet: start a run first")
        values = None
        waiting = len(pending(app, thread_id))
        if waiting and body.values is None and body.as_node == END:  # "Mark as resolved"
            with hold_thread(app, thread_id):
                resolve(app, thread_id, caller.name)
            return _checkpoint_of(app.get_state(thread_config(thread_id)).config, thread_id), True
        if body.values is not None or waiting:  # no values (as_node only) skips no review
            values = checked_update(
                body.values, app.channels, app.builder.state_schema, pending=waiting
            )
        with hold_thread(app, thread_id):
            done = app.update_state(config, values, as_node=body.as_node)
        return _checkpoint_of(done, thread_id), False

    result: tuple[dict[str, Any], bool] = with_thread_app(server, thread_id, apply)
    return result


def _checkpoint_of(config: RunnableConfig, thread_id: str) -> dict[str, Any]:
    """The checkpoint an update wrote, as the API names it."""
    configurable = config.get("configurable") or {}
    return {
        "thread_id": thread_id,
        "checkpoint_ns": configurable.get("checkpoint_ns", ""),
        "checkpoint_id": configurable.get("checkpoint_id"),
        "checkpoint_map": configurable.get("checkpoint_map"),
    }


async def _history(request: Request) -> Response:
    caller = caller_of(request, "read")
    server = server_of(request)
    row = owned_thread(server, caller, request.path_params["thread_id"])
    body = await body_of(request, HistoryBody)
    return json_response(await blocking(_history_of, server, row.thread_id, body))


def _history_of(server: Server, thread_id: str, body: HistoryBody) -> list[dict[str, Any]]:
    before = body.before if isinstance(body.before, dict) else {"checkpoint_id": body.before}

    def read(app: App | None) -> list[dict[str, Any]]:
        if app is None:
            return []
        snapshots = app.get_state_history(
            _config(thread_id, body.checkpoint),
            filter=body.metadata,
            before=_config(thread_id, before) if body.before else None,
            limit=body.limit,
        )
        return [select_state(state_json(snapshot), body.select) for snapshot in snapshots]

    found: list[dict[str, Any]] = with_thread_app(server, thread_id, read)
    return found


def thread_routes() -> list[Route]:
    """The threads endpoints."""
    return [
        Route("/threads", _create, methods=["POST"]),
        Route("/threads/{thread_id}", _get, methods=["GET"]),
        Route("/threads/{thread_id}", _update, methods=["PATCH"]),
        Route("/threads/{thread_id}", _delete, methods=["DELETE"]),
        Route("/threads/{thread_id}/copy", _copy, methods=["POST"]),
        Route("/threads/{thread_id}/state", _state, methods=["GET"]),
        Route("/threads/{thread_id}/state", _update_state, methods=["POST"]),
        Route("/threads/{thread_id}/state/checkpoint", _state_at_checkpoint, methods=["POST"]),
        Route("/threads/{thread_id}/state/{checkpoint_id}", _state, methods=["GET"]),
        Route("/threads/{thread_id}/history", _history, methods=["POST"]),
    ]
