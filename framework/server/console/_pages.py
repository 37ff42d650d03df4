"""The console's pages: sign-in, the inbox of reviews, a thread (with its review forms, history
and trace), and the live progress of a running thread. Every form carries the session's CSRF
token; every value is escaped by the templates."""

from __future__ import annotations

import functools
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from framework.errors import AccessDenied, CadreError, ReviewError, ThreadBusyError
from framework.review.api import thread_config
from framework.review.records import request_place
from framework.runs.gate import Action, Caller, admit
from framework.runs.teams import team_label
from framework.server._http import LOCAL_CALLER, Server, blocking, foreign_origin, server_of
from framework.server._requests import RunBody
from framework.server._tables import ThreadRow
from framework.server._thread_ops import copy_thread, team_of_thread, with_thread_app
from framework.server.console._markdown import markdown_html
from framework.server.console._sessions import COOKIE, Session, Sessions
from framework.server.console._views import STATUSES, thread_status, thread_view, trace_bars

__all__ = ["console_error", "console_routes"]

_HERE = Path(__file__).parent
_TEMPLATES = Environment(
    loader=FileSystemLoader(_HERE / "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
_TEMPLATES.filters["when"] = lambda seconds: datetime.fromtimestamp(seconds, UTC).strftime(
    "%Y-%m-%d %H:%M UTC"
)
_TEMPLATES.filters["markdown"] = markdown_html
_TEMPLATES.filters["place"] = request_place
_FIELD = re.compile(r"\b(plan|tasks|answer|task_ids|reason|response)((?:\.[\w-]+)*): ([^;]+)")
_FILTERS = (*STATUSES, "all")
"""What the inbox filters by: a status of :data:`STATUSES`, or all."""
_RECORDED = {"paused": ("interrupted",), "failed": ("error",)}
"""The statuses a run records on its thread that the inbox's statuses can come from (a thread
recorded otherwise is not read for them)."""


def _sessions(request: Request) -> Sessions:
    sessions: Sessions = request.app.state.sessions
    return sessions


PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
"""Sent with every console page: never framed, scripts only from the console, nothing cached."""


def _page(name: str, code: int = 200, **context: Any) -> HTMLResponse:
    body = _TEMPLATES.get_template(name).render(**context)
    return HTMLResponse(body, status_code=code, headers=PAGE_HEADERS)


def _refuse_other_origins(request: Request) -> None:
    """Refuse a form another site's page submitted (login CSRF included): a browser names the
    page's origin in ``Origin`` on every POST, and it must be this server's."""
    headers = request.headers
    if foreign_origin(headers.get("origin"), request.url.scheme, headers.get("host", "")):
        raise HTTPException(403, "this form was sent from another site: use the console itself")


def _session(request: Request) -> Session | None:
    """The request's live session (a revoked token ends it); ``--no-auth`` signs in as local."""
    server = server_of(request)
    sessions = _sessions(request)
    session = sessions.get(request.cookies.get(COOKIE))
    revoked = (
        session is not None
        and server.tokens is not None
        and (session.token is None or server.tokens.verify(session.token) is None)
    )
    if revoked and session is not None:
        sessions.close(session.session_id)
        return None
    return session


def _signed_in(request: Request, action: Action | None = "read") -> Session:
    """The request's session, its caller admitted by the gate to do ``action`` (None: any
    signed-in caller, to sign out)."""
    session = _session(request)
    if session is None:
        raise HTTPException(303, "sign in first")
    if action is not None:
        admit(session.caller, action)
    return session


async def _checked_form(request: Request, action: Action | None) -> tuple[Session, Any]:
    _refuse_other_origins(request)
    session = _signed_in(request, action)
    form = await request.form()
    if not session.checks(str(form.get("csrf") or "")):
        raise HTTPException(403, "the form's CSRF token is missing or stale: reload the page")
    return session, form


def _cookie(response: Response, request: Request, session: Session) -> Response:
    response.set_cookie(
        COOKIE,
        session.session_id,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/console",
        max_age=86_400,
    )
    return response


# -- sign-in ----------------------------------------------------------------------------------


async def _login_form(request: Request) -> Response:
    server = server_of(request)
    if server.tokens is None:  # --no-auth: everyone on this machine is local
        session = _sessions(request).open(LOCAL_CALLER, None)
        return _cookie(RedirectResponse("/console", 303), request, session)
    return _page("login.html", error=None)


async def _login(request: Request) -> Response:
    _refuse_other_origins(request)
    server = server_of(request)
    form = await request.form()
    token_text = str(form.get("token") or "").strip()
    token = server.tokens.verify(token_text) if server.tokens is not None else None
    if token is None:
        return _page("login.html", 401, error="That token is not valid (or was revoked).")
    caller = Caller(tenant=token.tenant, name=token.name, scopes=token.scopes)
    session = _sessions(request).open(caller, token_text)
    return _cookie(RedirectResponse("/console", 303), request, session)


async def _logout(request: Request) -> Response:
    session, _ = await _checked_form(request, None)
    _sessions(request).close(session.session_id)
    response = RedirectResponse("/console/login", 303)
    response.delete_cookie(COOKIE, path="/console")
    return response


# -- inbox ------------------------------------------------------------------------------------


async def _inbox(request: Request) -> Response:
    session = _signed_in(request)
    server = server_of(request)
    status = request.query_params.get("status", "paused")
    team = request.query_params.get("team", "")
    if status not in _FILTERS:
        status = "paused"
    rows = await blocking(_inbox_rows, server, session.caller, status, team)
    teams = sorted({row["team"] for row in rows if row["team"]} | ({team} if team else set()))
    return _page(
        "inbox.html",
        session=session,
        rows=rows,
        status=status,
        team=team,
        teams=teams,
        filters=_FILTERS,
        statuses=STATUSES,
    )


def _inbox_rows(server: Server, caller: Caller, status: str, team: str) -> list[dict[str, Any]]:
    rows = []
    for row in server.tables.threads(caller.tenant):
        running = server.runs.active_run(row.thread_id) is not None
        if status == "running" and not running:
            continue
        if running and status not in ("running", "all"):
            continue
        if not running and row.status not in _RECORDED.get(status, (row.status,)):
            continue
        found_team = _team_shown(server, row)
        if team and found_team != team:
            continue
        view = with_thread_app(
            server, row.thread_id, functools.partial(_read, thread_id=row.thread_id)
        )
        current = thread_status(view, running=running, failed=row.status == "error")
        if status in ("all", current):
            rows.append({"row": row, "status": current, "team": found_team, "view": view})
    return rows


def _team_shown(server: Server, row: ThreadRow) -> str:
    """The team a thread's row shows: its name, never a server path; none for a thread that
    has no run yet and names no assistant (its row must not break the inbox)."""
    try:
        return team_label(team_of_thread(server, row))
    except HTTPException:
        return ""


def _read(app: Any, *, thread_id: str, history: bool = False) -> Any:
    if app is None:
        return thread_view(thread_id, None, [])
    snapshot = app.get_state(thread_config(thread_id), subgraphs=True)
    steps = list(app.get_state_history(thread_config(thread_id), limit=50)) if history else []
    return thread_view(thread_id, snapshot, steps)


# -- a thread ---------------------------------------------------------------------------------


def _owned(request: Request, session: Session) -> ThreadRow:
    row = server_of(request).tables.thread(session.caller.tenant, request.path_params["thread_id"])
    if row is None:
        raise HTTPException(404, "no such thread")
    return row


async def _thread(request: Request) -> Response:
    session = _signed_in(request)
    row = _owned(request, session)
    return await _thread_page(request, session, row)


async def _thread_page(
    request: Request,
    session: Session,
    row: ThreadRow,
    *,
    errors: dict[str, str] | None = None,
    submitted: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    server = server_of(request)
    view = await blocking(
        with_thread_app,
        server,
        row.thread_id,
        functools.partial(_read, thread_id=row.thread_id, history=True),
    )
    bars = await blocking(trace_bars, server.home, row.thread_id)
    running = server.runs.active_run(row.thread_id) is not None
    return _page(
        "thread.html",
        status,
        session=session,
        row=row,
        view=view,
        bars=bars,
        running=running,
        state=thread_status(view, running=running, failed=row.status == "error"),
        statuses=STATUSES,
        errors=errors or {},
        submitted=submitted or {},
        json=lambda value: json.dumps(value, indent=2, ensure_ascii=False),
    )


def _decision(form: Any) -> dict[str, Any]:
    kind = str(form.get("kind") or "")
    decision: dict[str, Any] = {"kind": kind}
    reason = str(form.get("reason") or "").strip()
    if reason:
        decision["reason"] = reason
    if kind == "reject_tasks":
        decision["task_ids"] = [str(t) for t in form.getlist("task_ids")]
    for name in ("plan", "tasks"):
        if kind == f"edit_{name}":
            text = str(form.get(name) or "")
            try:
                decision[name] = json.loads(text)
            except json.JSONDecodeError as error:
                raise ReviewError(
                    f"{name}: not JSON ({error.msg} at line {error.lineno})"
                ) from None
    if kind == "edit_answer":
        decision["answer"] = str(form.get("answer") or "")
    if kind == "respond":
        decision["response"] = str(form.get("response") or "")
    return decision


def _field_errors(message: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, path, text in _FIELD.findall(message):
        found.setdefault(name, "")
        found[name] += f"{name}{path}: {text.strip()} "
    return {name: text.strip() for name, text in found.items()} or {"form": message}


async def _decide(request: Request) -> Response:
    session, form = await _checked_form(request, "decide_review")
    row = _owned(request, session)
    server = server_of(request)
    submitted = {k: str(v) for k, v in form.items() if k != "csrf"}
    request_id = str(form.get("request_id") or "")
    try:
        decision = _decision(form)
        team = await blocking(team_of_thread, server, row)
        body = RunBody(assistant_id=team, command={"resume": {request_id: decision}})
        await server.runs.start(session.caller, row.thread_id, team, body)
    except (ReviewError, ThreadBusyError) as error:
        errors = _field_errors(str(error))
        return await _thread_page(
            request, session, row, errors=errors, submitted=submitted, status=422
        )
    return RedirectResponse(f"/console/threads/{row.thread_id}", 303)


async def _fork(request: Request) -> Response:
    session, form = await _checked_form(request, "fork")
    row = _owned(request, session)
    server = server_of(request)
    checkpoint_id = str(form.get("checkpoint_id") or "")
    try:
        copy = await blocking(copy_thread, server, row, session.caller)
        team = await blocking(team_of_thread, server, row)
        body = RunBody(assistant_id=team, checkpoint_id=checkpoint_id or None)
        await server.runs.start(session.caller, copy.thread_id, team, body)
    except CadreError as error:
        return await _thread_page(request, session, row, errors={"form": str(error)}, status=422)
    return RedirectResponse(f"/console/threads/{copy.thread_id}", 303)


async def _events(request: Request) -> Response:
    session = _signed_in(request)
    row = _owned(request, session)
    server = server_of(request)
    run_id = server.runs.active_run(row.thread_id)
    log = server.runs.log_of(run_id) if run_id else None

    async def stream() -> Any:
        if log is not None:
            async for _, name, data in log.follow():
                if name == "custom":
                    yield f"event: progress\ndata: {json.dumps(data, default=str)}\n\n"
        yield "event: end\ndata: null\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream")


def console_error(error: BaseException) -> Response:
    """A console error as a page: the sign-in page for 303, a short page otherwise."""
    if isinstance(error, HTTPException) and error.status_code == 303:
        return RedirectResponse("/console/login", 303)
    if isinstance(error, HTTPException):
        return _page("error.html", error.status_code, message=error.detail)
    if isinstance(error, AccessDenied):
        return _page("error.html", 403, message=str(error))
    return _page("error.html", 500, message="the server failed to answer; see its log")


def console_routes() -> list[Route | Mount]:
    """The console's routes, under ``/console``."""
    return [
        Route("/console/login", _login_form, methods=["GET"]),
        Route("/console/login", _login, methods=["POST"]),
        Route("/console/logout", _logout, methods=["POST"]),
        Route("/console", _inbox, methods=["GET"]),
        Route("/console/threads/{thread_id}", _thread, methods=["GET"]),
        Route("/console/threads/{thread_id}/decide", _decide, methods=["POST"]),
        Route("/console/threads/{thread_id}/fork", _fork, methods=["POST"]),
        Route("/console/threads/{thread_id}/events", _events, methods=["GET"]),
        Mount("/console/static", StaticFiles(directory=_HERE / "static"), name="static"),
    ]
