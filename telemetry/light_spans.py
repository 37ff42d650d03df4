"""Node and task spans that cost little on the run's path.

The SDK's span validates every attribute as it starts, takes a lock per change, asks the
sampler, and copies itself into a new ``ReadableSpan`` when it ends: most of what a task span
cost a 1000-task fan-out. A node's span is written by its one execution, with attributes cadre
builds itself (strings and numbers), so a :class:`LightSpan` keeps them as given (other values
set later are cleaned as the SDK cleans them) and hands itself, a ``ReadableSpan``, to the
tracer's span processors when it ends: batch processors, exporters and in-memory readers see a
span like any other, with the same ids, parent, times, attributes, events and status.

:class:`SpanStarter` starts one only where it records what the SDK's span would: an SDK tracer
that is enabled, under the default sampler (parent-based, always on, so a child of a sampled
span is sampled), with no limit on attribute length, no SDK self-metrics, and a sampled parent;
anywhere else the tracer starts its own span.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Mapping, Sequence
from time import time_ns

from opentelemetry import trace
from opentelemetry.attributes import BoundedAttributes
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.trace import Tracer as SdkTracer
from opentelemetry.sdk.trace.sampling import ALWAYS_ON, DEFAULT_ON
from opentelemetry.trace import Span, SpanContext, SpanKind, Status, StatusCode, Tracer
from opentelemetry.util.types import AnyValue

__all__ = ["LightSpan", "SpanStarter"]

_PLAIN = (str, int, float, bool)
"""Attribute value types kept as they are; others are cleaned like the SDK does."""
_UNSET = Status(StatusCode.UNSET)
_MIN_ATTRIBUTES = 64
"""The fewest attributes a span may hold for light spans (a node span has about 15)."""


class LightSpan(trace.Span, ReadableSpan):
    """A recording span of one node execution, exported as its own ``ReadableSpan``."""

    def __init__(
        self,
        name: str,
        context: SpanContext,
        parent: SpanContext,
        attributes: dict[str, AnyValue],
        starter: SpanStarter,
    ) -> None:
        self._name = name
        self._context = context
        self._parent = parent
        self._attributes = self._values = attributes
        self._kind = SpanKind.INTERNAL
        self._resource = starter.resource
        self._instrumentation_scope = starter.scope
        self._instrumentation_info = None
        self._events: Sequence[Event] = ()  # most spans have none: no list until one
        self._links = ()
        self._status = _UNSET
        self._end_time: int | None = None
        self._starter = starter
        self._start_time = time_ns()

    def __repr__(self) -> str:
        return f'{type(self).__name__}(name="{self._name}", context={self._context})'

    def get_span_context(self) -> SpanContext:
        context = self._context
        assert context is not None  # given at start
        return context

    def is_recording(self) -> bool:
        return self._end_time is None

    def set_attribute(self, key: str, value: AnyValue) -> None:
        if self._end_time is not None:
            return
        if isinstance(value, _PLAIN):
            self._values[key] = value
        else:
            self._values.update(BoundedAttributes(attributes={key: value}))

    def set_attributes(self, attributes: Mapping[str, AnyValue]) -> None:
        for key, value in attributes.items():
            self.set_attribute(key, value)

    def add_event(
        self,
        name: str,
        attributes: Mapping[str, AnyValue] | None = None,
        timestamp: int | None = None,
    ) -> None:
        if self._end_time is None:
            cleaned = BoundedAttributes(attributes=attributes, immutable=True)
            self._events = [*self._events, Event(name, cleaned, timestamp)]

    def update_name(self, name: str) -> None:
        if self._end_time is None:
            self._name = name

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        """As the SDK: an OK status is final, UNSET is ignored."""
        if self._end_time is not None or self._status.status_code is StatusCode.OK:
            return
        if isinstance(status, StatusCode):
            status = Status(status, description)
        if status.status_code is not StatusCode.UNSET:
            self._status = status

    def record_exception(
        self,
        exception: BaseException,
        attributes: Mapping[str, AnyValue] | None = None,
        timestamp: int | None = None,
        escaped: bool = False,
    ) -> None:
        """An ``exception`` event with the attributes the SDK gives it."""
        module, qualname = type(exception).__module__, type(exception).__qualname__
        found: dict[str, AnyValue] = {
            "exception.type": f"{module}.{qualname}" if module != "builtins" else qualname,
            "exception.message": str(exception),
            "exception.stacktrace": "".join(traceback.format_exception(exception)),
            "exception.escaped": str(escaped),
        }
        self.add_event("exception", {**found, **(attributes or {})}, timestamp)

    def end(self, end_time: int | None = None) -> None:
        if self._end_time is None:
            self._end_time = end_time if end_time is not None else time_ns()
            self._starter.ended(self)


class SpanStarter:
    """Starts node and task spans: light ones where they record what the tracer's would (see
    the module), the tracer's own elsewhere."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer
        sdk = tracer if isinstance(tracer, SdkTracer) else None
        self.light = sdk is not None and _default_recording(sdk)
        self.scope = sdk._instrumentation_scope if sdk else None  # what its spans carry
        self.resource = sdk.resource if sdk else Resource.get_empty()
        self._processor = getattr(tracer, "span_processor", None)
        self._on_ending = getattr(self._processor, "_on_ending", None)  # the SDK's, where it has it

    def start(
        self, name: str, parent: Span, context: Context, attributes: dict[str, AnyValue]
    ) -> Span:
        """Start span ``name`` under ``parent`` (current in ``context``) with ``attributes``,
        which become the span's own."""
        above = parent.get_span_context()
        if not (self.light and above.trace_flags.sampled and above.is_valid and self._enabled()):
            return self.tracer.start_span(name, context=context, attributes=attributes)
        assert isinstance(self.tracer, SdkTracer) and self._processor is not None
        own = SpanContext(
            above.trace_id,
            self.tracer.id_generator.generate_span_id(),
            is_remote=False,
            trace_flags=above.trace_flags,
            trace_state=above.trace_state,
        )
        span = LightSpan(name, own, above, attributes, self)
        self._processor.on_start(span, parent_context=context)
        return span

    def ended(self, span: LightSpan) -> None:
        """Hand an ended span to the processors, as the SDK's span does."""
        assert self._processor is not None
        if self._on_ending is not None:
            self._on_ending(span)
        self._processor.on_end(span)

    def _enabled(self) -> bool:
        return bool(self.tracer._is_enabled())  # type: ignore[attr-defined]  # an SDK tracer


def _default_recording(tracer: SdkTracer) -> bool:
    """Whether the SDK would record a sampled parent's child with its attributes as given."""
    limits = getattr(tracer, "_span_limits", None)
    counts: Sequence[int | None] = (
        (limits.max_span_attributes, limits.max_events) if limits is not None else (0,)
    )
    return (
        tracer.sampler in (DEFAULT_ON, ALWAYS_ON)
        and limits is not None
        and limits.max_span_attribute_length is None
        and limits.max_attribute_length is None
        and all(count is None or count >= _MIN_ATTRIBUTES for count in counts)
        and hasattr(tracer, "_is_enabled")
        and os.environ.get("OTEL_PYTHON_SDK_INTERNAL_METRICS_ENABLED", "").lower() != "true"
    )
