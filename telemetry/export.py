"""Exporters: JSON lines under the data home (the default), OTLP over HTTP, the console."""

from __future__ import annotations

import fcntl
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson
from opentelemetry.sdk.metrics.export import MetricExporter, MetricExportResult, MetricsData
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.trace import StatusCode

from framework.database import out_of_space
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

logger = logging.getLogger("cadre.telemetry")


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
    span: ReadableSpan,
    resource: Mapping[str, Any] | orjson.Fragment | None = None,
    scope: str | None = None,
) -> dict[str, Any]:
    """One span as the JSON object written on its line (tuples stay sequences: JSON arrays);
    ``resource`` may be given already encoded, as an ``orjson.Fragment``, when many spans share
    it."""
    context = span.get_span_context()
    assert context is not None  # a recording SDK span always has one
    parent, status, events, links = span.parent, span.status, span.events, span.links
    return {
        "trace_id": _hex_trace(context.trace_id),
        "span_id": f"{context.span_id:016x}",
        "parent_span_id": _hex_span(parent.span_id) if parent else None,
        "name": span.name,
        "kind": span.kind.name,
        "start_time_unix_nano": span.start_time,
        "end_time_unix_nano": span.end_time,
        "status": _UNSET
        if status.status_code is StatusCode.UNSET and status.description is None
        else {"code": status.status_code.name, "description": status.description},
        "attributes": dict(span.attributes or {}),
        "events": [
            {"name": e.name, "time_unix_nano": e.timestamp, "attributes": dict(e.attributes or {})}
            for e in events
        ]
        if events
        else [],
        "links": [
            {
                "trace_id": _hex_trace(link.context.trace_id),
                "span_id": f"{link.context.span_id:016x}",
                "attributes": dict(link.attributes or {}),
            }
            for link in links
        ]
        if links
        else [],
        "resource": resource if resource is not None else dict(span.resource.attributes),
        "scope": scope if scope is not None else _scope_name(span),
    }


_UNSET = {"code": StatusCode.UNSET.name, "description": None}
"""The status of most spans, one object for all of them (never changed)."""


@lru_cache(maxsize=256)
def _hex_trace(trace_id: int) -> str:
    """A trace id as written: the spans of one run share it, so it is formatted once."""
    return f"{trace_id:032x}"


@lru_cache(maxsize=1024)
def _hex_span(span_id: int) -> str:
    """A parent span id as written: the tasks of a step share their parent."""
    return f"{span_id:016x}"


def _scope_name(span: ReadableSpan) -> str | None:
    return span.instrumentation_scope.name if span.instrumentation_scope else None


class _Appender:
    """Appends whole lines to one trace file, under the folder's lock. An append that fails (a
    full disk) is undone, so no torn line is left, and said once in the log, naming the file,
    what failed and what to do, until an append succeeds again (said too)."""

    def __init__(self, path: Path, what: str) -> None:
        self.path, self.what = path, what
        self._lock = threading.Lock()
        self._failing = False

    def append(self, lines: bytes) -> bool:
        """Append ``lines``; False when they could not be (nothing of them is left)."""
        try:
            with (
                self._lock,
                traces_locked(self.path.parent),
                private_file(self.path).open("ab", buffering=0) as file,
            ):
                start = file.tell()
                try:
                    view = memoryview(lines)
                    while view:
                        view = view[file.write(view) :]
                except OSError:
                    file.truncate(start)
                    raise
        except OSError as error:
            self._said_failure(error)
            return False
        if self._failing:
            self._failing = False
            logger.warning("cadre: %s are saved to %s again", self.what, self.path)
        return True

    def _said_failure(self, error: OSError) -> None:
        if self._failing:
            return
        self._failing = True
        problem = out_of_space(error, self.path) or f"{self.path}: {error.strerror or error}"
        logger.warning(
            "cadre: %s are not saved, and are dropped until this is mended: %s", self.what, problem
        )


class JsonLinesSpanExporter(SpanExporter):
    """Appends each span as one JSON line to ``path`` (created 0600, its folder 0700)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = _Appender(path, "spans")

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Append the batch; one write per batch, so a crash leaves whole lines behind."""
        if not spans:
            return SpanExportResult.SUCCESS
        # one provider: one resource and scope per batch, the resource encoded once
        resource = orjson.Fragment(orjson.dumps(dict(spans[0].resource.attributes)))
        scope = _scope_name(spans[0])
        lines = b"".join(
            orjson.dumps(span_to_dict(span, resource, scope), default=str, option=_NEWLINE)
            for span in spans
        )
        ok = self._file.append(lines)
        return SpanExportResult.SUCCESS if ok else SpanExportResult.FAILURE

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
        self._file = _Appender(path, "metrics")

    def export(
        self, metrics_data: MetricsData, timeout_millis: float = 10_000, **kwargs: Any
    ) -> MetricExportResult:
        """Append the export as one line."""
        ok = self._file.append((metrics_data.to_json(indent=None) + "\n").encode())
        return MetricExportResult.SUCCESS if ok else MetricExportResult.FAILURE

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        """Every export is written when made."""
        return True

    def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
        """Nothing to release."""
