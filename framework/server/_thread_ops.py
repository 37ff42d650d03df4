"""A thread as the server's doors reach it besides running it: read on the app it ran on, its
team, copied, erased."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from framework.runs.gate import Caller
from framework.runs.launch import LaunchRequest
from framework.server._http import Server
from framework.server._served import team_of
from framework.server._tables import ThreadRow

__all__ = ["App", "copy_thread", "erase_thread", "team_of_thread", "with_thread_app"]

App = CompiledStateGraph[Any, Any, Any, Any]


@contextmanager
def _thread_app(server: Server, thread_id: str) -> Iterator[App | None]:
    """The app the thread ran on, compiled to read it (None: no run wrote it yet)."""
    info = server.runs.thread_spec(thread_id)
    if info is None:
        yield None
        return
    request = LaunchRequest.for_thread(info, server.home, None, read_only=True)
    with server.apps.use(request) as launched:
        yield launched.app


def with_thread_app(server: Server, thread_id: str, work: Callable[[App | None], Any]) -> Any:
    """``work`` done on the thread's app (None before its first run)."""
    with _thread_app(server, thread_id) as app:
        return work(app)


def erase_thread(server: Server, thread_id: str) -> None:
    """Delete a thread: its checkpoints, its rows and runs, what the server keeps of it."""
    with server.runs.saver.hold_thread(thread_id):
        server.runs.saver.delete_threads([thread_id])
    server.tables.delete_thread(thread_id)
    server.runs.forget_thread(thread_id)


def copy_thread(server: Server, row: ThreadRow, caller: Caller) -> ThreadRow:
    """A new thread of the caller's with every checkpoint of ``row`` (resealed under its own
    key) and its metadata."""
    status = row.status if row.status != "busy" else "idle"
    copy = ThreadRow.new(
        str(uuid.uuid4()),
        caller.tenant,
        row.assistant_id,
        status=status,
        metadata=row.metadata,
        ttl_minutes=row.ttl_minutes,
    )
    server.runs.saver.copy_thread(row.thread_id, copy.thread_id)
    server.tables.add_thread(copy)
    return copy


def team_of_thread(server: Server, row: ThreadRow) -> str:
    """The team a thread runs: as its first run recorded, else its assistant's.

    Raises:
        HTTPException: 404 when neither names an installed team.
    """
    info = server.runs.thread_spec(row.thread_id)
    return info.team if info is not None else team_of(row.assistant_id or "")
