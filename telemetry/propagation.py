"""A trace taken in from a carrier: a request's headers, a message's ``_meta``, or the
environment a parent process started cadre with (OpenTelemetry's environment variables as
context propagation carriers: ``TRACEPARENT``, ``TRACESTATE``, ``BAGGAGE``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import context as otel_context
from opentelemetry.propagate import extract

__all__ = ["ENVIRONMENT_CARRIER", "continued", "from_environment"]

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
