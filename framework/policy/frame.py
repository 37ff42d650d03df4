"""The policies in force where code runs: set for each node execution, read by governed models,
tools and memory writes.

A context variable carries the :class:`PolicyFrame` of the node being executed, so a model or
tool called from any node (cadre's roles or a platform team's own nodes), and from the threads
and tasks that node starts, is governed by the same chain and audited in the same node's update.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from framework.engine.runtime import NodeContext
from framework.policy.chain import PolicyChain
from framework.policy.hooks import Call
from framework.policy.records import Hook, PolicyEntry, Principal
from framework.review import call_summary, decision_entry, input_summary
from framework.review.points import ask, review_fields, review_path
from framework.review.records import AuditEntry, PolicyReview

__all__ = ["GOVERNING", "PolicyFrame", "current_frame"]

_RECORDS = threading.Lock()
"""Guards every frame's entries, usage and reviews (held for a few appends at a time: one lock
for all is cheaper than one per node execution)."""

Listener = Callable[[PolicyEntry], None]
"""Told of every audit entry (telemetry turns them into span events and metrics)."""


@dataclass(slots=True, kw_only=True)
class PolicyFrame:
    """The policies governing one node execution, and what they decided in it.

    Attributes:
        chain: The policies, outermost team's first.
        principal: Who the run acts for.
        context: The node's context (thread, team, path; the review machinery pauses in it).
        task_id: The worker task the node runs, if any.
        entries: The audit entries of this execution (appended from any thread).
        usage: Counters of this execution: model and tool calls, tokens per model, waits.
        reviews: The review audit entries of the humans a policy asked in this execution.
        listeners: Told of every entry as it is made.
    """

    chain: PolicyChain
    principal: Principal
    context: NodeContext
    task_id: str | None = None
    entries: list[PolicyEntry] = field(default_factory=list)
    usage: dict[str, float] = field(default_factory=dict)
    reviews: list[AuditEntry] = field(default_factory=list)
    listeners: tuple[Listener, ...] = ()
    path: tuple[str, ...] = ()
    """Where in the hierarchy (computed on first use)."""

    def call(
        self, hook: Hook, target: str, value: Any, *, request: Any = None, **extra: Any
    ) -> Call:
        """A :class:`Call` made in this execution."""
        context = self.context
        if not self.path:
            self.path = tuple(review_path(context))
        return Call(
            hook=hook,
            target=target,
            value=value,
            request=request,
            principal=self.principal,
            thread_id=context.thread_id,
            team=context.team,
            node=context.node,
            path=self.path,
            task_id=self.task_id,
            within=context.within(),
            **extra,
        )

    def record(self, policy: str, call: Call, action: Any, reason: str, by: str = "policy") -> None:
        """Keep an audit entry for a decision other than allow, and tell the listeners."""
        entry = _entry(policy, call, action, reason, by, where=self.context.where())
        with _RECORDS:
            self.entries.append(entry)
        self._tell(entry)

    def _tell(self, entry: PolicyEntry) -> None:
        for listener in self.listeners:
            listener(entry)

    def tally(self, counts: Mapping[str, float] | None) -> None:
        """Add ``counts`` to this execution's usage."""
        if not counts:
            return
        with _RECORDS:
            for key, amount in counts.items():
                self.usage[key] = self.usage.get(key, 0.0) + amount

    def waited(self, policy: str, call: Call, seconds: float) -> None:
        """Count a wait a policy imposed (a rate limit), tell the event stream and the
        listeners (a span event with the seconds); a wait is no audit entry."""
        self.tally({"wait_s": seconds})
        self.context.emit("policy_wait", policy=policy, seconds=round(seconds, 3))
        self._tell(_entry(policy, call, "wait", f"{seconds:.3f} s"))

    def ask_human(self, policy: str, call: Call, question: str) -> tuple[str, bool, str]:
        """Pause the run with a policy review; on resume, (reviewer, approved, reason).

        The approval or rejection is also kept in the review audit trail.
        """
        request = PolicyReview(
            policy=policy,
            hook=call.hook,
            target=call.target,
            question=question,
            summary=input_summary(call.value)
            if call.hook == "before_node"
            else call_summary(call.value),
            task_id=call.task_id,
            **review_fields("policy", self.context),
        )
        decision = ask(request, self.context)
        with _RECORDS:
            self.reviews.append(decision_entry(request, decision))
        return decision.reviewer, decision.kind == "approve", decision.reason

    def for_trace(self, text: str) -> str:
        """``text`` as this frame's policies let it into a span."""
        for policy in self.chain.policies:
            text = policy.for_trace(text, self.principal)
        return text

    def extended(self, chain: PolicyChain) -> PolicyFrame:
        """This frame with ``chain``'s policies added after its own (a subteam's), sharing
        the audit and usage of the execution."""
        wider = PolicyFrame(
            chain=self.chain + chain,
            principal=self.principal,
            context=self.context,
            task_id=self.task_id,
            entries=self.entries,
            usage=self.usage,
            listeners=self.listeners,
            reviews=self.reviews,
        )
        return wider


def _entry(
    policy: str, call: Call, action: Any, reason: str, by: str = "policy", *, where: str = ""
) -> PolicyEntry:
    """The entry of ``policy``'s decision about ``call`` made ``where``, stamped now (ISO 8601,
    UTC)."""
    return PolicyEntry(
        policy=policy,
        hook=call.hook,
        action=action,
        target=call.target,
        reason=reason,
        at=datetime.now(UTC).isoformat(timespec="microseconds"),
        path=list(call.path),
        where=where,
        node=call.node,
        task_id=call.task_id,
        by=by,
    )


GOVERNING: ContextVar[PolicyFrame | None] = ContextVar("cadre_policy", default=None)
"""The policies governing the code that runs now (None: ungoverned)."""


def current_frame() -> PolicyFrame | None:
    """The :class:`PolicyFrame` of the node executing now, if it is governed."""
    return GOVERNING.get()


def traced(text: str) -> str:
    """``text`` as the active policies let it into a span (content capture); unchanged
    outside a governed node."""
    frame = GOVERNING.get()
    return text if frame is None else frame.for_trace(text)
