"""The policy layer: hook points every node, model call, tool call, memory write and answer
passes through, one chain inherited by nested teams, decisions kept in an audit trail.

Concrete policies (tool authorization, PII, budgets, rate limits, memory validation) live in
the top-level ``policies`` package; a policy is any :class:`Policy` subclass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.policy.active import Active, active
    from framework.policy.chain import PolicyChain, check_policies
    from framework.policy.hooks import Call, Policy
    from framework.policy.middleware import PRINCIPAL_KEY, PolicyMiddleware, inherit_policies
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
    "Active",
    "Call",
    "GovernedChatModel",
    "GovernedTool",
    "Hook",
    "Policy",
    "PolicyChain",
    "PolicyEntry",
    "PolicyMiddleware",
    "Principal",
    "UsageRecord",
    "Verdict",
    "active",
    "allow",
    "ask",
    "check_policies",
    "deny",
    "governed",
    "inherit_policies",
    "model_name",
    "modify",
    "recorded_usage",
    "tool_scopes",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.policy.active": ("Active", "active"),
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
