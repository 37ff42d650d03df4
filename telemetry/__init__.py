"""OpenTelemetry spans and metrics for cadre runs.

It plugs into the framework as a run observer (``cadre.observers``) and may import the
framework; the framework never imports it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from telemetry.callbacks import (
        GenAICallbackHandler,
    )
    from telemetry.cli import (
        trace,
    )
    from telemetry.erase import (
        erase_threads,
        expire_traces,
    )
    from telemetry.export import (
        METRICS_FILE_NAME,
        SPANS_FILE_NAME,
        JsonLinesMetricExporter,
        JsonLinesSpanExporter,
        span_to_dict,
        traces_locked,
    )
    from telemetry.instrument import (
        RunPartHandle,
        Telemetry,
    )
    from telemetry.metrics import (
        CadreMetrics,
    )
    from telemetry.middleware import (
        TelemetryMiddleware,
    )
    from telemetry.runs import (
        RunIndex,
        RunPartRecord,
    )
    from telemetry.scope import (
        CURRENT_SCOPE,
        RunScope,
    )
    from telemetry.serde import (
        CountingSerializer,
    )
    from telemetry.settings import (
        ExporterName,
        TelemetrySettings,
        build_meter_provider,
        build_tracer_provider,
    )
    from telemetry.setup import (
        telemetry_for_run,
    )
    from telemetry.span_records import (
        SpanEvent,
        SpanLink,
        SpanRecord,
    )
    from telemetry.spans import (
        ATTR,
        GEN_AI,
        KIND_MODEL,
        KIND_NODE,
        KIND_RUN,
        KIND_STEP,
        KIND_TASK,
        KIND_TEAM,
        KIND_TOOL,
        RUN_SPAN_NAME,
        SCOPE_NAME,
        node_span_name,
        step_span_name,
        task_span_name,
        team_span_name,
    )
    from telemetry.view import (
        SpanFile,
        SpanNode,
        build_tree,
        load_spans,
        read_span_file,
        render_waterfall,
        thread_trees,
        tree_to_json,
    )

__all__ = [
    "ATTR",
    "CURRENT_SCOPE",
    "GEN_AI",
    "KIND_MODEL",
    "KIND_NODE",
    "KIND_RUN",
    "KIND_STEP",
    "KIND_TASK",
    "KIND_TEAM",
    "KIND_TOOL",
    "METRICS_FILE_NAME",
    "RUN_SPAN_NAME",
    "SCOPE_NAME",
    "SPANS_FILE_NAME",
    "CadreMetrics",
    "CountingSerializer",
    "ExporterName",
    "GenAICallbackHandler",
    "JsonLinesMetricExporter",
    "JsonLinesSpanExporter",
    "RunIndex",
    "RunPartHandle",
    "RunPartRecord",
    "RunScope",
    "SpanEvent",
    "SpanFile",
    "SpanLink",
    "SpanNode",
    "SpanRecord",
    "Telemetry",
    "TelemetryMiddleware",
    "TelemetrySettings",
    "build_meter_provider",
    "build_tracer_provider",
    "build_tree",
    "erase_threads",
    "expire_traces",
    "load_spans",
    "node_span_name",
    "read_span_file",
    "render_waterfall",
    "span_to_dict",
    "step_span_name",
    "task_span_name",
    "team_span_name",
    "telemetry_for_run",
    "thread_trees",
    "trace",
    "traces_locked",
    "tree_to_json",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "telemetry.callbacks": ("GenAICallbackHandler",),
        "telemetry.cli": ("trace",),
        "telemetry.erase": (
            "erase_threads",
            "expire_traces",
        ),
        "telemetry.export": (
            "METRICS_FILE_NAME",
            "SPANS_FILE_NAME",
            "JsonLinesMetricExporter",
            "JsonLinesSpanExporter",
            "span_to_dict",
            "traces_locked",
        ),
        "telemetry.instrument": (
            "RunPartHandle",
            "Telemetry",
        ),
        "telemetry.metrics": ("CadreMetrics",),
        "telemetry.middleware": ("TelemetryMiddleware",),
        "telemetry.runs": (
            "RunIndex",
            "RunPartRecord",
        ),
        "telemetry.scope": (
            "CURRENT_SCOPE",
            "RunScope",
        ),
        "telemetry.serde": ("CountingSerializer",),
        "telemetry.settings": (
            "ExporterName",
            "TelemetrySettings",
            "build_meter_provider",
            "build_tracer_provider",
        ),
        "telemetry.setup": ("telemetry_for_run",),
        "telemetry.span_records": (
            "SpanEvent",
            "SpanLink",
            "SpanRecord",
        ),
        "telemetry.spans": (
            "ATTR",
            "GEN_AI",
            "KIND_MODEL",
            "KIND_NODE",
            "KIND_RUN",
            "KIND_STEP",
            "KIND_TASK",
            "KIND_TEAM",
            "KIND_TOOL",
            "RUN_SPAN_NAME",
            "SCOPE_NAME",
            "node_span_name",
            "step_span_name",
            "task_span_name",
            "team_span_name",
        ),
        "telemetry.view": (
            "SpanFile",
            "SpanNode",
            "build_tree",
            "load_spans",
            "read_span_file",
            "render_waterfall",
            "thread_trees",
            "tree_to_json",
        ),
    },
)
