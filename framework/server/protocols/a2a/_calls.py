"""What each A2A call carries through a2a-sdk's call context: the server and the caller the
:class:`~framework.server.protocols.Authenticated` authenticated (:class:`AuthenticatedCalls`),
and the run the call started (for the executor that follows it); and the gate's refusals as A2A
errors (:func:`gate_errors`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from a2a.server.context import ServerCallContext
from a2a.server.routes import DefaultServerCallContextBuilder
from a2a.utils.constants import VERSION_HEADER
from a2a.utils.errors import (
    A2AError,
    InvalidParamsError,
    InvalidRequestError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from starlette.exceptions import HTTPException
from starlette.requests import Request

from framework.errors import (
    CadreError,
)
from framework.runs.gate import Caller
from framework.server._http import Server, refusal
from framework.server._tables import RunRow
from framework.server.protocols._base import caller_of

__all__ = ["AuthenticatedCalls", "caller_in", "gate_errors", "keep_run", "run_in"]

_CREDENTIALS = ("x-api-key", "authorization")
_VERSION = VERSION_HEADER.lower()
"""The version header as the context's copy of the headers names it (lower case)."""
_CALLER = "cadre.caller"
_RUN = "cadre.run"

_BY_STATUS: dict[int, type[A2AError]] = {
    403: UnsupportedOperationError,
    404: TaskNotFoundError,
    409: UnsupportedOperationError,
    422: InvalidParamsError,
}
"""The A2A error of each status the API answers a refusal with (a scope refused, 403, is an
operation the caller may not do; another tenant's thread, 404, a task not found); any other
is an invalid request."""


@contextlib.contextmanager
def gate_errors() -> Iterator[None]:
    """Turn the gate's refusals and cadre's errors into A2A errors, each one line."""
    try:
        yield
    except (HTTPException, CadreError) as error:
        status, detail = refusal(error)
        raise _BY_STATUS.get(status, InvalidRequestError)(detail) from None


class AuthenticatedCalls(DefaultServerCallContextBuilder):
    """Each JSON-RPC call's context as a2a-sdk builds it, with the server and the caller the
    Authenticated authenticated; its copy of the request's headers leaves out the token, and
    takes the ``A2A-Version`` request parameter for the header when no header gives one (A2A
    1.0 lets a client send either; the SDK checks the version from the headers)."""

    def build(self, request: Request) -> ServerCallContext:
        """The context of ``request``'s call."""
        context = super().build(request)
        headers = context.state["headers"]
        for name in _CREDENTIALS:
            headers.pop(name, None)
        version = request.query_params.get(VERSION_HEADER)
        if version and not headers.get(_VERSION):
            headers[_VERSION] = version
        context.state[_CALLER] = caller_of(request.scope)
        return context


def caller_in(context: ServerCallContext) -> tuple[Server, Caller]:
    """The server and the caller of a call (see :class:`AuthenticatedCalls`)."""
    found: tuple[Server, Caller] = context.state[_CALLER]
    return found


def keep_run(context: ServerCallContext, row: RunRow) -> None:
    """Remember the run a call started, for the executor that follows it."""
    context.state[_RUN] = row


def run_in(context: ServerCallContext) -> RunRow:
    """The run the call started (see :func:`keep_run`)."""
    row: RunRow = context.state[_RUN]
    return row
