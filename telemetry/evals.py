"""Spans and metrics of ``cadre eval``: a span over an eval run, one per graded case linked to
the case's run (its own trace), and the scores as metrics, so a dashboard shows quality beside
latency and cost."""

from __future__ import annotations

import time

from opentelemetry.metrics import Meter
from opentelemetry.trace import (
    Link,
    Span,
    SpanContext,
    Status,
    StatusCode,
    TraceFlags,
    Tracer,
    set_span_in_context,
)

from framework.runs.observe import GradedCase
from telemetry.runs import RunIndex

__all__ = ["EvalMetrics", "EvalSpans"]

RUN_ID = "cadre.eval.run_id"
DATASET = "cadre.eval.dataset"
CASE = "cadre.eval.case"
STATUS = "cadre.eval.status"
SCORE = "cadre.eval.score"
THREAD = "cadre.thread_id"


class EvalMetrics:
    """``cadre.eval.cases`` (cases graded, by dataset and status) and ``cadre.eval.score``
    (each case's share of verdicts passed, by dataset)."""

    def __init__(self, meter: Meter) -> None:
        self.cases = meter.create_counter(
            "cadre.eval.cases", description="Eval cases graded, by dataset and status"
        )
        self.score = meter.create_histogram(
            "cadre.eval.score", description="Share of an eval case's verdicts that passed"
        )


class EvalSpans:
    """The span of one eval run; :meth:`case` adds a graded case under it."""

    def __init__(
        self,
        tracer: Tracer,
        metrics: EvalMetrics,
        index: RunIndex,
        *,
        run_id: str,
        dataset: str,
        cases: int,
    ) -> None:
        self.tracer = tracer
        self.metrics = metrics
        self.index = index
        self.dataset = dataset
        self.span: Span = tracer.start_span(
            "cadre.eval",
            attributes={RUN_ID: run_id, DATASET: dataset, "cadre.eval.cases": cases},
        )

    def case(self, graded: GradedCase) -> None:
        """A span for a graded case, timed as it ran, linked to the last part of its run."""
        links = []
        part = self.index.last(graded.thread_id)
        if part is not None:
            context = SpanContext(
                trace_id=part.trace_id,
                span_id=part.span_id,
                is_remote=False,
                trace_flags=TraceFlags(TraceFlags.SAMPLED),
            )
            links.append(Link(context, {"cadre.link": "case run"}))
        end = time.time_ns()
        span = self.tracer.start_span(
            "cadre.eval.case",
            context=set_span_in_context(self.span),
            links=links,
            start_time=end - int(graded.seconds * 1e9),
            attributes={
                CASE: graded.case_id,
                THREAD: graded.thread_id,
                STATUS: graded.status,
                SCORE: graded.score,
                "cadre.eval.tags": list(graded.tags),
            },
        )
        span.end(end_time=end)
        self.metrics.cases.add(1, {DATASET: self.dataset, STATUS: graded.status})
        self.metrics.score.record(graded.score, {DATASET: self.dataset})

    def close(self, error: BaseException | None = None) -> None:
        """End the eval's span (marked failed when it was interrupted or failed)."""
        if error is not None:
            self.span.record_exception(error)
            self.span.set_status(Status(StatusCode.ERROR, type(error).__name__))
        self.span.end()
