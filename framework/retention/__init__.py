"""Retention: what the threads of a home are doing, pruning old checkpoints, retention rules and
purging a scope (checkpoints, memory and traces). It may import runs and everything below
them; never the server, the fleet or the CLI. Names load on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.retention.pruning import (
        STATUS_LABELS,
        PruneReport,
        ThreadPrune,
        ThreadState,
        ThreadStatus,
        next_nodes,
        prune,
        prune_threads,
        statuses_of,
        thread_statuses,
    )
    from framework.retention.purge import (
        ERASER_GROUP,
        SCOPE_KINDS,
        PurgeReport,
        Scope,
    )
    from framework.retention.rules import (
        EXPIRY_GROUP,
        RULES_FILE_NAME,
        RetentionReport,
        RetentionRules,
        apply_retention,
        read_rules,
    )

__all__ = [
    "ERASER_GROUP",
    "EXPIRY_GROUP",
    "RULES_FILE_NAME",
    "SCOPE_KINDS",
    "STATUS_LABELS",
    "PruneReport",
    "PurgeReport",
    "RetentionReport",
    "RetentionRules",
    "Scope",
    "ThreadPrune",
    "ThreadState",
    "ThreadStatus",
    "apply_retention",
    "next_nodes",
    "prune",
    "prune_threads",
    "read_rules",
    "statuses_of",
    "thread_statuses",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.retention.pruning": (
            "STATUS_LABELS",
            "PruneReport",
            "ThreadPrune",
            "ThreadState",
            "ThreadStatus",
            "next_nodes",
            "prune",
            "prune_threads",
            "statuses_of",
            "thread_statuses",
        ),
        "framework.retention.purge": (
            "ERASER_GROUP",
            "SCOPE_KINDS",
            "PurgeReport",
            "Scope",
        ),
        "framework.retention.rules": (
            "EXPIRY_GROUP",
            "RULES_FILE_NAME",
            "RetentionReport",
            "RetentionRules",
            "apply_retention",
            "read_rules",
        ),
    },
)
