"""cadre's metrics instruments, measured off the run's path.

A measurement taken while a run goes on (a node's duration, a task's outcome, checkpoint bytes)
is only queued: the SDK instruments get the queued measurements when a reader collects (the
periodic reader's thread, a flush, the providers' shutdown), through the callback of an
observable instrument that reports nothing itself. What a collection exports is the same as if
each had been recorded at once; a queue that nothing collects hands its measurements over on
the path once it holds :data:`PENDING_LIMIT`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from opentelemetry.metrics import CallbackOptions, Meter, Observation
from opentelemetry.sdk.metrics import MeterProvider

from telemetry.spans import GEN_AI

__all__ = ["PENDING_LIMIT", "CadreMetrics", "Instrument", "Measurements"]

PENDING_LIMIT = 65_536
"""The most measurements queued before the queue is handed over on the path."""

Attributes = Mapping[str, Any] | None
_Measure = Callable[[Any, Attributes], None]


class Measurements:
    """The queue of measurements of one meter, emptied into their instruments at collection.

    ``deferred=False`` (a meter nothing collects from, such as the no-op one): each measurement
    goes to its instrument at once.
    """

    def __init__(self, meter: Meter, deferred: bool) -> None:
        self.deferred = deferred
        self._pending: deque[tuple[_Measure, Any, Attributes]] = deque()
        if deferred:
            meter.create_observable_gauge(
                "cadre.telemetry.handover",
                callbacks=[self._collecting],
                description="Reports nothing: hands queued measurements to their instruments",
            )

    def instrument(self, measure: _Measure) -> Instrument:
        """An instrument that queues for ``measure`` (a histogram's ``record``, a counter's
        ``add``), or calls it at once when measurements are not deferred."""
        return Instrument(measure, self if self.deferred else None)

    def put(self, measure: _Measure, value: Any, attributes: Attributes) -> None:
        """Queue one measurement (deque appends and pops are thread-safe)."""
        self._pending.append((measure, value, attributes))
        if len(self._pending) >= PENDING_LIMIT:
            self.hand_over()

    def hand_over(self) -> None:
        """Give every queued measurement to its instrument, oldest first."""
        pending = self._pending
        while pending:
            try:
                measure, value, attributes = pending.popleft()
            except IndexError:  # emptied by another thread meanwhile
                return
            measure(value, attributes)

    def _collecting(self, options: CallbackOptions) -> Iterable[Observation]:
        self.hand_over()
        return ()


class Instrument:
    """A histogram or counter as cadre records into it: ``record`` and ``add`` queue."""

    __slots__ = ("_measure", "_queue")

    def __init__(self, measure: _Measure, queue: Measurements | None) -> None:
        self._measure = measure
        self._queue = queue

    def record(self, value: float, attributes: Attributes = None) -> None:
        """Measure ``value`` (a histogram's record, a counter's add)."""
        if self._queue is None:
            self._measure(value, attributes)
        else:
            self._queue.put(self._measure, value, attributes)

    add = record


class CadreMetrics:
    """Node latency and outcomes, retries, fan-out, failed tasks, checkpoint bytes, human wait,
    model tokens.

    Measurements are queued until a reader collects when ``meter`` comes from an SDK
    ``MeterProvider`` (``deferred``; see the module).
    """

    def __init__(self, meter: Meter, *, deferred: bool) -> None:
        self.measurements = Measurements(meter, deferred)
        queued = self.measurements.instrument

        def histogram(name: str, description: str, unit: str = "") -> Instrument:
            return queued(meter.create_histogram(name, unit=unit, description=description).record)

        def counter(name: str, description: str, unit: str = "") -> Instrument:
            return queued(meter.create_counter(name, unit=unit, description=description).add)

        self.node_duration = histogram(
            "cadre.node.duration",
            "Execution time of a node, no queueing; its count by outcome (ok, error, paused)"
            " counts executions",
            "s",
        )
        self.retries = counter("cadre.worker.retries", "Transient failures retried by workers")
        self.fanout = histogram("cadre.dispatch.width", "Tasks fanned out by one dispatch")
        self.tasks_failed = counter(
            "cadre.tasks.failed", "Tasks whose worker failed, by team and task kind"
        )
        self.tasks_finished = counter(
            "cadre.tasks.finished",
            "Tasks whose worker returned, by team, task kind and status (ok, failed)",
        )
        self.checkpoint_bytes = counter(
            "cadre.checkpoint.bytes", "Bytes serialized into checkpoints", "By"
        )
        self.human_wait = histogram(
            "cadre.review.wait", "Time a paused run waited to be resumed", "s"
        )
        self.policy_decisions = counter(
            "cadre.policy.decisions",
            "Policy decisions other than allow, by policy, hook, action and target",
        )
        self.tokens = histogram("gen_ai.client.token.usage", "Tokens per model call", "{token}")

    @classmethod
    def of(cls, provider: Any, scope: str) -> CadreMetrics:
        """The metrics of ``provider``'s meter ``scope``, deferred when it is an SDK provider
        (one whose readers collect)."""
        return cls(provider.get_meter(scope), deferred=isinstance(provider, MeterProvider))

    def record_tokens(self, model: str, input_tokens: int, output_tokens: int) -> None:
        """Record one model call's token usage, split by token type."""
        for kind, count in (("input", input_tokens), ("output", output_tokens)):
            self.tokens.record(
                count,
                {GEN_AI.TOKEN_TYPE: kind, GEN_AI.REQUEST_MODEL: model, GEN_AI.OPERATION: "chat"},
            )
