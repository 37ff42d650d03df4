"""The records of the policy layer: who runs, what a policy decides, what the audit keeps."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import Field

from framework.engine.nesting import place
from framework.engine.records import Record, UsageRecord

__all__ = [
    "ALLOW",
    "HOOKS",
    "Hook",
    "PolicyEntry",
    "Principal",
    "UsageRecord",
    "Verdict",
    "allow",
    "ask",
    "deny",
    "modify",
    "policy_version",
    "recorded_usage",
    "usage_totals",
]

Hook = Literal[
    "before_node",
    "after_node",
    "before_model",
    "after_model",
    "model_failed",
    "before_tool",
    "after_tool",
    "evidence",
    "memory_write",
    "answer",
]
"""Where a policy is asked: around a node, a model call, a tool call; at the texts a worker's
result carries; at a memory write; at the final answer. ``model_failed`` only tells: a model
call raised (what it held can be released); its verdicts are not applied and the error goes
on."""

HOOKS: tuple[Hook, ...] = get_args(Hook)
"""Every hook, in the order a call meets them."""


class Principal(Record):
    """Who a run acts for: a user of a tenant, with the scopes they were granted.

    Attributes:
        user: The user's name.
        tenant: The tenant the user belongs to (hash keys and budgets are per tenant).
        scopes: What the user may do (``db:write``, ``tickets``...); tools name what they need.
    """

    user: str = Field(default="local", min_length=1)
    tenant: str = Field(default="default", min_length=1)
    scopes: frozenset[str] = frozenset()

    def has(self, scope: str) -> bool:
        """Whether the principal holds ``scope`` (``*`` holds every scope)."""
        return scope in self.scopes or "*" in self.scopes


def policy_version(text: str) -> str:
    """The version of a policy file: the first 12 hex digits of its text's SHA-256."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]


Action = Literal["allow", "modify", "deny", "ask"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one policy decides about one call.

    Attributes:
        action: ``allow`` it, ``modify`` it (``value`` replaces what the hook saw), ``deny``
            it (``reason`` says why) or ``ask`` a human (``reason`` is the question).
        value: The replacement, for ``modify``.
        reason: Why (deny, ask), or what was changed (modify); kept in the audit trail, so it
            must not repeat sensitive values.
        wait_s: Seconds to wait before the call goes on (a rate limit); counted as waiting,
            not execution.
        ends_task: A refusal (deny, or ask then rejected) ends the worker task the call runs
            in (a spent budget): a tool worker fails the task with it instead of handing the
            model an error message.
    """

    action: Action
    value: Any = None
    reason: str = ""
    wait_s: float = 0.0
    ends_task: bool = False


ALLOW = Verdict("allow")
"""Let the call go on unchanged."""


def allow(wait_s: float = 0.0) -> Verdict:
    """Let the call go on, after waiting ``wait_s`` seconds."""
    return ALLOW if wait_s <= 0 else Verdict("allow", wait_s=wait_s)


def modify(value: Any, reason: str) -> Verdict:
    """Let the call go on with ``value`` instead; ``reason`` says what changed (no values)."""
    return Verdict("modify", value=value, reason=reason)


def deny(reason: str, *, ends_task: bool = False) -> Verdict:
    """Refuse the call, saying why (``ends_task``: and the worker task it runs in)."""
    return Verdict("deny", reason=reason, ends_task=ends_task)


def ask(question: str, *, ends_task: bool = False) -> Verdict:
    """Pause the run for a human to approve or reject the call (``ends_task``: a rejection
    ends the worker task it runs in)."""
    return Verdict("ask", reason=question, ends_task=ends_task)


EntryAction = Literal["modify", "deny", "ask", "approved", "rejected", "failed", "wait"]


class PolicyEntry(Record):
    """One decision other than allow, as kept in the thread's state.

    Attributes:
        policy: The policy's name.
        hook: Where it decided.
        action: What happened: modify, deny, ask (then approved or rejected by a human),
            failed (the policy raised; the call was refused); ``wait`` (a rate limit's delay,
            its seconds in ``reason``) is told to listeners only, never kept in the trail.
        target: What the call was about: a node, a model, a tool, a memory namespace, answer.
        reason: The policy's reason or what it changed (never the sensitive value).
        at: When, ISO 8601 UTC.
        path: Where in the team hierarchy (subgraph nodes, then the team).
        where: The same in words, as reviews write it (``team top > kind deep (task q0) >
            team leaf``; empty in entries kept before it was recorded).
        node: The node the call ran in.
        task_id: The worker task, when the call ran in one.
        by: ``policy``, or the reviewer who approved or rejected.
    """

    policy: str
    hook: Hook
    action: EntryAction
    target: str
    reason: str = ""
    at: str
    path: list[str] = Field(default_factory=list)
    where: str = ""
    node: str = ""
    task_id: str | None = None
    by: str = "policy"

    @property
    def place(self) -> str:
        """Where it was decided, written as every surface writes a place."""
        return place(self.where, self.path)

    @property
    def id(self) -> str:
        """A stable id: a subgraph handing the trail back to its parent adds no duplicate."""
        key = "\x1f".join(
            (self.policy, self.hook, self.action, self.target, self.at, self.node, self.by)
        )
        return hashlib.sha256(key.encode()).hexdigest()[:16]


def recorded_usage(values: Mapping[str, Any]) -> dict[str, UsageRecord]:
    """Every usage record of a team's state, keyed by node execution: its ``usage`` and what
    its worker results carry that the aggregator has not filed yet."""
    records: dict[str, UsageRecord] = {}
    for result in (values.get("worker_results") or {}).values():
        records.update(result.usage)
    records.update(values.get("usage") or {})
    return records


def usage_totals(values: Mapping[str, Any]) -> dict[str, float]:
    """What a team's state used, summed over its node executions, per-model counts (``@``)
    left out, by name: what ``cadre show`` and the console print."""
    totals: dict[str, float] = {}
    for record in recorded_usage(values).values():
        for key, amount in record.counts.items():
            if "@" not in key:
                totals[key] = totals.get(key, 0.0) + amount
    return dict(sorted(totals.items()))
