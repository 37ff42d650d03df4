"""Threads' time to live and pruning. A thread created or updated with a ``ttl`` is deleted
that many minutes after its last update (a run's end updates it) by a sweep the server runs
every :data:`SWEEP_INTERVAL_S`; ``POST /threads/prune`` deletes threads, or keeps only the
latest checkpoint of each of their namespaces, at once."""

from __future__ import annotations

import asyncio
import logging
import time

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from framework.database import database_gone
from framework.errors import brief
from framework.retention import prune_threads
from framework.server._http import Server, blocking, body_of, caller_of, json_response, server_of
from framework.server._requests import ThreadPruneBody
from framework.server._tables import ThreadRow
from framework.server._thread_ops import erase_thread

__all__ = ["SWEEP_INTERVAL_S", "prune_routes", "sweep", "sweep_forever"]

logger = logging.getLogger("cadre.server")

SWEEP_INTERVAL_S = 5.0
"""How often the server deletes the threads whose time to live has passed."""


def sweep(server: Server) -> list[str]:
    """Delete the threads whose time to live has passed (not one with a run: its end
    updates the thread); their ids."""
    erased = []
    for thread_id in server.tables.expired_threads(time.time()):
        if server.runs.active_run(thread_id) is None:
            erase_thread(server, thread_id)
            erased.append(thread_id)
    return erased


async def sweep_forever(server: Server, interval: float = SWEEP_INTERVAL_S) -> None:
    """:func:`sweep` every ``interval`` seconds until cancelled. A sweep the database's outage
    failed is logged once per outage (and once when it answers again), any other failure each
    time; the next sweep tries again."""
    down_since: float | None = None
    while True:
        await asyncio.sleep(interval)
        try:
            erased = await blocking(sweep, server)
        except Exception as error:
            if not database_gone(error):
                logger.exception("cadre: the sweep of expired threads failed; trying again")
            elif down_since is None:
                down_since = time.monotonic()
                logger.warning(
                    "cadre: the database does not answer (%s); the sweep of expired threads is "
                    "tried again every %g s until it does",
                    brief(error),
                    interval,
                )
            continue
        if down_since is not None:
            logger.warning(
                "cadre: the database %s answers again after %.0f s; expired threads are swept",
                server.tables.db.label,
                time.monotonic() - down_since,
            )
            down_since = None
        if erased:
            logger.info("cadre: deleted %d thread(s) past their time to live", len(erased))


def _pruned(server: Server, rows: list[ThreadRow], strategy: str) -> None:
    for row in rows:
        if strategy == "delete":
            erase_thread(server, row.thread_id)
        elif server.runs.thread_spec(row.thread_id) is not None:  # it has checkpoints
            prune_threads(server.runs.saver, keep_last=1, thread_id=row.thread_id)


async def _prune(request: Request) -> Response:
    """Prune the caller's threads among ``thread_ids`` (others are not counted)."""
    caller = caller_of(request, "delete_thread")
    body = await body_of(request, ThreadPruneBody)
    server = server_of(request)
    rows = [
        row
        for thread_id in dict.fromkeys(body.thread_ids)
        if (row := server.tables.thread(caller.tenant, thread_id)) is not None
    ]
    busy = [row.thread_id for row in rows if server.runs.active_run(row.thread_id) is not None]
    if busy:
        raise HTTPException(
            409, f"thread {busy[0]} is running: cancel its run first (nothing was pruned)"
        )
    await blocking(_pruned, server, rows, body.strategy)
    return json_response({"pruned_count": len(rows)})


def prune_routes() -> list[Route]:
    """Thread pruning."""
    return [Route("/threads/prune", _prune, methods=["POST"])]
