"""Node bodies shared by every planner-workers-reviewer team, and :class:`TeamNode`, the
node that runs a body through the middleware chain. Part of the engine: imports only the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.engine.nodes.aggregator import (
        SUMMARY_LIMIT,
        aggregator_body,
        roll_summary,
    )
    from framework.engine.nodes.closing import (
        curator_body,
        formatter_body,
    )
    from framework.engine.nodes.dispatcher import (
        WorkerInput,
        dispatcher_body,
        route_to_workers,
    )
    from framework.engine.nodes.planner import (
        plan_signal,
        planner_body,
    )
    from framework.engine.nodes.reviewer import (
        apply_stop_rules,
        reviewer_body,
    )
    from framework.engine.nodes.team_node import (
        AsyncBody,
        SlotLimiter,
        SyncBody,
        TeamNode,
    )
    from framework.engine.nodes.worker import (
        WorkerBodies,
    )

__all__ = [
    "SUMMARY_LIMIT",
    "AsyncBody",
    "SlotLimiter",
    "SyncBody",
    "TeamNode",
    "WorkerBodies",
    "WorkerInput",
    "aggregator_body",
    "apply_stop_rules",
    "curator_body",
    "dispatcher_body",
    "formatter_body",
    "plan_signal",
    "planner_body",
    "reviewer_body",
    "roll_summary",
    "route_to_workers",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.engine.nodes.aggregator": (
            "SUMMARY_LIMIT",
            "aggregator_body",
            "roll_summary",
        ),
        "framework.engine.nodes.closing": (
            "curator_body",
            "formatter_body",
        ),
        "framework.engine.nodes.dispatcher": (
            "WorkerInput",
            "dispatcher_body",
            "route_to_workers",
        ),
        "framework.engine.nodes.planner": (
            "plan_signal",
            "planner_body",
        ),
        "framework.engine.nodes.reviewer": (
            "apply_stop_rules",
            "reviewer_body",
        ),
        "framework.engine.nodes.team_node": (
            "AsyncBody",
            "SlotLimiter",
            "SyncBody",
            "TeamNode",
        ),
        "framework.engine.nodes.worker": ("WorkerBodies",),
    },
)
