"""Telemetry settings, and the providers built from them (never installed globally)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    ConsoleMetricExporter,
    MetricExporter,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

from framework.errors import ConfigError
from telemetry.export import (
    METRICS_FILE_NAME,
    SPANS_FILE_NAME,
    JsonLinesMetricExporter,
    JsonLinesSpanExporter,
)

__all__ = ["ExporterName", "TelemetrySettings", "build_meter_provider", "build_tracer_provider"]

ExporterName = Literal["jsonl", "otlp", "console", "none"]
_METRIC_INTERVAL_MS = 60_000  # and on close: a command's metrics leave when it ends


@dataclass(frozen=True, kw_only=True)
class TelemetrySettings:
    """Where spans and metrics go, and whether content (prompts, outputs) goes with them.

    Args:
        exporter: ``jsonl`` (files under ``traces_dir``), ``otlp`` (HTTP/protobuf to
            ``otlp_endpoint`` or the standard ``OTEL_EXPORTER_OTLP_*`` variables),
            ``console``, or ``none``.
        traces_dir: Folder of ``spans.jsonl`` and ``metrics.jsonl`` for the ``jsonl`` exporter.
        otlp_endpoint: Base URL of an OTLP/HTTP receiver (``/v1/traces`` is appended).
        capture_content: Put prompts, outputs and tool arguments in spans (off by default).
        service_name: The ``service.name`` resource attribute.
    """

    exporter: ExporterName = "jsonl"
    traces_dir: Path | None = None
    otlp_endpoint: str | None = None
    capture_content: bool = False
    service_name: str = "cadre"

    def __post_init__(self) -> None:
        if self.exporter == "jsonl" and self.traces_dir is None:
            raise ConfigError("the jsonl exporter needs traces_dir: pass the data home's traces")

    @classmethod
    def from_environment(
        cls,
        traces_dir: Path,
        *,
        exporter: ExporterName | None = None,
        capture_content: bool = False,
    ) -> TelemetrySettings:
        """OTLP when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or the traces one) is set, else JSON lines."""
        endpoint = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or os.environ.get(
            "OTEL_EXPORTER_OTLP_ENDPOINT"
        )
        chosen: ExporterName = exporter or ("otlp" if endpoint else "jsonl")
        return cls(exporter=chosen, traces_dir=traces_dir, capture_content=capture_content)


def _resource(settings: TelemetrySettings) -> Resource:
    return Resource.create({"service.name": settings.service_name})


def _span_exporter(settings: TelemetrySettings) -> SpanExporter | None:
    if settings.exporter == "jsonl":
        assert settings.traces_dir is not None  # checked in __post_init__
        return JsonLinesSpanExporter(settings.traces_dir / SPANS_FILE_NAME)
    if settings.exporter == "otlp":
        endpoint = settings.otlp_endpoint
        return OTLPSpanExporter(endpoint=f"{endpoint.rstrip('/')}/v1/traces" if endpoint else None)
    if settings.exporter == "console":
        return ConsoleSpanExporter()
    return None


def _metric_exporter(settings: TelemetrySettings) -> MetricExporter | None:
    if settings.exporter == "jsonl":
        assert settings.traces_dir is not None
        return JsonLinesMetricExporter(settings.traces_dir / METRICS_FILE_NAME)
    if settings.exporter == "otlp":
        endpoint = settings.otlp_endpoint
        return OTLPMetricExporter(
            endpoint=f"{endpoint.rstrip('/')}/v1/metrics" if endpoint else None
        )
    if settings.exporter == "console":
        return ConsoleMetricExporter()
    return None


def build_tracer_provider(settings: TelemetrySettings) -> TracerProvider:
    """A tracer provider exporting in batches (spans never block nodes); not made global."""
    provider = TracerProvider(resource=_resource(settings))
    exporter = _span_exporter(settings)
    if exporter is not None:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def build_meter_provider(settings: TelemetrySettings) -> MeterProvider:
    """A meter provider with a periodic reader (and a last export on shutdown); not global."""
    exporter = _metric_exporter(settings)
    readers = (
        [PeriodicExportingMetricReader(exporter, export_interval_millis=_METRIC_INTERVAL_MS)]
        if exporter is not None
        else []
    )
    return MeterProvider(resource=_resource(settings), metric_readers=readers)
