"""A trace taken in from a carrier: a request's headers, a message's ``_meta``, or the
environment a parent process started cadre with (OpenTelemetry's environment variables as
context propagation carriers: ``TRACEPARENT``, ``TRACESTATE``, ``BAGGAGE``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from uuid import UUID

from langchain_core.runnables.config import var_child_runnable_config
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.propagate import extract

from telemetry.callbacks import GenAICallbackHandler

__all__ = [
    "ENVIRONMENT_CARRIER",
    "continued",
    "from_environment",
    "in_tool_call",
    "tool_call_context",
]

ENVIRONMENT_CARRIER = ("TRACEPARENT", "TRACESTATE", "BAGGAGE")
"""The environment variables a parent process names its trace in."""


@contextmanager
def continued(carrier: Mapping[str, str] | None) -> Iterator[None]:
    """Run the block in the trace ``carrier`` names (as it is when none does; a malformed one
    starts a trace of its own)."""
    if not carrier:
        yield
        return
    token = otel_context.attach(extract(dict(carrier)))
    try:
        yield
    finally:
        otel_context.detach(token)


def from_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The trace context ``environ`` carries, as header names (``{}`` without
    ``TRACEPARENT``)."""
    if not environ.get("TRACEPARENT"):
        return {}
    return {name.lower(): environ[name] for name in ENVIRONMENT_CARRIER if environ.get(name)}


def tool_call_context() -> otel_context.Context:
    """The trace context of the tool call this code runs in: its ``execute_tool`` span (which
    callbacks open and never make current), read from the call's callbacks; else the current
    context."""
    callbacks = (var_child_runnable_config.get() or {}).get("callbacks")
    run_id = getattr(callbacks, "parent_run_id", None)
    if isinstance(run_id, UUID):
        for handler in getattr(callbacks, "handlers", None) or []:
            if isinstance(handler, GenAICallbackHandler) and (span := handler.open_span(run_id)):
                return trace.set_span_in_context(span)
    return otel_context.get_current()


@contextmanager
def in_tool_call() -> Iterator[None]:
    """Run the block under the span of the tool call it runs in (see :func:`tool_call_context`),
    so what it sends out (a remote call's ``traceparent``, an MCP call's ``_meta``) and the
    spans it opens are that call's children."""
    token = otel_context.attach(tool_call_context())
    try:
        yield
    finally:
        otel_context.detach(token)
