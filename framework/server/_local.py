"""What a server started with ``--no-auth`` answers: only its own loopback address, and only
what a web page cannot send it.

Without tokens every caller is the local principal, so a page the browser loaded from anywhere
must not reach the API: a request whose ``Host`` is not a loopback name (DNS rebinding), whose
``Origin`` is not the server's own, or an API request with a body that is not
``application/json`` (a page's ``no-cors`` POST can only send form or text bodies) is refused
with 403 before anything runs.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from framework.server._http import foreign_origin, json_response

__all__ = ["LOOPBACK_NAMES", "LocalOnly"]

LOOPBACK_NAMES = frozenset({"127.0.0.1", "::1", "localhost"})
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class LocalOnly:
    """ASGI middleware for a ``--no-auth`` server (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = _refusal(scope)
            if refusal is not None:
                await json_response({"detail": refusal}, 403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _refusal(scope: Scope) -> str | None:
    headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
    host = headers.get("host", "")
    if urlsplit(f"//{host}").hostname not in LOOPBACK_NAMES:
        return f"this server answers only on its loopback address, not to host {host!r}"
    origin = headers.get("origin")
    if foreign_origin(origin, scope.get("scheme", "http"), host):
        return f"requests from {origin!r} are refused: this server serves only its own pages"
    api = not str(scope.get("path", "")).startswith("/console")
    sends_body = scope.get("method") in _BODY_METHODS and _has_body(headers)
    content_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if api and sends_body and content_type != "application/json":
        return "send the body as application/json"
    return None


def _has_body(headers: dict[str, str]) -> bool:
    length = headers.get("content-length")
    return "transfer-encoding" in headers or (length is not None and length.strip() != "0")
