"""W3C trace context (``traceparent``, ``tracestate``) into ``cadre serve``: every door's
request may carry its caller's trace; a run it starts keeps it with its arguments (so a fleet
worker, or the server's next start, continues the same trace) and executes under it, so its run
span is a child of the caller's span. Remote kinds send theirs out
(:func:`framework.kinds.remote.http_client`): a question answered by teams on several servers is
one trace."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from opentelemetry import context as otel_context
from opentelemetry.propagate import extract
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["TraceContextIn", "continued", "incoming"]

_HEADERS = {b"traceparent": 55, b"tracestate": 512}
"""The headers kept, each with the longest value W3C Trace Context allows."""
_INCOMING: ContextVar[dict[str, str] | None] = ContextVar("cadre_incoming_trace", default=None)


class TraceContextIn:
    """Keeps each request's trace headers for the run it may start (an ASGI middleware)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        carrier = {
            name.decode(): value.decode("latin-1")
            for name, value in scope.get("headers") or []
            if name in _HEADERS and len(value) <= _HEADERS[name]
        }
        token = _INCOMING.set(carrier or None)
        try:
            await self.app(scope, receive, send)
        finally:
            _INCOMING.reset(token)


def incoming() -> dict[str, str] | None:
    """The trace headers of the request being answered (None: none, or no request)."""
    return _INCOMING.get()


@contextmanager
def continued(carrier: Mapping[str, str] | None) -> Iterator[None]:
    """Run the block in the trace ``carrier`` names (as it is when none does)."""
    if not carrier:
        yield
        return
    token = otel_context.attach(extract(dict(carrier)))
    try:
        yield
    finally:
        otel_context.detach(token)
