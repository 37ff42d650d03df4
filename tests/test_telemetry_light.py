"""Telemetry off the run's path: light node spans record what the SDK's spans would, and metrics
measured during a run reach their instruments when a reader collects."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, Sampler, TraceIdRatioBased
from opentelemetry.trace import Status, StatusCode

from framework.engine.builder import TeamSettings, build_team, compile_team
from framework.runs.runner import run_team
from telemetry import metrics as cadre_metrics
from telemetry.instrument import Telemetry
from telemetry.light_spans import LightSpan, SpanStarter
from telemetry.metrics import CadreMetrics, Measurements
from tests.roles import CountingPlanner, ProgrammableWorker, make_roles


def _provider(sampler: Sampler | None = None) -> tuple[TracerProvider, InMemorySpanExporter]:
    spans = InMemorySpanExporter()
    provider = TracerProvider(sampler=sampler)
    provider.add_span_processor(SimpleSpanProcessor(spans))
    return provider, spans


def _tree(spans: tuple[ReadableSpan, ...]) -> list[tuple[str, str | None]]:
    names = {s.context.span_id: s.name for s in spans}
    return sorted((s.name, names.get(s.parent.span_id) if s.parent else None) for s in spans)


def _run(provider: TracerProvider, thread: str) -> None:
    telemetry = Telemetry(provider)
    worker = ProgrammableWorker(fail=lambda t: ValueError("bad") if t.id == "t1" else None)
    graph = build_team(
        make_roles(CountingPlanner(n=3), worker),
        TeamSettings(name="research", middleware=telemetry.middleware),
    )
    run_team(compile_team(graph), {"question": "q"}, thread, observer=telemetry)


def test_node_spans_are_light_under_the_default_sampler_and_the_same_tree_elsewhere() -> None:
    light, light_spans = _provider()
    sdk, sdk_spans = _provider(TraceIdRatioBased(1.0))  # records all, but not the default
    _run(light, "t-light")
    _run(sdk, "t-sdk")
    found, expected = light_spans.get_finished_spans(), sdk_spans.get_finished_spans()
    tasks = [s for s in found if s.name.startswith("cadre.task")]
    assert len(tasks) == 3 and all(isinstance(s, LightSpan) for s in tasks)
    assert not any(isinstance(s, LightSpan) for s in expected)
    assert _tree(found) == _tree(expected)
    by_name = {s.name: s for s in expected}
    for span in found:
        twin = by_name[span.name]
        ignored = {"cadre.thread_id", "cadre.checkpoint.id", "cadre.dispatch.id"}  # per run
        mine, theirs = dict(span.attributes or {}), dict(twin.attributes or {})
        assert {k: v for k, v in mine.items() if k not in ignored} == {
            k: v for k, v in theirs.items() if k not in ignored
        }, span.name
        assert span.status.status_code == twin.status.status_code
        assert [e.name for e in span.events] == [e.name for e in twin.events]
        assert span.resource == twin.resource
        assert span.instrumentation_scope == twin.instrumentation_scope
        assert span.context.trace_id == found[0].context.trace_id
        assert span.start_time is not None and span.end_time is not None
        assert span.start_time <= span.end_time


def test_an_unsampled_run_records_no_span() -> None:
    provider, spans = _provider(ALWAYS_OFF)
    _run(provider, "t-off")
    assert spans.get_finished_spans() == ()


def _both(act: Callable[[trace.Span], None]) -> tuple[ReadableSpan, ReadableSpan]:
    """The same calls on a light span and on the SDK's, each ended and exported."""
    provider, spans = _provider()
    tracer = provider.get_tracer("cadre")
    parent = tracer.start_span("parent")
    context = trace.set_span_in_context(parent)
    light = SpanStarter(tracer).start("x", parent, context, {"a": 1})
    sdk = tracer.start_span("x", context=context, attributes={"a": 1})
    assert isinstance(light, LightSpan) and not isinstance(sdk, LightSpan)
    for span in (light, sdk):
        act(span)
        span.end()
        span.set_attribute("after", "end")  # ignored: the span has ended
        span.set_status(StatusCode.ERROR, "late")
    first, second = spans.get_finished_spans()
    return first, second


def _same(light: ReadableSpan, sdk: ReadableSpan) -> None:
    assert light.name == sdk.name
    assert dict(light.attributes or {}) == dict(sdk.attributes or {})
    assert (light.status.status_code, light.status.description) == (
        sdk.status.status_code,
        sdk.status.description,
    )
    assert [(e.name, dict(e.attributes or {})) for e in light.events] == [
        (e.name, dict(e.attributes or {})) for e in sdk.events
    ]
    assert light.parent == sdk.parent and light.kind == sdk.kind


@pytest.mark.parametrize(
    "act",
    [
        lambda s: s.set_attributes({"list": ["a", "b"], "n": 2, "f": 0.5, "b": True}),
        lambda s: s.set_attribute("object", ValueError("not a value")),
        lambda s: (s.set_status(Status(StatusCode.OK)), s.set_status(StatusCode.ERROR, "no")),
        lambda s: (s.set_status(StatusCode.ERROR, "failed"), s.set_status(StatusCode.UNSET)),
        lambda s: s.add_event("paused", {"ids": ["r1"], "why": "review"}),
        lambda s: s.update_name("renamed"),
    ],
    ids=["values", "cleaned", "ok-is-final", "unset-ignored", "event", "name"],
)
def test_a_light_span_records_what_the_sdk_span_records(act: Callable[[Any], Any]) -> None:
    _same(*_both(act))


def test_a_light_span_records_an_exception_as_the_sdk_does() -> None:
    def fail(span: trace.Span) -> None:
        try:
            raise KeyError("missing")
        except KeyError as error:
            span.record_exception(error, {"extra": 1})

    light, sdk = _both(fail)
    [mine], [theirs] = light.events, sdk.events
    assert mine.attributes is not None and theirs.attributes is not None
    assert dict(mine.attributes) == dict(theirs.attributes)


def test_measurements_reach_their_instruments_when_a_reader_collects() -> None:
    reader = InMemoryMetricReader()
    metrics = CadreMetrics.of(MeterProvider(metric_readers=[reader]), "cadre")
    metrics.node_duration.record(0.25, {"cadre.node": "worker", "outcome": "ok"})
    metrics.node_duration.record(0.75, {"cadre.node": "worker", "outcome": "ok"})
    metrics.tasks_finished.add(1, {"cadre.task.status": "ok"})
    metrics.checkpoint_bytes.add(100)
    data = reader.get_metrics_data()
    assert data is not None
    found: dict[str, list[Any]] = {
        metric.name: list(metric.data.data_points)
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
    }
    assert set(found) == {"cadre.node.duration", "cadre.tasks.finished", "cadre.checkpoint.bytes"}
    [duration] = found["cadre.node.duration"]
    assert (duration.count, duration.sum) == (2, 1.0)
    assert [p.value for p in found["cadre.tasks.finished"]] == [1]
    assert [p.value for p in found["cadre.checkpoint.bytes"]] == [100]


def test_a_queue_nothing_collects_hands_over_at_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cadre_metrics, "PENDING_LIMIT", 3)
    measured: list[tuple[Any, Any]] = []
    queue = Measurements(MeterProvider().get_meter("cadre"), deferred=True)
    instrument = queue.instrument(lambda value, attributes: measured.append((value, attributes)))
    instrument.record(1)
    instrument.record(2, {"k": "v"})
    assert measured == []
    instrument.record(3)
    assert measured == [(1, None), (2, {"k": "v"}), (3, None)]


def test_a_meter_nothing_collects_from_measures_at_once() -> None:
    metrics = CadreMetrics.of(NoOpMeterProvider(), "cadre")
    assert not metrics.measurements.deferred
    measured: list[float] = []
    instrument = metrics.measurements.instrument(lambda value, _: measured.append(value))
    instrument.record(1.5)
    assert measured == [1.5]
