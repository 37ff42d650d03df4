"""The policy machinery, not the policies: the hook points every node, model call, tool call,
memory write and answer passes through, the chain that asks each :class:`Policy` in order
(inherited by nested teams), the scope a node execution runs in, governed models and tools, and
the audit trail of decisions, and the names a policy file's rules give (checked against a team).
It decides nothing by itself.

The policies themselves (tool authorization, PII, budgets, rate limits, approvals, memory
rules) and the policy file reader live in the top-level ``policies`` package. This package may
import the engine and the review records; never ``policies``, runs or anything above them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.policy.chain import PolicyChain, check_policies
    from framework.policy.hooks import Call, Policy
    from framework.policy.middleware import PRINCIPAL_KEY, PolicyMiddleware, inherit_policies
    from framework.policy.names import NameReference, TeamNames, unknown_names
    from framework.policy.records import (
        ALLOW,
        HOOKS,
        Hook,
        PolicyEntry,
        Principal,
        UsageRecord,
        Verdict,
        allow,
        ask,
        deny,
        modify,
        recorded_usage,
    )
    from framework.policy.scope import PolicyScope, current_scope
    from framework.policy.wrappers import (
        GovernedChatModel,
        GovernedTool,
        governed,
        model_name,
        tool_scopes,
    )

__all__ = [
    "ALLOW",
    "HOOKS",
    "PRINCIPAL_KEY",
    "Call",
    "GovernedChatModel",
    "GovernedTool",
    "Hook",
    "NameReference",
    "Policy",
    "PolicyChain",
    "PolicyEntry",
    "PolicyMiddleware",
    "PolicyScope",
    "Principal",
    "TeamNames",
    "UsageRecord",
    "Verdict",
    "allow",
    "ask",
    "check_policies",
    "current_scope",
    "deny",
    "governed",
    "inherit_policies",
    "model_name",
    "modify",
    "recorded_usage",
    "tool_scopes",
    "unknown_names",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.policy.scope": ("PolicyScope", "current_scope"),
        "framework.policy.chain": ("PolicyChain", "check_policies"),
        "framework.policy.wrappers": (
            "GovernedChatModel",
            "GovernedTool",
            "governed",
            "model_name",
            "tool_scopes",
        ),
        "framework.policy.hooks": ("Call", "Policy"),
        "framework.policy.middleware": ("PRINCIPAL_KEY", "PolicyMiddleware", "inherit_policies"),
        "framework.policy.names": ("NameReference", "TeamNames", "unknown_names"),
        "framework.policy.records": (
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
            "recorded_usage",
        ),
    },
)
