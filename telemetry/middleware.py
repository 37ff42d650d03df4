"""The telemetry middleware: a span per node execution and per worker ``Send`` task.

Spans start after the node's slot limiter admitted it, so they time execution, not queueing. While a
node runs, its span is current and its runnable config carries the GenAI callback handler, so
model and tool calls made inside become its children.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from contextvars import Token
from functools import lru_cache
from typing import Any

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import var_child_runnable_config
from langgraph.errors import GraphBubbleUp, GraphInterrupt
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, Status, StatusCode, Tracer

from framework.engine.middleware import NodeCall
from telemetry.callbacks import GenAICallbackHandler
from telemetry.light_spans import SpanStarter
from telemetry.metrics import CadreMetrics
from telemetry.run_spans import CURRENT_RUN_SPANS, OpenSpan, RunSpans
from telemetry.spans import (
    ATTR,
    GEN_AI,
    KIND_NODE,
    KIND_TASK,
    node_span_name,
    task_span_name,
)

__all__ = ["TelemetryMiddleware"]


def _callbacks(config: Mapping[str, Any], handler: GenAICallbackHandler) -> Any:
    current = config.get("callbacks")
    if isinstance(current, BaseCallbackManager) and current.handlers:
        manager = current.copy()
        manager.add_handler(handler, inherit=True)
        return manager
    if isinstance(current, list):
        return [*current, handler]
    return [handler]  # LangGraph's manager without handlers: nothing to keep


def _task_namespace(call: NodeCall) -> str:
    """The namespace of a worker task's own execution: a team it runs is a graph there."""
    return str((call.config.get("configurable") or {}).get("checkpoint_ns", ""))


@lru_cache(maxsize=4096)
def _measured(*pairs: tuple[str, Any]) -> Mapping[str, Any]:
    """A measurement's attributes, made once for each set of values: every task of a kind
    shares one (nothing that records a measurement changes its attributes)."""
    return dict(pairs)


def _mark_pause(span: Span, signal: GraphBubbleUp) -> None:
    """Record a pause (an ``interrupt()``) on the node's span, with its review request ids."""
    interrupts = signal.args[0] if isinstance(signal, GraphInterrupt) and signal.args else ()
    ids = [str(item.id) for item in interrupts if getattr(item, "id", None)]
    span.add_event("interrupt", {"cadre.signal": type(signal).__name__})
    if ids:
        span.set_attribute(ATTR.REVIEW_REQUEST_ID, ids[0] if len(ids) == 1 else ids)


class _Execution:
    """One node execution being traced: its span, where it belongs, what its end restores."""

    __slots__ = (
        "call",
        "config_token",
        "outcome",
        "owner",
        "run_spans",
        "span",
        "span_token",
        "started",
        "task",
        "task_ns",
    )

    def __init__(
        self,
        call: NodeCall,
        task: Any,
        span: Span,
        place: tuple[RunSpans | None, OpenSpan | None, str | None],
        tokens: tuple[Token[Context], Token[RunnableConfig | None]],
    ) -> None:
        self.call, self.task, self.span = call, task, span
        self.run_spans, self.owner, self.task_ns = place
        self.span_token, self.config_token = tokens
        self.outcome = "ok"
        self.started = time.perf_counter()

    def failed(self, error: BaseException) -> None:
        """The execution raised: a pause (an ``interrupt()``) or an error."""
        if isinstance(error, GraphBubbleUp):
            _mark_pause(self.span, error)
            self.outcome = "paused"
        else:
            self.span.record_exception(error)
            self.span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))
            self.outcome = "error"


class TelemetryMiddleware:
    """Opens the span of each node execution (or worker task) under its team or step span."""

    may_pause = False
    """Spans ask nobody: the tasks they wrap may run in batches."""

    def __init__(
        self,
        tracer: Tracer,
        metrics: CadreMetrics,
        callbacks: GenAICallbackHandler,
        capture_content: bool,
    ) -> None:
        self.tracer = tracer
        self.spans = SpanStarter(tracer)
        self.metrics = metrics
        self.handler = callbacks
        self.capture_content = capture_content
        self._last_handled: tuple[RunnableConfig, RunnableConfig] | None = None

    def wrap(self, call: NodeCall, proceed: Callable[[], Any]) -> Any:
        """Run a sync node inside its span."""
        execution = self._start(call)
        try:
            return self._finish(execution.span, call, proceed())
        except BaseException as error:
            execution.failed(error)
            raise
        finally:
            self._end(execution)

    async def awrap(self, call: NodeCall, proceed: Callable[[], Awaitable[Any]]) -> Any:
        """Run an async node inside its span."""
        execution = self._start(call)
        try:
            return self._finish(execution.span, call, await proceed())
        except BaseException as error:
            execution.failed(error)
            raise
        finally:
            self._end(execution)

    @staticmethod
    def _place(call: NodeCall) -> dict[str, Any]:
        """Where an execution stands: team, graph namespace, checkpoint, step, agent name."""
        context = call.context
        attributes: dict[str, Any] = {
            ATTR.NODE: call.node,
            ATTR.TEAM: call.team,
            ATTR.CHECKPOINT_NS: context.checkpoint_ns,
            ATTR.WHERE: context.where(),
            GEN_AI.OPERATION: GEN_AI.OP_AGENT,
            GEN_AI.AGENT_NAME: f"{call.team}.{call.node}",
        }
        if context.thread_id is not None:
            attributes[ATTR.THREAD_ID] = context.thread_id
        if context.checkpoint_id is not None:
            attributes[ATTR.CHECKPOINT_ID] = context.checkpoint_id
        step = (call.config.get("metadata") or {}).get("langgraph_step")
        if step is not None:
            attributes[ATTR.STEP] = step
        return attributes

    def _attributes(self, call: NodeCall, task: Any, scoped: bool) -> dict[str, Any]:
        """A node span carries its place; a task span only its own facts when its step span
        (one per dispatch) carries the place for all of them: fewer attributes per task."""
        if task is None:
            attributes = {ATTR.SPAN_KIND: KIND_NODE, **self._place(call)}
            if isinstance(call.input, Mapping) and "iteration" in call.input:
                attributes[ATTR.ITERATION] = call.input["iteration"]
        else:
            attributes = {
                ATTR.SPAN_KIND: KIND_TASK,
                ATTR.NODE: call.node,
                ATTR.TASK_ID: task.id,
                ATTR.TASK_KIND: task.kind,
                ATTR.RETRY_ATTEMPT: task.attempt,
            }
            if call.context.thread_id is not None:
                attributes[ATTR.THREAD_ID] = call.context.thread_id
            if not scoped:
                attributes.update(self._place(call))
        return attributes

    def _start(self, call: NodeCall) -> _Execution:
        """Open the execution's span under its team or step span (or the current span outside
        a run bracket) and make it current, with the GenAI handler in the node's config."""
        run_spans = CURRENT_RUN_SPANS.get()
        task = call.input.get("task") if isinstance(call.input, Mapping) else None
        attributes = self._attributes(call, task, scoped=run_spans is not None)
        owner = None
        if run_spans is not None:
            owner = self._owner(run_spans, call, task)
            attributes[ATTR.TEAM_PATH] = owner.path
            parent, context = owner.span, owner.context
        else:
            context = otel_context.get_current()
            parent = trace.get_current_span(context)
        name = task_span_name(task.id) if task is not None else node_span_name(call.node)
        span = self.spans.start(name, parent, context, attributes)
        task_ns = None
        if run_spans is not None and owner is not None and task is not None:
            task_ns = _task_namespace(call)
            run_spans.task_started(task_ns, span, owner.path)
        span_token = otel_context.attach(trace.set_span_in_context(span))
        tokens = (span_token, var_child_runnable_config.set(self._handled(call.config)))
        return _Execution(call, task, span, (run_spans, owner, task_ns), tokens)

    def _handled(self, config: RunnableConfig) -> RunnableConfig:
        """``config`` with the GenAI handler among its callbacks; the same for the tasks of a
        batch, which share their node's config (one copy per batch, not per task; the last
        one is kept until the next execution)."""
        last = self._last_handled
        if last is not None and last[0] is config:
            return last[1]
        handled: RunnableConfig = {**config, "callbacks": _callbacks(config, self.handler)}
        self._last_handled = (config, handled)
        return handled

    def _end(self, execution: _Execution) -> None:
        """Close the execution's span, restore the context, measure the execution."""
        span, call = execution.span, execution.call
        if self.capture_content:  # at the end: the node's policies redact what it held
            task = execution.task
            content = repr(task if task is not None else call.input)[:4000]
            span.set_attribute(ATTR.INPUT, call.context.for_trace(content))
        var_child_runnable_config.reset(execution.config_token)
        otel_context.detach(execution.span_token)
        if execution.task_ns is not None and execution.run_spans is not None:
            execution.run_spans.task_ended(execution.task_ns)
        span.end()
        self.metrics.node_duration.record(
            time.perf_counter() - execution.started,
            _measured(
                (ATTR.NODE, call.node), (ATTR.TEAM, call.team), ("outcome", execution.outcome)
            ),
        )
        if execution.owner is not None:
            execution.owner.note(time.time_ns())

    @staticmethod
    def _owner(run_spans: RunSpans, call: NodeCall, task: Any) -> OpenSpan:
        """The span a node's span goes under: its team's, or its dispatch's step span."""
        namespace = call.context.checkpoint_ns
        if task is None:
            run_spans.close_steps(namespace)  # a node after the workers: their step is over
            return run_spans.team_for(namespace, call.team)
        return run_spans.step_for(
            namespace,
            call.team,
            str(call.input.get("dispatch_id", "")),
            lambda: TelemetryMiddleware._place(call),
        )

    def _finish(self, span: Span, call: NodeCall, update: Any) -> Any:
        if not isinstance(update, Mapping):
            return update
        signal = update.get("control_signal")
        if signal is not None:
            span.set_attribute(ATTR.CONTROL_SIGNAL, str(signal))
        if "iteration" in update:
            span.set_attribute(ATTR.ITERATION, int(update["iteration"]))
        if "dispatch_id" in update:
            width = len(update.get("tasks") or {})
            span.set_attribute(ATTR.FANOUT, width)
            self.metrics.fanout.record(width, {ATTR.TEAM: call.team})
        retries = (update.get("metrics") or {}).get("retries")
        if retries:
            span.set_attribute(ATTR.RETRIES, int(retries))
            self.metrics.retries.add(int(retries), {ATTR.TEAM: call.team})
        results = update.get("worker_results")
        task = call.input.get("task") if isinstance(call.input, Mapping) else None
        team, task_kind = (ATTR.TEAM, call.team), (ATTR.TASK_KIND, getattr(task, "kind", ""))
        for result in results.values() if isinstance(results, Mapping) else ():  # not a reset
            span.set_attribute(ATTR.TASK_STATUS, result.status)
            self.metrics.tasks_finished.add(
                1, _measured(team, task_kind, (ATTR.TASK_STATUS, result.status))
            )
            if result.status == "failed":
                kind, _, message = (result.error or "Error").partition(": ")
                span.add_event("exception", {"exception.type": kind, "exception.message": message})
                span.set_status(Status(StatusCode.ERROR, result.error))
                self.metrics.tasks_failed.add(1, _measured(team, task_kind))
        if self.capture_content:
            span.set_attribute(ATTR.OUTPUT, call.context.for_trace(repr(update)[:4000]))
        return update
