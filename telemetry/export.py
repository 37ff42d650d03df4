"""Exporters: JSON lines under the data home (the default), OTLP over HTTP, the console."""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
from opentelemetry.sdk.metrics.export import MetricExporter, MetricExportResult, MetricsData
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from framework.database.home import PRIVATE_FOLDER_MODE, private_file

__all__ = [
    "METRICS_FILE_NAME",
    "SPANS_FILE_NAME",
    "JsonLinesMetricExporter",
    "JsonLinesSpanExporter",
    "span_to_dict",
    "traces_locked",
]

SPANS_FILE_NAME = "spans.jsonl"
_NEWLINE = orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS
METRICS_FILE_NAME = "metrics.jsonl"
_LOCK_FILE_NAME = ".lock"


@contextmanager
def traces_locked(folder: Path) -> Iterator[None]:
    """Hold the trace folder's lock: appends of every process wait while the files are
    rewritten (an erasure), so no line is lost to the rewrite."""
    folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER_MODE)
    with private_file(folder / _LOCK_FILE_NAME).open("rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def span_to_dict(
    span: ReadableSpan, resource: Mapping[str, Any] | None = None, scope: str | None = None
) -> dict[str, Any]:
    """One span as the JSON object written on its line (tuples stay sequences: JSON arrays)."""
    context = span.get_span_context()
    assert context is not None  # a recording SDK span always has one
    return {
        "trace_id": f"{context.trace_id:032x}",
        "span_id": f"{context.span_id:016x}",
        "parent_span_id": f"{span.parent.span_id:016x}" if span.parent else None,
        "name": span.name,
        "kind": span.kind.name,
        "start_time_unix_nano": span.start_time,
        "end_time_unix_nano": span.end_time,
        "status": {"code": span.status.status_code.name, "description": span.status.description},
        "attributes": dict(span.attributes or {}),
        "events": [
            {"name": e.name, "time_unix_nano": e.timestamp, "attributes": dict(e.attributes or {})}
            for e in span.events
        ],
        "links": [
            {
                "trace_id": f"{link.context.trace_id:032x}",
                "span_id": f"{link.context.span_id:016x}",
                "attributes": dict(link.attributes or {}),
            }
            for link in span.links
        ],
        "resource": resource if resource is not None else dict(span.resource.attributes),
        "scope": scope if scope is not None else _scope_name(span),
    }


def _scope_name(span: ReadableSpan) -> str | None:
    return span.instrumentation_scope.name if span.instrumentation_scope else None


class JsonLinesSpanExporter(SpanExporter):
    """Appends each span as one JSON line to ``path`` (created 0600, its folder 0700)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Append the batch; one write per batch, so a crash leaves whole lines behind."""
        if not spans:
            return SpanExportResult.SUCCESS
        resource = dict(spans[0].resource.attributes)  # one provider: one resource per batch
        scope = _scope_name(spans[0])
        lines = b"".join(
            orjson.dumps(span_to_dict(span, resource, scope), default=str, option=_NEWLINE)
            for span in spans
        )
        try:
            with (
                self._lock,
                traces_locked(self.path.parent),
                private_file(self.path).open("ab") as file,
            ):
                file.write(lines)
        except OSError:
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Nothing to release: the file is opened per batch."""

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Every batch is written when exported."""
        return True


class JsonLinesMetricExporter(MetricExporter):
    """Appends each metrics export as one JSON line (OTLP-JSON shaped) to ``path`` (created
    0600, its folder 0700)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self._lock = threading.Lock()

    def export(
        self, metrics_data: MetricsData, timeout_millis: float = 10_000, **kwargs: Any
    ) -> MetricExportResult:
        """Append the export as one line."""
        try:
            with (
                self._lock,
                traces_locked(self.path.parent),
                private_file(self.path).open("a", encoding="utf-8") as file,
            ):
                file.write(metrics_data.to_json(indent=None) + "\n")
        except OSError:
            return MetricExportResult.FAILURE
        return MetricExportResult.SUCCESS

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        """Every export is written when made."""
        return True

    def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
        """Nothing to release."""
