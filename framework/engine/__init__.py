"""The engine: how a team runs (state and its merge rules, records, typed routing, roles, the
builder, node middleware, node bodies, retrying, dispatch limits, stop rules, worker kinds, a
team as a worker kind and where it nests in the tree, the YAML reader of team, policy and
retention files).

It may import only :mod:`framework.errors` and the records and review points a team's state and
graph hold (:mod:`framework.review`, :mod:`framework.policy` records); never storage, runs,
retention, the server, the fleet or the CLI. Names load on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.engine.builder import (
        NODES,
        PLANNER_ROUTES,
        REVIEW_POINTS,
        REVIEWER_ROUTES,
        TeamSettings,
        build_team,
        compile_team,
    )
    from framework.engine.concurrency import (
        DispatchLimiter,
    )
    from framework.engine.config_file import (
        Where,
        invalid,
        read_yaml,
        read_yaml_text,
    )
    from framework.engine.middleware import (
        Middleware,
        NodeCall,
        arun_chain,
        check_middleware,
        run_chain,
    )
    from framework.engine.nesting import (
        NESTING_KEY,
        Nesting,
    )
    from framework.engine.records import (
        SCHEMA_VERSION,
        Evidence,
        Finding,
        MemoryFact,
        Plan,
        Provenance,
        Record,
        ReviewDecision,
        ReviewVerdict,
        SourceError,
        Task,
        TaskStatus,
        UsageRecord,
        WorkerResult,
    )
    from framework.engine.retrying import (
        RetryPolicy,
        acall_with_retry,
        backoff_delay,
        call_with_retry,
        is_transient,
    )
    from framework.engine.roles import (
        Aggregator,
        Curator,
        Formatter,
        Planner,
        Reviewer,
        Roles,
        Worker,
        check_roles,
    )
    from framework.engine.routing import (
        CONTROL_SIGNALS,
        ControlSignal,
        read_signal,
        read_step,
    )
    from framework.engine.runtime import (
        NodeContext,
    )
    from framework.engine.state import (
        MESSAGE_LIMIT,
        GovernedState,
        ResultReplacement,
        TaskReplacement,
        TeamState,
        append_unique,
        append_unique_facts,
        bounded_messages,
        merge_by_id,
        merge_results,
        merge_sum,
        merge_tasks,
        to_jsonable,
    )
    from framework.engine.stopping import (
        IterationBound,
        StopRule,
    )
    from framework.engine.team_worker import (
        TeamResult,
        TeamWorker,
        team_result,
    )
    from framework.engine.worker_kinds import (
        WorkerKind,
        WorkerKinds,
        check_worker_kinds,
        planned_kinds,
        task_kinds_of,
    )

__all__ = [
    "CONTROL_SIGNALS",
    "MESSAGE_LIMIT",
    "NESTING_KEY",
    "NODES",
    "PLANNER_ROUTES",
    "REVIEWER_ROUTES",
    "REVIEW_POINTS",
    "SCHEMA_VERSION",
    "Aggregator",
    "ControlSignal",
    "Curator",
    "DispatchLimiter",
    "Evidence",
    "Finding",
    "Formatter",
    "GovernedState",
    "IterationBound",
    "MemoryFact",
    "Middleware",
    "Nesting",
    "NodeCall",
    "NodeContext",
    "Plan",
    "Planner",
    "Provenance",
    "Record",
    "ResultReplacement",
    "RetryPolicy",
    "ReviewDecision",
    "ReviewVerdict",
    "Reviewer",
    "Roles",
    "SourceError",
    "StopRule",
    "Task",
    "TaskReplacement",
    "TaskStatus",
    "TeamResult",
    "TeamSettings",
    "TeamState",
    "TeamWorker",
    "UsageRecord",
    "Where",
    "Worker",
    "WorkerKind",
    "WorkerKinds",
    "WorkerResult",
    "acall_with_retry",
    "append_unique",
    "append_unique_facts",
    "arun_chain",
    "backoff_delay",
    "bounded_messages",
    "build_team",
    "call_with_retry",
    "check_middleware",
    "check_roles",
    "check_worker_kinds",
    "compile_team",
    "invalid",
    "is_transient",
    "merge_by_id",
    "merge_results",
    "merge_sum",
    "merge_tasks",
    "planned_kinds",
    "read_signal",
    "read_step",
    "read_yaml",
    "read_yaml_text",
    "run_chain",
    "task_kinds_of",
    "team_result",
    "to_jsonable",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.engine.builder": (
            "NODES",
            "PLANNER_ROUTES",
            "REVIEWER_ROUTES",
            "REVIEW_POINTS",
            "TeamSettings",
            "build_team",
            "compile_team",
        ),
        "framework.engine.concurrency": ("DispatchLimiter",),
        "framework.engine.config_file": (
            "Where",
            "invalid",
            "read_yaml",
            "read_yaml_text",
        ),
        "framework.engine.middleware": (
            "Middleware",
            "NodeCall",
            "arun_chain",
            "check_middleware",
            "run_chain",
        ),
        "framework.engine.records": (
            "SCHEMA_VERSION",
            "Evidence",
            "Finding",
            "MemoryFact",
            "Plan",
            "Provenance",
            "Record",
            "ReviewDecision",
            "ReviewVerdict",
            "SourceError",
            "Task",
            "TaskStatus",
            "UsageRecord",
            "WorkerResult",
        ),
        "framework.engine.retrying": (
            "RetryPolicy",
            "acall_with_retry",
            "backoff_delay",
            "call_with_retry",
            "is_transient",
        ),
        "framework.engine.roles": (
            "Aggregator",
            "Curator",
            "Formatter",
            "Planner",
            "Reviewer",
            "Roles",
            "Worker",
            "check_roles",
        ),
        "framework.engine.routing": (
            "CONTROL_SIGNALS",
            "ControlSignal",
            "read_signal",
            "read_step",
        ),
        "framework.engine.nesting": ("NESTING_KEY", "Nesting"),
        "framework.engine.runtime": ("NodeContext",),
        "framework.engine.state": (
            "MESSAGE_LIMIT",
            "GovernedState",
            "ResultReplacement",
            "TaskReplacement",
            "TeamState",
            "append_unique",
            "append_unique_facts",
            "bounded_messages",
            "merge_by_id",
            "merge_results",
            "merge_sum",
            "merge_tasks",
            "to_jsonable",
        ),
        "framework.engine.stopping": (
            "IterationBound",
            "StopRule",
        ),
        "framework.engine.team_worker": ("TeamResult", "TeamWorker", "team_result"),
        "framework.engine.worker_kinds": (
            "WorkerKind",
            "WorkerKinds",
            "check_worker_kinds",
            "planned_kinds",
            "task_kinds_of",
        ),
    },
)
