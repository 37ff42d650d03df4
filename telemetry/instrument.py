"""``Telemetry``: the observer that turns a run into spans and metrics.

It plugs into the framework through the middleware chain (node and task spans), the run
bracket (run, team and step spans), the runnable config of each node (model and tool spans)
and the checkpoint serializer (bytes written). It never installs a global provider.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from langgraph.checkpoint.serde.base import SerializerProtocol
from opentelemetry import trace
from opentelemetry.metrics import MeterProvider, NoOpMeterProvider
from opentelemetry.trace import TracerProvider

from framework.engine.middleware import Middleware
from framework.policy.records import PolicyEntry
from framework.runs.observe import RunObserver
from telemetry.callbacks import GenAICallbackHandler
from telemetry.evals import EvalMetrics, EvalSpans
from telemetry.metrics import CadreMetrics
from telemetry.middleware import TelemetryMiddleware
from telemetry.run_spans import CURRENT_RUN_SPANS, RunSpans
from telemetry.runs import RunIndex
from telemetry.serde import CountingSerializer
from telemetry.spans import ATTR, SCOPE_NAME

__all__ = ["RunPartHandle", "Telemetry"]


class RunPartHandle:
    """What the runner reports about the part it ran."""

    def __init__(self) -> None:
        self.paused_before: tuple[str, ...] = ()

    def paused(self, before: Sequence[str]) -> None:
        """The part ended paused before ``before``."""
        self.paused_before = tuple(before)


class Telemetry(RunObserver):
    """Spans and metrics for cadre runs, on the providers it is given.

    Args:
        tracer_provider: Where spans go (see ``telemetry.settings.build_tracer_provider``).
        meter_provider: Where metrics go; none records nothing.
        capture_content: Put prompts, outputs and tool arguments in spans.
        index: Run parts per thread, for resume links; process-local when not given.
    """

    def __init__(
        self,
        tracer_provider: TracerProvider,
        meter_provider: MeterProvider | None = None,
        *,
        capture_content: bool = False,
        index: RunIndex | None = None,
    ) -> None:
        self.tracer_provider = tracer_provider
        self.meter_provider = meter_provider or NoOpMeterProvider()
        self.tracer = tracer_provider.get_tracer(SCOPE_NAME)
        self.metrics = CadreMetrics.of(self.meter_provider, SCOPE_NAME)
        self.eval_metrics = EvalMetrics(self.meter_provider.get_meter(SCOPE_NAME))
        self.index = index or RunIndex()
        self.callbacks = GenAICallbackHandler(self.tracer, self.metrics, capture_content)
        self._middleware = TelemetryMiddleware(
            self.tracer, self.metrics, self.callbacks, capture_content
        )

    @property
    def middleware(self) -> tuple[Middleware, ...]:
        """The node middleware to build teams with."""
        return (self._middleware,)

    def policy_decided(self, entry: PolicyEntry) -> None:
        """A span event ``cadre.policy`` on the current span (the node's) and one count of
        ``cadre.policy.decisions``; the entry's reason never carries sensitive values."""
        attributes = {
            ATTR.POLICY: entry.policy,
            ATTR.POLICY_HOOK: entry.hook,
            ATTR.POLICY_ACTION: entry.action,
            ATTR.POLICY_TARGET: entry.target,
        }
        trace.get_current_span().add_event(
            "cadre.policy", {**attributes, ATTR.POLICY_REASON: entry.reason, "cadre.by": entry.by}
        )
        self.metrics.policy_decisions.add(1, attributes)

    def serializer(self, inner: SerializerProtocol) -> SerializerProtocol:
        """``inner``, counting the bytes it writes into ``cadre.checkpoint.bytes``."""
        return CountingSerializer(inner, self.metrics.checkpoint_bytes)

    @contextmanager
    def evaluation(self, *, run_id: str, dataset: str, cases: int) -> Iterator[EvalSpans]:
        """Bracket an eval run: its span, a span per graded case, the scores as metrics."""
        spans = EvalSpans(
            self.tracer,
            self.eval_metrics,
            self.index,
            run_id=run_id,
            dataset=dataset,
            cases=cases,
        )
        try:
            yield spans
        except BaseException as error:
            spans.close(error)
            self.flush_spans()
            raise
        spans.close()
        self.flush_spans()

    @contextmanager
    def run(self, *, thread_id: str, team: str, resumed: bool) -> Iterator[RunPartHandle]:
        """Bracket one run part: the run span, linked to the part it resumes."""
        previous = self.index.last(thread_id) if resumed else None
        if previous is not None and previous.paused and previous.ended_at is not None:
            self.metrics.human_wait.record(max(0.0, time.time() - previous.ended_at))
        run_spans = RunSpans(self.tracer, thread_id, team, previous)
        context = run_spans.span.get_span_context()
        self.index.started(thread_id, context.trace_id, context.span_id, run_spans.root_span_id)
        token = run_spans.attach()
        handle = RunPartHandle()
        try:
            yield handle
        except BaseException as error:
            run_spans.close("failed", error=error)
            self.index.ended(context.span_id, paused=False)
            self.flush_spans()
            raise
        finally:
            CURRENT_RUN_SPANS.reset(token)
        outcome = "paused" if handle.paused_before else "finished"
        run_spans.close(outcome, handle.paused_before)
        self.index.ended(context.span_id, paused=bool(handle.paused_before))
        self.flush_spans()

    def flush_spans(self) -> None:
        """Export the buffered spans (a run part's trace is complete when it returns)."""
        force_flush = getattr(self.tracer_provider, "force_flush", None)
        if force_flush is not None:
            force_flush()

    def flush(self) -> None:
        """Export what is buffered, spans and metrics (metrics otherwise go out periodically and
        on :meth:`close`)."""
        for provider in (self.tracer_provider, self.meter_provider):
            force_flush = getattr(provider, "force_flush", None)
            if force_flush is not None:
                force_flush()

    def close(self) -> None:
        """Flush and stop the providers this telemetry was given, and close the index."""
        for provider in (self.tracer_provider, self.meter_provider):
            shutdown = getattr(provider, "shutdown", None)
            if shutdown is not None:
                shutdown()
        self.index.close()
