"""The policy chain: asks each policy in order, applies its verdict, keeps the audit.

A policy that raises or answers something other than a verdict fails closed: the call is
refused with :class:`~framework.errors.PolicyFailure` naming the policy. ``ask`` pauses the run
with a :class:`~framework.review.records.PolicyReview` through the review machinery; approved,
the call goes on; rejected, it is refused with the reviewer's reason. A refusal whose verdict
``ends_task`` raises :class:`~framework.errors.TaskRefused`: the worker task fails with it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from langgraph.errors import GraphBubbleUp

from framework.errors import ConfigError, PolicyDenied, PolicyFailure, TaskRefused, brief
from framework.policy.hooks import Call, Policy
from framework.policy.records import HOOKS, Hook, Verdict

__all__ = ["Governing", "PolicyChain", "check_policies"]


class Governing(Protocol):
    """What the chain asks of the frame it decides in (a
    :class:`~framework.policy.frame.PolicyFrame`): keep its decisions, ask a human, count."""

    def record(self, policy: str, call: Call, action: Any, reason: str, by: str = "policy") -> None:
        """Keep ``policy``'s decision about ``call`` in the audit."""
        ...

    def waited(self, policy: str, call: Call, seconds: float) -> None:
        """Note that ``policy`` held ``call`` back for ``seconds``."""
        ...

    def ask_human(self, policy: str, call: Call, question: str) -> tuple[str, bool, str]:
        """Ask a reviewer about ``call``: (reviewer, approved, why)."""
        ...

    def tally(self, counts: Mapping[str, float] | None) -> None:
        """Add ``counts`` to the frame's usage."""
        ...


def check_policies(policies: Iterable[object]) -> tuple[Policy, ...]:
    """``policies`` as a tuple, refusing an object that is not a :class:`Policy`.

    Raises:
        ConfigError: An item is not a Policy, or two share a name.
    """
    checked: list[Policy] = []
    for item in policies:
        if not isinstance(item, Policy):
            raise ConfigError(
                f"{item!r} is not a policy: subclass framework.policy.Policy and override the "
                "hooks it decides at"
            )
        checked.append(item)
    names = [item.name for item in checked]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ConfigError(f"policies named {twice} twice: give each policy a unique name")
    return tuple(checked)


class PolicyChain:
    """Policies in order; each hook asks only the policies that decide at it."""

    def __init__(self, policies: Sequence[Policy]) -> None:
        self.policies = check_policies(policies)
        self._at: dict[Hook, tuple[Policy, ...]] = {
            hook: tuple(p for p in self.policies if hook in p.hooks()) for hook in HOOKS
        }
        self.redacts_traces = any(policy.redacts_traces() for policy in self.policies)
        """Whether a policy may change content captured into spans."""
        limits = [limit for p in self.policies if (limit := p.output_limit()) is not None]
        self.output_limit = min(limits) if limits else None
        """The most tokens a model call may write under these policies (None: no limit)."""

    def __add__(self, other: PolicyChain) -> PolicyChain:
        return PolicyChain([*self.policies, *(p for p in other.policies if p not in self.policies)])

    def decides(self, hook: Hook) -> bool:
        """Whether any policy decides at ``hook``."""
        return bool(self._at[hook])

    def tell(self, call: Call) -> None:
        """Tell every policy at ``call``'s hook, applying no verdict (``model_failed``)."""
        for policy in self._at[call.hook]:
            getattr(policy, call.hook)(call)

    def run(self, call: Call, frame: Governing) -> Any:
        """The value ``call`` goes on with, after every policy at its hook (sync).

        Raises:
            PolicyDenied: A policy denied it, or a human rejected it.
            PolicyFailure: A policy raised or answered no verdict.
        """
        value = call.value
        for policy in self._at[call.hook]:
            current = call if value is call.value else replace(call, value=value)
            verdict = _verdict(policy, current, frame)
            if verdict.wait_s > 0:
                frame.waited(policy.name, current, verdict.wait_s)
                time.sleep(verdict.wait_s)
            value = _apply(policy, current, verdict, frame)
        return value

    async def arun(self, call: Call, frame: Governing) -> Any:
        """Async form of :meth:`run`: waits without blocking the event loop."""
        value = call.value
        for policy in self._at[call.hook]:
            current = call if value is call.value else replace(call, value=value)
            verdict = _verdict(policy, current, frame)
            if verdict.wait_s > 0:
                frame.waited(policy.name, current, verdict.wait_s)
                await asyncio.sleep(verdict.wait_s)
            value = _apply(policy, current, verdict, frame)
        return value


def _verdict(policy: Policy, call: Call, frame: Governing) -> Verdict:
    try:
        verdict = getattr(policy, call.hook)(call)
    except GraphBubbleUp:
        raise
    except Exception as error:
        frame.record(policy.name, call, "failed", brief(error))
        raise PolicyFailure(
            f"policy {policy.name!r} failed at {call.hook} on {call.target!r} ({brief(error)}): "
            "the call was refused; fix the policy or its configuration"
        ) from error
    if not isinstance(verdict, Verdict):
        frame.record(policy.name, call, "failed", f"answered {type(verdict).__name__}")
        raise PolicyFailure(
            f"policy {policy.name!r} answered {type(verdict).__name__} at {call.hook}, not a "
            "Verdict: the call was refused; return allow(), modify(), deny() or ask()"
        )
    if verdict.action == "modify" and call.hook == "before_node":
        frame.record(policy.name, call, "failed", "modify at before_node")
        raise PolicyFailure(
            f"policy {policy.name!r} modified a node's input at before_node, which cannot be "
            "changed: deny or ask there, or modify the update at after_node"
        )
    return verdict


def _apply(policy: Policy, call: Call, verdict: Verdict, frame: Governing) -> Any:
    if verdict.action == "allow":
        return call.value
    if verdict.action == "modify":
        frame.record(policy.name, call, "modify", verdict.reason)
        return verdict.value
    refused = TaskRefused if verdict.ends_task else PolicyDenied
    if verdict.action == "deny":
        frame.record(policy.name, call, "deny", verdict.reason)
        raise refused(f"policy {policy.name!r} denied {_what(call)}: {verdict.reason}")
    reviewer, approved, why = frame.ask_human(policy.name, call, verdict.reason)
    if not approved:
        frame.record(policy.name, call, "rejected", why or verdict.reason, by=reviewer)
        raise refused(
            f"{reviewer} rejected {_what(call)} (asked by policy {policy.name!r}): "
            f"{why or 'no reason given'}"
        )
    frame.record(policy.name, call, "approved", verdict.reason, by=reviewer)
    frame.tally(policy.approved(call, reviewer))
    return call.value


_WHAT: dict[Hook, str] = {
    "before_node": "node",
    "after_node": "the update of node",
    "before_model": "a call to model",
    "after_model": "the output of model",
    "before_tool": "a call to tool",
    "after_tool": "the output of tool",
    "evidence": "the evidence of a task of kind",
    "memory_write": "a memory write to",
    "answer": "the answer of",
}


def _what(call: Call) -> str:
    target = call.node if call.hook == "answer" else call.target
    return f"{_WHAT[call.hook]} {target!r}"
