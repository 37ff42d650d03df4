"""Model and tool call spans, from LangChain callbacks, with the GenAI conventions.

The handler is not put on the graph (a graph-level handler makes LangGraph report every node
task through callbacks: +70 % at 1000 tasks). The telemetry middleware hands it to the chat
models and tools a node calls, through the node's runnable config.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer

from framework.policy.frame import traced
from framework.policy.usage import response_usage
from telemetry.metrics import CadreMetrics
from telemetry.spans import ATTR, GEN_AI, KIND_MODEL, KIND_TOOL

__all__ = ["GenAICallbackHandler"]


def _model_name(serialized: Mapping[str, Any] | None, params: Mapping[str, Any]) -> str:
    for key in ("model", "model_name", "model_id"):
        if params.get(key):
            return str(params[key])
    kwargs = (serialized or {}).get("kwargs") or {}
    return str(kwargs.get("model") or kwargs.get("model_name") or params.get("_type") or "unknown")


def _usage(messages: list[BaseMessage], response: LLMResult) -> dict[str, int]:
    """The call's tokens as the policies count them (what ``cadre show`` sums): the provider's,
    else an estimate marked ``estimated``."""
    generations = [g for generations in response.generations for g in generations]
    return response_usage(messages, generations, response.llm_output)


class GenAICallbackHandler(BaseCallbackHandler):
    """Opens a CLIENT span per chat model call and an INTERNAL span per tool call."""

    run_inline = True  # keep the node's context (its span) in async runs

    def __init__(self, tracer: Tracer, metrics: CadreMetrics, capture_content: bool) -> None:
        self.tracer = tracer
        self.metrics = metrics
        self.capture_content = capture_content
        self._spans: dict[UUID, tuple[trace.Span, str]] = {}
        self._sent: dict[UUID, list[BaseMessage]] = {}
        """What each open model call sent, to estimate its usage when none is reported."""
        self._lock = threading.Lock()

    def _start(
        self,
        run_id: UUID,
        parent_run_id: UUID | None,
        *,
        name: str,
        kind: SpanKind,
        attributes: dict[str, Any],
        label: str,
    ) -> None:
        with self._lock:
            parent = self._spans.get(parent_run_id) if parent_run_id else None
        context = trace.set_span_in_context(parent[0]) if parent else otel_context.get_current()
        enclosing = getattr(trace.get_current_span(context), "attributes", None) or {}
        if ATTR.THREAD_ID in enclosing:
            attributes[ATTR.THREAD_ID] = enclosing[ATTR.THREAD_ID]
        span = self.tracer.start_span(name, context=context, kind=kind, attributes=attributes)
        with self._lock:
            self._spans[run_id] = (span, label)

    def open_span(self, run_id: UUID) -> trace.Span | None:
        """The span of a call still going on (a tool's ``execute_tool`` span); None if none."""
        with self._lock:
            entry = self._spans.get(run_id)
        return entry[0] if entry is not None else None

    def _finish(
        self, run_id: UUID, error: BaseException | None = None
    ) -> tuple[trace.Span, str] | None:
        with self._lock:
            entry = self._spans.pop(run_id, None)
            self._sent.pop(run_id, None)
        if entry is not None and error is not None:
            entry[0].record_exception(error)
            entry[0].set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))
        return entry

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Open the ``chat <model>`` span."""
        model = _model_name(serialized, invocation_params or kwargs.get("invocation_params") or {})
        attributes: dict[str, Any] = {
            ATTR.SPAN_KIND: KIND_MODEL,
            GEN_AI.OPERATION: GEN_AI.OP_CHAT,
            GEN_AI.REQUEST_MODEL: model,
        }
        provider = (metadata or {}).get("ls_provider")
        if provider:
            attributes[GEN_AI.PROVIDER] = provider
        if self.capture_content:
            attributes[GEN_AI.INPUT_MESSAGES] = traced(
                json.dumps(
                    [{"role": m.type, "content": m.content} for m in messages[0]]
                    if messages
                    else [],
                    default=str,
                )
            )
        name = f"chat {model}"
        self._start(
            run_id,
            parent_run_id,
            name=name,
            kind=SpanKind.CLIENT,
            attributes=attributes,
            label=model,
        )
        with self._lock:
            self._sent[run_id] = list(messages[0]) if messages else []

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Close the model span with its token usage (estimated, and marked so, when the
        provider reported none)."""
        with self._lock:
            sent = self._sent.get(run_id, [])
        entry = self._finish(run_id)
        if entry is None:
            return
        span, model = entry
        usage = _usage(sent, response)
        input_tokens, output_tokens = usage["input_tokens"], usage["output_tokens"]
        span.set_attribute(GEN_AI.INPUT_TOKENS, input_tokens)
        span.set_attribute(GEN_AI.OUTPUT_TOKENS, output_tokens)
        if usage.get("estimated"):
            span.set_attribute(ATTR.USAGE_ESTIMATED, True)
        self.metrics.record_tokens(model, input_tokens, output_tokens)
        if self.capture_content:
            texts = [g.text for generations in response.generations for g in generations]
            span.set_attribute(GEN_AI.OUTPUT_MESSAGES, traced(json.dumps(texts, default=str)))
        span.end()

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Close the model span as failed."""
        entry = self._finish(run_id, error)
        if entry is not None:
            entry[0].end()

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Open the ``execute_tool <name>`` span."""
        name = str((serialized or {}).get("name") or kwargs.get("name") or "tool")
        attributes: dict[str, Any] = {
            ATTR.SPAN_KIND: KIND_TOOL,
            GEN_AI.OPERATION: GEN_AI.OP_TOOL,
            GEN_AI.TOOL_NAME: name,
        }
        if self.capture_content:
            attributes[GEN_AI.TOOL_ARGUMENTS] = traced(
                json.dumps(inputs, default=str) if inputs else input_str
            )
        self._start(
            run_id,
            parent_run_id,
            name=f"execute_tool {name}",
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            label=name,
        )

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Close the tool span."""
        entry = self._finish(run_id)
        if entry is None:
            return
        if self.capture_content:
            result = traced(str(getattr(output, "content", output)))
            entry[0].set_attribute(GEN_AI.TOOL_RESULT, result)
        entry[0].end()

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Close the tool span as failed."""
        entry = self._finish(run_id, error)
        if entry is not None:
            entry[0].end()
