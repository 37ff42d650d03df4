"""The policies themselves: tool authorization, PII redaction, budgets, rate limits, approvals,
memory rules, reflection stop rules, retry presets and the policy file reader.

Each is a :class:`framework.policy.Policy` (or a stop rule or retry preset of the engine); the
machinery that asks them at every hook point is :mod:`framework.policy`. A policy returns a
decision; it never reaches into the graph."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from policies.approval import (
        NodeApproval,
    )
    from policies.authorization import (
        ToolAuthorization,
        ToolRule,
    )
    from policies.budgets import (
        Budget,
        Limits,
        Price,
    )
    from policies.config import (
        LoadedPolicies,
        PolicyFile,
        load_policy_file,
        policies_from_text,
    )
    from policies.memory_rules import (
        MemoryValidation,
    )
    from policies.pii import (
        ACTIONS,
        DETECTORS,
        KINDS,
        Detector,
        Finding,
        PiiBlocked,
        Redaction,
        Redactor,
        RegexDetector,
        Span,
    )
    from policies.rate_limits import (
        Rate,
        RateLimit,
    )
    from policies.redaction import (
        TARGETS,
        PiiRedaction,
        Target,
    )
    from policies.reflection import (
        ConfidenceReached,
        NoProgress,
    )
    from policies.retry import (
        NO_RETRY,
        TRANSIENT_ERRORS,
        transient_retry,
    )

__all__ = [
    "ACTIONS",
    "DETECTORS",
    "KINDS",
    "NO_RETRY",
    "TARGETS",
    "TRANSIENT_ERRORS",
    "Budget",
    "ConfidenceReached",
    "Detector",
    "Finding",
    "Limits",
    "LoadedPolicies",
    "MemoryValidation",
    "NoProgress",
    "NodeApproval",
    "PiiBlocked",
    "PiiRedaction",
    "PolicyFile",
    "Price",
    "Rate",
    "RateLimit",
    "Redaction",
    "Redactor",
    "RegexDetector",
    "Span",
    "Target",
    "ToolAuthorization",
    "ToolRule",
    "load_policy_file",
    "policies_from_text",
    "transient_retry",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "policies.approval": ("NodeApproval",),
        "policies.authorization": (
            "ToolAuthorization",
            "ToolRule",
        ),
        "policies.budgets": (
            "Budget",
            "Limits",
            "Price",
        ),
        "policies.config": (
            "LoadedPolicies",
            "PolicyFile",
            "load_policy_file",
            "policies_from_text",
        ),
        "policies.memory_rules": ("MemoryValidation",),
        "policies.pii": (
            "ACTIONS",
            "DETECTORS",
            "KINDS",
            "Detector",
            "Finding",
            "PiiBlocked",
            "Redaction",
            "Redactor",
            "RegexDetector",
            "Span",
        ),
        "policies.rate_limits": (
            "Rate",
            "RateLimit",
        ),
        "policies.redaction": (
            "TARGETS",
            "PiiRedaction",
            "Target",
        ),
        "policies.reflection": (
            "ConfidenceReached",
            "NoProgress",
        ),
        "policies.retry": (
            "NO_RETRY",
            "TRANSIENT_ERRORS",
            "transient_retry",
        ),
    },
)
