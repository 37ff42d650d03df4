"""cadre's engine: state, records, routing, team builders, runner and errors.

The names below load on first use, so that importing one module of the framework (a
command, the errors) does not import LangGraph's graph machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.builder import TeamSettings, build_team, compile_team
    from framework.errors import (
        CadreError,
        ConfigError,
        ControlSignal,
        ReviewError,
        RunError,
        TransientError,
        WorkerError,
    )
    from framework.middleware import Middleware, NodeCall
    from framework.records import (
        Evidence,
        Finding,
        MemoryFact,
        Plan,
        Provenance,
        ReviewVerdict,
        Task,
        WorkerResult,
    )
    from framework.retrying import RetryPolicy
    from framework.roles import Aggregator, Curator, Formatter, Planner, Reviewer, Roles, Worker
    from framework.runner import RunResult, arun_team, run_team
    from framework.runtime import NodeContext
    from framework.state import TaskReplacement, TeamState
    from framework.stopping import StopRule

__all__ = [
    "Aggregator",
    "CadreError",
    "ConfigError",
    "ControlSignal",
    "Curator",
    "Evidence",
    "Finding",
    "Formatter",
    "MemoryFact",
    "Middleware",
    "NodeCall",
    "NodeContext",
    "Plan",
    "Planner",
    "Provenance",
    "RetryPolicy",
    "ReviewError",
    "ReviewVerdict",
    "Reviewer",
    "Roles",
    "RunError",
    "RunResult",
    "StopRule",
    "Task",
    "TaskReplacement",
    "TeamSettings",
    "TeamState",
    "TransientError",
    "Worker",
    "WorkerError",
    "WorkerResult",
    "arun_team",
    "build_team",
    "compile_team",
    "run_team",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.builder": (
            "TeamSettings",
            "build_team",
            "compile_team",
        ),
        "framework.errors": (
            "CadreError",
            "ConfigError",
            "ControlSignal",
            "ReviewError",
            "RunError",
            "TransientError",
            "WorkerError",
        ),
        "framework.middleware": (
            "Middleware",
            "NodeCall",
        ),
        "framework.records": (
            "Evidence",
            "Finding",
            "MemoryFact",
            "Plan",
            "Provenance",
            "ReviewVerdict",
            "Task",
            "WorkerResult",
        ),
        "framework.retrying": ("RetryPolicy",),
        "framework.roles": (
            "Aggregator",
            "Curator",
            "Formatter",
            "Planner",
            "Reviewer",
            "Roles",
            "Worker",
        ),
        "framework.runner": (
            "RunResult",
            "arun_team",
            "run_team",
        ),
        "framework.runtime": ("NodeContext",),
        "framework.state": (
            "TaskReplacement",
            "TeamState",
        ),
        "framework.stopping": ("StopRule",),
    },
)
