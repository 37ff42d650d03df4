"""Searching and counting a tenant's threads: by ids, status, metadata and state values
(each matched by containment, as LangGraph's server matches them), sorted, paged, with only
the fields ``select`` names and the values ``extract`` points at."""

from __future__ import annotations

import re
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from framework.server._http import Server, blocking, body_of, caller_of, json_response, server_of
from framework.server._requests import ThreadCountBody, ThreadSearchBody
from framework.server._tables import ThreadRow
from framework.server.langgraph_api._threads import thread_answer, thread_status

__all__ = ["contains", "extracted", "thread_search_routes"]

_PATH = re.compile(r"[^.\[\]]+(?:\.[^.\[\]]+|\[-?\d+\])*")
_STEP = re.compile(r"([^.\[\]]+)|\[(-?\d+)\]")


def contains(have: Any, want: Any) -> bool:
    """Whether ``have`` holds ``want``: every key of a mapping with a value it holds, every
    item of a list in some item, any other value equal (PostgreSQL's ``@>``)."""
    if isinstance(want, dict):
        return isinstance(have, dict) and all(
            key in have and contains(have[key], value) for key, value in want.items()
        )
    if isinstance(want, list):
        return isinstance(have, list) and all(
            any(contains(item, wanted) for item in have) for wanted in want
        )
    return bool(have == want)


def _steps(path: str) -> list[str | int]:
    """A path's keys and indices (``values.tasks[-1].id``).

    Raises:
        HTTPException: 422 for a path that is not dotted keys and bracketed indices.
    """
    if _PATH.fullmatch(path) is None:
        raise HTTPException(
            422, f"extract: {path!r} is not a path such as values.plan.tasks[0].description"
        )
    return [key if key else int(index) for key, index in _STEP.findall(path)]


def extracted(thread: dict[str, Any], paths: dict[str, str]) -> dict[str, Any]:
    """The value at each path of a thread (None where there is none)."""
    return {name: _at(thread, _steps(path)) for name, path in paths.items()}


def _at(value: Any, steps: list[str | int]) -> Any:
    for step in steps:
        if isinstance(step, str) and isinstance(value, dict):
            value = value.get(step)
        elif isinstance(step, int) and isinstance(value, list) and -len(value) <= step < len(value):
            value = value[step]
        else:
            return None
    return value


def _matching(
    server: Server, tenant: str, body: ThreadCountBody
) -> list[tuple[ThreadRow, dict[str, Any] | None]]:
    """The tenant's threads the filters match, the most recently updated first; each with
    the thread as the API shows it where the ``values`` filter had to read it."""
    rows = [
        row
        for row in server.tables.threads(tenant)
        if (body.ids is None or row.thread_id in body.ids)
        and (body.status is None or thread_status(server, row) == body.status)
        and contains(row.metadata, body.metadata or {})
    ]
    if body.values is None:
        return [(row, None) for row in rows]
    read = [(row, thread_answer(server, row)) for row in rows]
    return [(row, thread) for row, thread in read if contains(thread["values"], body.values)]


def _searched(server: Server, tenant: str, body: ThreadSearchBody) -> list[dict[str, Any]]:
    for path in (body.extract or {}).values():
        _steps(path)  # refuse a bad path before reading anything
    found = _matching(server, tenant, body)
    if body.sort_by is not None:
        field = "updated_at" if body.sort_by == "state_updated_at" else body.sort_by
        found.sort(key=lambda pair: _sort_key(server, pair[0], field))
        if body.sort_order != "asc":
            found.reverse()
    page = found[body.offset : body.offset + body.limit]
    threads = [thread or thread_answer(server, row) for row, thread in page]
    for thread in threads:
        if body.extract:
            thread["extracted"] = extracted(thread, body.extract)
    if not body.select:
        return threads
    kept = [*body.select, *(["extracted"] if body.extract else [])]
    return [{name: thread.get(name, {}) for name in kept} for thread in threads]


def _sort_key(server: Server, row: ThreadRow, field: str) -> Any:
    return thread_status(server, row) if field == "status" else getattr(row, field)


async def _search(request: Request) -> Response:
    caller = caller_of(request, "read")
    body = await body_of(request, ThreadSearchBody)
    return json_response(await blocking(_searched, server_of(request), caller.tenant, body))


async def _count(request: Request) -> Response:
    caller = caller_of(request, "read")
    body = await body_of(request, ThreadCountBody)
    found = await blocking(_matching, server_of(request), caller.tenant, body)
    return json_response(len(found))


def thread_search_routes() -> list[Route]:
    """Thread search and count."""
    return [
        Route("/threads/search", _search, methods=["POST"]),
        Route("/threads/count", _count, methods=["POST"]),
    ]
