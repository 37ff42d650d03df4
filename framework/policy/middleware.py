"""``PolicyMiddleware``: the policy chain around every node of the teams it is installed on.

It asks ``before_node`` and ``after_node``, runs ``evidence`` on the worker results an update
carries and ``answer`` on an update that writes the final answer, and makes the chain active
while the node runs, so the models, tools and memory writes the node uses are governed too.
What the execution decided and used goes into its update: ``policy_audit`` (entries),
``usage`` (counters keyed by the execution) and ``audit`` (the review entries of humans a
policy asked). Installed on an outer team, it reaches every team nested in it
(:func:`inherit_policies`); a subteam may add its own, never drop inherited ones.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph

from framework.engine.middleware import Middleware, NodeCall
from framework.engine.nodes.team_node import TeamNode
from framework.engine.records import Task, WorkerResult
from framework.errors import PolicyDenied
from framework.policy._evidence import governed_results
from framework.policy.chain import PolicyChain
from framework.policy.frame import GOVERNING, Listener, PolicyFrame
from framework.policy.hooks import Policy
from framework.policy.records import Principal, UsageRecord, recorded_usage
from framework.review.points import review_path

__all__ = ["PRINCIPAL_KEY", "PolicyMiddleware", "inherit_policies"]

PRINCIPAL_KEY = "cadre_principal"
"""The run config ``configurable`` key of a run's :class:`Principal` (overrides the
middleware's default); a server sets it per request."""


class PolicyMiddleware:
    """Governs node executions with ``policies``, for ``principal`` unless the run names one.

    Args:
        policies: The policies, in the order they are asked.
        principal: Who runs act for when their config names nobody.
        listeners: Told of every audit entry (telemetry: span events and metrics).
    """

    def __init__(
        self,
        policies: Sequence[Policy],
        *,
        principal: Principal | None = None,
        listeners: Iterable[Listener] = (),
    ) -> None:
        self.chain = PolicyChain(policies)
        self.principal = principal or Principal()
        self.listeners = tuple(listeners)
        self._restored: set[str] = set()
        self._lock = threading.Lock()

    @property
    def policies(self) -> tuple[Policy, ...]:
        """The policies, in order."""
        return self.chain.policies

    @property
    def may_pause(self) -> bool:
        """Whether a policy may ask a human in an execution it governs."""
        return any(getattr(policy, "may_ask", True) for policy in self.chain.policies)

    def wrap(self, call: NodeCall, proceed: Callable[[], Any]) -> Any:
        """Govern a sync node execution."""
        frame, outermost = self._frame(call)
        if frame.chain.redacts_traces:  # the widest chain redacts spans
            call.context.trace_filters[:] = [frame.for_trace]
        token = GOVERNING.set(frame)
        try:
            if self.chain.decides("before_node"):
                self.chain.run(frame.call("before_node", call.node, call.input), frame)
            update = self._after(proceed(), call, frame)
        except PolicyDenied as denied:
            update = _refused(call, denied)
        finally:
            GOVERNING.reset(token)
        return _with_records(update, call, frame) if outermost else update

    async def awrap(self, call: NodeCall, proceed: Callable[[], Awaitable[Any]]) -> Any:
        """Govern an async node execution."""
        frame, outermost = self._frame(call)
        if frame.chain.redacts_traces:  # the widest chain redacts spans
            call.context.trace_filters[:] = [frame.for_trace]
        token = GOVERNING.set(frame)  # no context manager: an async fan-out keeps one per task
        try:
            if self.chain.decides("before_node"):  # no local: it would live as long as the node
                await self.chain.arun(frame.call("before_node", call.node, call.input), frame)
            update = self._after(await proceed(), call, frame)
        except PolicyDenied as denied:
            update = _refused(call, denied)
        finally:
            GOVERNING.reset(token)
        return _with_records(update, call, frame) if outermost else update

    def _after(self, update: Any, call: NodeCall, frame: PolicyFrame) -> Any:
        if self.chain.decides("after_node"):
            after = frame.call("after_node", call.node, update, request=call.input)
            update = self.chain.run(after, frame)
        if self.chain.decides("evidence"):
            task = _task(call.input)
            update = governed_results(update, task.kind if task else call.node, self.chain, frame)
        answered = isinstance(update, Mapping) and isinstance(update.get("final_answer"), str)
        if answered and self.chain.decides("answer"):
            answer = frame.call("answer", "answer", update["final_answer"])
            written = self.chain.run(answer, frame)
            if written is not update["final_answer"]:
                update = {**update, "final_answer": written}
        return update

    def _frame(self, call: NodeCall) -> tuple[PolicyFrame, bool]:
        """The active frame of this execution, and whether this middleware is its outermost
        policy middleware (which writes the records into the update)."""
        outer = GOVERNING.get()
        if outer is not None and outer.context is call.context:
            return outer.extended(self.chain), False
        configurable = call.config.get("configurable") or {}
        principal = configurable.get(PRINCIPAL_KEY)
        self._restore(call)
        task = _task(call.input)
        frame = PolicyFrame(
            chain=self.chain,
            principal=principal if isinstance(principal, Principal) else self.principal,
            context=call.context,
            task_id=task.id if task else None,
            listeners=self.listeners,
        )
        return frame, True

    def _restore(self, call: NodeCall) -> None:
        """Hand a thread's recorded usage to the policies, once per thread and process, from
        the first node whose input is the team's state."""
        thread = call.context.thread_id
        value = call.input
        if thread is None or not isinstance(value, Mapping) or "question" not in value:
            return
        with self._lock:
            if thread in self._restored:
                return
            self._restored.add(thread)
        records = list(recorded_usage(value).values())
        for policy in self.chain.policies:
            policy.restore(thread, records)

    def forget(self, thread_id: str) -> None:
        """Drop what the policies keep of a thread whose run ended; its next run restores its
        usage from its state, as a run resumed in another process does."""
        with self._lock:
            self._restored.discard(thread_id)
        for policy in self.chain.policies:
            policy.forget(thread_id)


def _refused(call: NodeCall, denied: PolicyDenied) -> Any:
    """The update standing for a node a policy refused; the refusal itself where the node has
    none (it stops the run)."""
    if call.refuse is None:
        raise denied
    return call.refuse(str(denied))


def _task(value: Any) -> Task | None:
    """The worker task a node's input holds, if any."""
    task = value.get("task") if isinstance(value, Mapping) else None
    return task if isinstance(task, Task) else None


def _with_records(update: Any, call: NodeCall, frame: PolicyFrame) -> Any:
    """The node's update with the audit entries, usage and review entries of its execution."""
    if not (frame.entries or frame.usage or frame.reviews):
        return update
    if update is None:
        update = {}
    if not isinstance(update, Mapping):
        return update  # a Command or a list of them: the trail is in the events and spans
    added: dict[str, Any] = {}
    if frame.entries:
        added["policy_audit"] = [*update.get("policy_audit", []), *frame.entries]
    if frame.reviews:
        added["audit"] = [*update.get("audit", []), *frame.reviews]
    if frame.usage:
        execution = (call.config.get("configurable") or {}).get("checkpoint_ns") or call.node
        if frame.task_id is not None:  # the tasks of a batch share their Pregel task's namespace
            execution = f"{execution}/{frame.task_id}"
        record = UsageRecord.model_construct(  # trusted values: no validation on the hot path
            team=call.team,
            path=review_path(call.context),
            task_id=frame.task_id,
            within=list(call.context.within()),
            counts=dict(frame.usage),
        )
        carried = _carried(update, frame.task_id, execution, record)
        if carried is not None:
            added["worker_results"] = carried
        else:
            added["usage"] = {**update.get("usage", {}), execution: record}
    return {**update, **added}


def _carried(
    update: Mapping[str, Any], task_id: str | None, execution: str, record: UsageRecord
) -> dict[str, WorkerResult] | None:
    """A worker's results with its usage record on its task's result, or None when the update
    is not one task's result. The result carries it to the aggregator, which files it in the
    team's ``usage``: one state write per task instead of two (each write of a fan-out's step
    is handled again at every task's end)."""
    results = update.get("worker_results")
    if task_id is None or not isinstance(results, Mapping) or len(results) != 1:
        return None
    result = results.get(task_id)
    if not isinstance(result, WorkerResult):
        return None
    usage = {**result.usage, execution: record}
    return {task_id: result.model_copy(update={"usage": usage})}


def inherit_policies(
    graph: StateGraph[Any, Any, Any, Any] | CompiledStateGraph[Any, Any, Any, Any],
    middleware: Sequence[Middleware],
) -> None:
    """Install the policy middleware of ``middleware`` on every team node of ``graph`` and of
    the graphs nested in it, before the node's own policies: a coordinator's policies govern
    its teams."""
    inherited = [item for item in middleware if isinstance(item, PolicyMiddleware)]
    if not inherited:
        return
    builder = graph.builder if isinstance(graph, CompiledStateGraph) else graph
    for spec in builder.nodes.values():
        node = spec.runnable
        if isinstance(node, StateGraph | CompiledStateGraph):
            inherit_policies(node, inherited)
            continue
        if not isinstance(node, TeamNode):
            continue
        chain = node.middleware
        missing = [item for item in inherited if item not in chain]
        first = next((i for i, m in enumerate(chain) if isinstance(m, PolicyMiddleware)), None)
        at = len(chain) if first is None else first
        node.middleware = (*chain[:at], *missing, *chain[at:])
