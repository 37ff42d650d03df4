"""Telemetry for ``cadre`` commands: the ``cadre.observers`` entry point."""

from __future__ import annotations

from framework.database.home import DataHome
from framework.runs.observe import ObserverOptions
from telemetry.instrument import Telemetry
from telemetry.runs import RunIndex
from telemetry.settings import (
    TelemetrySettings,
    build_meter_provider,
    build_tracer_provider,
)

__all__ = ["telemetry_for_run"]


def telemetry_for_run(home: DataHome, options: ObserverOptions) -> Telemetry:
    """Spans and metrics of a command's runs: JSON lines under the home by default, OTLP when
    ``--otlp-endpoint`` or ``OTEL_EXPORTER_OTLP_ENDPOINT`` says so, the console on request."""
    if options.otlp_endpoint:
        settings = TelemetrySettings(
            exporter="otlp",
            traces_dir=home.traces,
            otlp_endpoint=options.otlp_endpoint,
            capture_content=options.capture_content,
        )
    else:
        settings = TelemetrySettings.from_environment(
            home.traces,
            exporter="console" if options.console else None,
            capture_content=options.capture_content,
        )
    return Telemetry(
        build_tracer_provider(settings),
        build_meter_provider(settings),
        capture_content=settings.capture_content,
        index=RunIndex(home.traces / "runs.sqlite"),
    )
