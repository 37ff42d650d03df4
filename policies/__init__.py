"""The policies themselves: tool authorization, PII redaction, budgets, rate limits, approvals,
memory rules, reflection stop rules, retry presets and the policy file reader.

Each is a :class:`framework.policy.Policy` (or a stop rule or retry preset of the engine); the
machinery that asks them at every hook point is :mod:`framework.policy`. A policy returns a
decision; it never reaches into the graph."""

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from policies.approval import *
    from policies.authorization import *
    from policies.budgets import *
    from policies.config import *
    from policies.memory_rules import *
    from policies.pii import *
    from policies.rate_limits import *
    from policies.redaction import *
    from policies.reflection import *
    from policies.retry import *

__getattr__, __dir__ = lazy_exports(__name__)
