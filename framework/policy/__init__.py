"""The policy machinery, not the policies: the hook points every node, model call, tool call,
memory write and answer passes through, the chain that asks each :class:`Policy` in order
(inherited by nested teams), the frame a node execution runs in, governed models and tools, and
the audit trail of decisions, and the names a policy file's rules give (checked against a team).
It decides nothing by itself.

The policies themselves (tool authorization, PII, budgets, rate limits, approvals, memory
rules) and the policy file reader live in the top-level ``policies`` package. This package may
import the engine and the review records; never ``policies``, runs or anything above them.
"""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.policy.chain import *
    from framework.policy.frame import *
    from framework.policy.hooks import *
    from framework.policy.middleware import *
    from framework.policy.names import *
    from framework.policy.records import *
    from framework.policy.wrappers import *

__getattr__, __dir__ = lazy_exports(__name__)
