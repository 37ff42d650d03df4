"""Telemetry through a real OTLP/HTTP exporter into a receiver started by the test.

The receiver (stdlib ``http.server`` on loopback) accepts ``POST /v1/traces`` and
``/v1/metrics``, decodes the protobuf payloads the OTLP exporter really sends (gzip included)
and answers with an empty ``Export*ServiceResponse``, as a collector does. The assertions read
the decoded spans: one trace per run, no orphan roots, the run -> team -> node / step -> task
tree of a MetaCoordinator over the research team, the attributes dashboards query, the resource,
the metrics, and the link from a resumed part to the part it continues.
"""

from __future__ import annotations

import gzip
import threading
import zlib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.metrics.v1.metrics_pb2 import Metric

from framework.engine.builder import compile_team
from framework.memory import Corpus
from framework.persistence.checkpointer import default_serializer
from framework.runs.runner import RunResult, arun_team, run_team
from teams.meta import CitationCompliance, EvidenceRisk, build_meta_coordinator
from teams.research import build_research_team, offline_roles
from telemetry.instrument import Telemetry
from telemetry.settings import TelemetrySettings, build_meter_provider, build_tracer_provider

Mode = Literal["sync", "async"]

QUESTION = (
    "How do workers retry transient errors? How are checkpoints encrypted at rest? "
    "How does a human reviewer approve the plan?"
)
"""Three sub-questions plus the whole question: four tasks, answered in one review round."""

RESEARCH_NODES = ("planner", "dispatcher", "aggregator", "reviewer", "memory_curator", "formatter")
META_NODES = ("intake", "risk_assessment", "compliance_check")

# -- the receiver ------------------------------------------------------------------------------

_Request = ExportTraceServiceRequest | ExportMetricsServiceRequest


def _parse(path: str, body: bytes) -> tuple[_Request, bytes] | None:
    """The decoded export request posted to ``path`` and the (empty) response to it."""
    if path == "/v1/traces":
        traces = ExportTraceServiceRequest()
        traces.ParseFromString(body)
        return traces, ExportTraceServiceResponse().SerializeToString()
    if path == "/v1/metrics":
        metrics = ExportMetricsServiceRequest()
        metrics.ParseFromString(body)
        return metrics, ExportMetricsServiceResponse().SerializeToString()
    return None


def _decompress(body: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    assert encoding in ("", "identity"), f"unexpected Content-Encoding {encoding!r}"
    return body


class _Handler(BaseHTTPRequestHandler):
    server: _Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        encoding = self.headers.get("Content-Encoding", "")
        try:
            parsed = _parse(self.path, _decompress(body, encoding))
        except Exception as error:  # a payload the test must fail on, not a dead connection
            self.server.note_unexpected(f"{self.path}: {error!r}")
            self.send_error(400)
            return
        if parsed is None:
            self.server.note_unexpected(self.path)
            self.send_error(404)
            return
        message, answer = parsed
        self.server.note(encoding, self.headers.get("Content-Type", ""), message)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output quiet."""


class _Receiver(ThreadingHTTPServer):
    """An OTLP/HTTP protobuf receiver keeping every decoded export request."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.traces: list[ExportTraceServiceRequest] = []
        self.metrics: list[ExportMetricsServiceRequest] = []
        self.encodings: set[str] = set()
        self.content_types: set[str] = set()
        self.unexpected: list[str] = []

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_port}"

    def note(self, encoding: str, content_type: str, message: _Request) -> None:
        with self.lock:
            self.encodings.add(encoding)
            self.content_types.add(content_type)
            if isinstance(message, ExportTraceServiceRequest):
                self.traces.append(message)
            else:
                self.metrics.append(message)

    def note_unexpected(self, path: str) -> None:
        with self.lock:
            self.unexpected.append(path)

    def spans(self) -> list[_Span]:
        with self.lock:
            requests = list(self.traces)
        return [span for request in requests for span in _decode_spans(request)]

    def latest_metrics(self) -> dict[str, _Metric]:
        """Each metric as last exported (the exporter's temporality is cumulative)."""
        with self.lock:
            requests = list(self.metrics)
        found: dict[str, _Metric] = {}
        for request in requests:
            for resource_metrics in request.resource_metrics:
                resource = _attributes(resource_metrics.resource.attributes)
                for scope_metrics in resource_metrics.scope_metrics:
                    for metric in scope_metrics.metrics:
                        found[metric.name] = _Metric(metric=metric, resource=resource)
        return found


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Receiver]:
    """The OTLP receiver on a loopback port; the exporter's environment pinned to defaults."""
    for name in (
        "OTEL_EXPORTER_OTLP_COMPRESSION",
        "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
        "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
        "OTEL_RESOURCE_ATTRIBUTES",
        "OTEL_SERVICE_NAME",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # requests honours proxy variables
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    server = _Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# -- decoding ----------------------------------------------------------------------------------


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    return getattr(value, kind)


def _attributes(pairs: Sequence[KeyValue]) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


@dataclass(frozen=True)
class _Link:
    trace_id: str
    span_id: str
    attributes: dict[str, Any]


@dataclass(frozen=True)
class _Span:
    name: str
    trace_id: str
    span_id: str
    parent_id: str | None
    start: int
    end: int
    attributes: dict[str, Any]
    links: tuple[_Link, ...]
    resource: dict[str, Any]
    scope: str


@dataclass(frozen=True)
class _Metric:
    metric: Metric
    resource: dict[str, Any]

    def histogram(self) -> dict[tuple[tuple[str, Any], ...], tuple[int, float]]:
        """Count and sum of each data point, by its sorted attributes."""
        assert self.metric.WhichOneof("data") == "histogram", self.metric
        return {
            tuple(sorted(_attributes(point.attributes).items())): (point.count, point.sum)
            for point in self.metric.histogram.data_points
        }


def _decode_spans(request: ExportTraceServiceRequest) -> Iterator[_Span]:
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield _Span(
                    name=span.name,
                    trace_id=span.trace_id.hex(),
                    span_id=span.span_id.hex(),
                    parent_id=span.parent_span_id.hex() or None,
                    start=span.start_time_unix_nano,
                    end=span.end_time_unix_nano,
                    attributes=_attributes(span.attributes),
                    links=tuple(
                        _Link(link.trace_id.hex(), link.span_id.hex(), _attributes(link.attributes))
                        for link in span.links
                    ),
                    resource=resource,
                    scope=scope_spans.scope.name,
                )


class _Tree:
    """The decoded spans of one trace, by id and by parent."""

    def __init__(self, spans: Sequence[_Span]) -> None:
        self.spans = list(spans)
        self.by_id = {span.span_id: span for span in spans}
        assert len(self.by_id) == len(spans), "duplicate span ids"
        self.roots = [span for span in spans if span.parent_id is None]
        self.orphans = [
            span
            for span in spans
            if span.parent_id is not None and span.parent_id not in self.by_id
        ]

    def children(self, span: _Span) -> list[_Span]:
        return [child for child in self.spans if child.parent_id == span.span_id]

    def child(self, span: _Span, name: str) -> _Span:
        found = [child for child in self.children(span) if child.name == name]
        assert len(found) == 1, f"{span.name} has {len(found)} children named {name!r}"
        return found[0]

    def names(self, span: _Span) -> Counter[str]:
        return Counter(child.name for child in self.children(span))

    def check_nesting(self) -> None:
        """Every child lies within its parent's time span."""
        for span in self.spans:
            parent = self.by_id.get(span.parent_id or "")
            if parent is not None:
                assert parent.start <= span.start <= span.end <= parent.end, (
                    f"{span.name} [{span.start}, {span.end}] outside "
                    f"{parent.name} [{parent.start}, {parent.end}]"
                )


# -- running -----------------------------------------------------------------------------------


def _telemetry(receiver: _Receiver) -> Telemetry:
    settings = TelemetrySettings(exporter="otlp", otlp_endpoint=receiver.endpoint)
    return Telemetry(build_tracer_provider(settings), build_meter_provider(settings))


def _meta_app(
    corpus: Corpus, telemetry: Telemetry, interrupt_before: Sequence[str] = ()
) -> CompiledStateGraph[Any, Any, Any, Any]:
    research = build_research_team(
        offline_roles(corpus, corpus.store), middleware=telemetry.middleware
    )
    graph = build_meta_coordinator(
        research, EvidenceRisk(), CitationCompliance(), telemetry.middleware
    )
    # cadre's serializer under the counting one, as `cadre run` has it: a plain JsonPlusSerializer
    # revives no record under LANGGRAPH_STRICT_MSGPACK=true
    checkpointer = InMemorySaver(serde=telemetry.serializer(default_serializer()))
    return compile_team(
        graph, checkpointer=checkpointer, interrupt_before=interrupt_before, name="meta"
    )


async def _run(
    mode: Mode,
    app: CompiledStateGraph[Any, Any, Any, Any],
    inputs: Mapping[str, Any] | None,
    thread_id: str,
    telemetry: Telemetry,
) -> RunResult:
    if mode == "async":
        return await arun_team(app, inputs, thread_id, observer=telemetry)
    return run_team(app, inputs, thread_id, observer=telemetry)


def _check_meta_team(tree: _Tree, meta: _Span) -> None:
    assert meta.attributes["cadre.team"] == "meta"
    assert meta.attributes["cadre.team.path"] == "meta"
    assert meta.attributes["cadre.checkpoint.ns"] == ""
    assert meta.attributes["gen_ai.agent.name"] == "meta"
    for span in tree.children(meta):
        if span.name.startswith("cadre.node "):
            node = span.name.removeprefix("cadre.node ")
            assert span.attributes["cadre.span.kind"] == "node"
            assert span.attributes["cadre.team.path"] == "meta"
            assert span.attributes["cadre.checkpoint.ns"] == ""
            assert span.attributes["gen_ai.agent.name"] == f"meta.{node}"


def _check_research_team(tree: _Tree, research: _Span, task_ids: set[str]) -> None:
    """research -> {six nodes, one worker step -> one task span per task}."""
    expected = Counter(f"cadre.node {node}" for node in RESEARCH_NODES)
    expected["cadre.step worker"] = 1
    assert tree.names(research) == expected
    namespace = research.attributes["cadre.checkpoint.ns"]
    assert namespace.startswith("research_team:")
    assert research.attributes["cadre.team.path"] == "meta/research"
    assert research.attributes["gen_ai.agent.name"] == "research"
    for span in tree.children(research):
        assert span.attributes["cadre.team.path"] == "meta/research", span.name
        if span.name.startswith("cadre.node "):
            node = span.name.removeprefix("cadre.node ")
            assert span.attributes["cadre.checkpoint.ns"] == namespace
            assert span.attributes["gen_ai.operation.name"] == "invoke_agent"
            assert span.attributes["gen_ai.agent.name"] == f"research.{node}"
    planner = tree.child(research, "cadre.node planner")
    reviewer = tree.child(research, "cadre.node reviewer")
    assert planner.attributes["cadre.control_signal"] == "dispatch"
    assert reviewer.attributes["cadre.control_signal"] == "finish"
    dispatcher = tree.child(research, "cadre.node dispatcher")
    assert dispatcher.attributes["cadre.dispatch.width"] == len(task_ids)

    step = tree.child(research, "cadre.step worker")
    assert step.attributes["cadre.span.kind"] == "step"
    assert step.attributes["cadre.checkpoint.ns"] == namespace  # the tasks' shared place
    assert step.attributes["cadre.team"] == "research"
    assert step.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert step.attributes["gen_ai.agent.name"] == "research.worker"
    tasks = tree.children(step)
    assert sorted(span.name for span in tasks) == sorted(f"cadre.task {i}" for i in task_ids)
    assert {span.attributes["cadre.task.id"] for span in tasks} == task_ids
    assert {span.parent_id for span in tasks} == {step.span_id}  # siblings under one step
    for span in tasks:
        assert span.attributes["cadre.span.kind"] == "task"
        assert span.attributes["cadre.node"] == "worker"
        assert span.attributes["cadre.team.path"] == "meta/research"
        assert span.attributes["cadre.task.status"] == "ok"
        assert not tree.children(span)


def _check_common(spans: Sequence[_Span], thread_id: str) -> None:
    for span in spans:
        assert span.attributes.get("cadre.thread_id") == thread_id, span.name
        assert span.resource.get("service.name") == "cadre", span.name
        assert span.scope == "cadre", span.name
        assert span.end >= span.start > 0, span.name


# -- tests -------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_meta_run_reaches_an_otlp_receiver_as_one_tree(
    receiver: _Receiver, small_corpus: Corpus, mode: Mode
) -> None:
    telemetry = _telemetry(receiver)
    thread_id = f"otlp-{mode}"
    try:
        app = _meta_app(small_corpus, telemetry)
        result = await _run(mode, app, {"question": QUESTION}, thread_id, telemetry)
        telemetry.flush()
        spans = receiver.spans()
        metrics = receiver.latest_metrics()
    finally:
        telemetry.close()

    assert result.paused_before == () and "## Sources" in result.state["final_answer"]
    task_ids = set(result.state["tasks"])
    assert len(task_ids) == 4 and result.state["iteration"] == 1
    assert receiver.unexpected == []
    assert receiver.content_types == {"application/x-protobuf"}

    assert len({span.trace_id for span in spans}) == 1
    tree = _Tree(spans)
    assert tree.orphans == []
    assert [span.name for span in tree.roots] == ["cadre.run"]
    run = tree.roots[0]
    assert run.attributes["cadre.span.kind"] == "run"
    assert run.attributes["cadre.team"] == "meta"
    assert run.attributes["cadre.run.outcome"] == "finished"
    assert run.attributes["cadre.run.resumed"] is False
    assert run.links == ()
    assert tree.names(run) == Counter({"cadre.team meta": 1})
    meta = tree.child(run, "cadre.team meta")
    assert tree.names(meta) == Counter(
        ["cadre.team research", *(f"cadre.node {node}" for node in META_NODES)]
    )
    _check_meta_team(tree, meta)
    _check_research_team(tree, tree.child(meta, "cadre.team research"), task_ids)
    assert len(spans) == 1 + 1 + 3 + 1 + 6 + 1 + len(task_ids)  # nothing else was exported
    _check_common(spans, thread_id)
    tree.check_nesting()

    assert {metric.resource.get("service.name") for metric in metrics.values()} == {"cadre"}
    durations = metrics["cadre.node.duration"].histogram()
    counts = {dict(key)["cadre.node"]: count for key, (count, _) in durations.items()}
    assert counts == {node: 1 for node in (*RESEARCH_NODES, *META_NODES)} | {"worker": 4}
    widths = metrics["cadre.dispatch.width"].histogram()
    assert widths == {(("cadre.team", "research"),): (1, 4.0)}
    assert metrics["cadre.checkpoint.bytes"].metric.sum.data_points[0].as_int > 0


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_resumed_run_joins_the_trace_and_links_to_the_paused_part(
    receiver: _Receiver,
    small_corpus: Corpus,
    monkeypatch: pytest.MonkeyPatch,
    mode: Mode,
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")  # read by the exporters
    telemetry = _telemetry(receiver)
    thread_id = f"resume-{mode}"
    try:
        app = _meta_app(small_corpus, telemetry, interrupt_before=["risk_assessment"])
        first = await _run(mode, app, {"question": QUESTION}, thread_id, telemetry)
        paused_spans = receiver.spans()  # the run bracket flushed the paused part
        second = await _run(mode, app, None, thread_id, telemetry)
        telemetry.flush()
        spans = receiver.spans()
        metrics = receiver.latest_metrics()
    finally:
        telemetry.close()

    assert first.paused_before == ("risk_assessment",)
    assert second.paused_before == () and set(second.state["findings"]) == set(META_NODES)
    assert receiver.encodings == {"gzip"}
    assert [span.name for span in paused_spans].count("cadre.run") == 1

    assert len({span.trace_id for span in spans}) == 1
    tree = _Tree(spans)
    assert tree.orphans == []
    assert [span.name for span in tree.roots] == ["cadre.run"]
    part1 = tree.roots[0]
    (part2,) = [span for span in spans if span.name == "cadre.run" and span is not part1]
    assert part2.parent_id == part1.span_id
    assert part2.links == (_Link(part1.trace_id, part1.span_id, {"cadre.link.type": "resume"}),)
    assert part1.attributes["cadre.run.outcome"] == "paused"
    assert part1.attributes["cadre.paused_before"] == ["risk_assessment"]
    assert part1.attributes["cadre.run.resumed"] is False
    assert part2.attributes["cadre.run.outcome"] == "finished"
    assert part2.attributes["cadre.run.resumed"] is True

    assert tree.names(part1) == Counter({"cadre.team meta": 1, "cadre.run": 1})
    meta1 = tree.child(part1, "cadre.team meta")
    assert tree.names(meta1) == Counter(["cadre.node intake", "cadre.team research"])
    _check_research_team(tree, tree.child(meta1, "cadre.team research"), set(first.state["tasks"]))
    assert tree.names(part2) == Counter({"cadre.team meta": 1})
    meta2 = tree.child(part2, "cadre.team meta")
    assert tree.names(meta2) == Counter(
        ["cadre.node risk_assessment", "cadre.node compliance_check"]
    )
    _check_meta_team(tree, meta1)
    _check_meta_team(tree, meta2)
    _check_common(spans, thread_id)
    assert part1.end <= part2.start

    waits = metrics["cadre.review.wait"].histogram()
    assert [count for count, _ in waits.values()] == [1]
