"""The JSON line of a span: every field of the span, whatever it holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import Link, Status, StatusCode

from telemetry.export import JsonLinesSpanExporter


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_line_holds_ids_times_status_attributes_events_links_resource_and_scope(
    tmp_path: Path,
) -> None:
    path = tmp_path / "spans.jsonl"
    provider = TracerProvider(resource=Resource.create({"service.name": "lines-test"}))
    provider.add_span_processor(SimpleSpanProcessor(JsonLinesSpanExporter(path)))
    tracer = provider.get_tracer("scope-a")
    with tracer.start_as_current_span("outer") as outer:
        other = tracer.start_span("other")
        other.end()
        inner = tracer.start_span(
            "inner",
            attributes={"n": 3, "names": ("a", "b")},
            links=[Link(other.get_span_context(), {"why": "follows"})],
        )
        inner.add_event("step", {"at": 1}, timestamp=5)
        inner.set_status(Status(StatusCode.ERROR, "it broke"))
        inner.end()
    provider.shutdown()

    by_name = {line["name"]: line for line in _lines(path)}
    line, top = by_name["inner"], by_name["outer"]
    context, parent = inner.get_span_context(), outer.get_span_context()
    assert line["trace_id"] == f"{context.trace_id:032x}" == top["trace_id"]
    assert line["span_id"] == f"{context.span_id:016x}"
    assert line["parent_span_id"] == f"{parent.span_id:016x}"
    assert top["parent_span_id"] is None
    assert line["kind"] == "INTERNAL"
    assert line["start_time_unix_nano"] == inner.start_time  # type: ignore[attr-defined]
    assert line["end_time_unix_nano"] == inner.end_time  # type: ignore[attr-defined]
    assert line["status"] == {"code": "ERROR", "description": "it broke"}
    assert top["status"] == {"code": "UNSET", "description": None}
    assert line["attributes"] == {"n": 3, "names": ["a", "b"]}
    assert line["events"] == [{"name": "step", "time_unix_nano": 5, "attributes": {"at": 1}}]
    other_context = other.get_span_context()
    assert line["links"] == [
        {
            "trace_id": f"{other_context.trace_id:032x}",
            "span_id": f"{other_context.span_id:016x}",
            "attributes": {"why": "follows"},
        }
    ]
    assert top["events"] == [] and top["links"] == []
    assert line["resource"]["service.name"] == "lines-test"
    assert line["scope"] == "scope-a"
    assert trace.get_current_span() is trace.INVALID_SPAN
