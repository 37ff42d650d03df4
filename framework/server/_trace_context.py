"""W3C trace context (``traceparent``, ``tracestate``) into ``cadre serve``: every door's
request may carry its caller's trace (as HTTP headers; an MCP call also in its ``_meta``, see
:func:`taken`); a run it starts keeps it with its arguments (so a fleet worker, or the server's
next start, continues the same trace) and executes under it, so its run span is a child of the
caller's span. Remote kinds and MCP tools send theirs out
(:func:`framework.kinds.remote.http_client`, :mod:`framework.tools._mcp_session`): a question
answered by teams on several servers is one trace. A malformed context is ignored: the run
starts a trace of its own."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from opentelemetry import trace
from opentelemetry.propagate import extract
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["TraceContextIn", "incoming", "taken"]

_KEPT = {"traceparent": 55, "tracestate": 512}
"""The keys kept, each with the longest value W3C Trace Context allows."""
_HEADERS = frozenset(name.encode() for name in _KEPT)
_INCOMING: ContextVar[dict[str, str] | None] = ContextVar("cadre_incoming_trace", default=None)


class TraceContextIn:
    """Keeps each request's trace headers for the run it may start (an ASGI middleware)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers") or []
        carrier = _kept(
            (name.decode(), value.decode("latin-1")) for name, value in headers if name in _HEADERS
        )
        token = _INCOMING.set(carrier or None)
        try:
            await self.app(scope, receive, send)
        finally:
            _INCOMING.reset(token)


def incoming() -> dict[str, str] | None:
    """The trace context of the request being answered (None: none, or no request)."""
    return _INCOMING.get()


@contextmanager
def taken(carrier: Mapping[str, Any] | None) -> Iterator[None]:
    """Within the block, the request's trace context is the one ``carrier`` (a message's own,
    such as an MCP call's ``params._meta``) names, over its headers'; a carrier that names no
    parent the propagator can read (none, or malformed) leaves the headers' in place."""
    kept = _kept(carrier.items()) if carrier else {}
    if not _names_parent(kept):
        yield
        return
    token = _INCOMING.set(kept)
    try:
        yield
    finally:
        _INCOMING.reset(token)


def _kept(pairs: Iterable[tuple[str, object]]) -> dict[str, str]:
    """The W3C trace context entries of ``pairs``: text no longer than W3C allows."""
    return {
        name: value
        for name, value in pairs
        if name in _KEPT and isinstance(value, str) and len(value) <= _KEPT[name]
    }


def _names_parent(carrier: Mapping[str, str]) -> bool:
    return (
        bool(carrier) and trace.get_current_span(extract(dict(carrier))).get_span_context().is_valid
    )
