"""cadre's framework: the names a team is built and run with (state, records, roles, the
builder, the runner, errors), from the layers under it (see docs/architecture.md).

The names below load on first use, so that importing one module of the framework (a
command, the errors) does not import LangGraph's graph machinery; :func:`lazy_exports` gives
any package the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from framework.engine.builder import TeamSettings, build_team, compile_team
    from framework.engine.middleware import Middleware, NodeCall
    from framework.engine.records import (
        Evidence,
        Finding,
        MemoryFact,
        Plan,
        Provenance,
        ReviewVerdict,
        Task,
        WorkerResult,
    )
    from framework.engine.retrying import RetryPolicy
    from framework.engine.roles import (
        Aggregator,
        Curator,
        Formatter,
        Planner,
        Reviewer,
        Roles,
        Worker,
    )
    from framework.engine.routing import ControlSignal
    from framework.engine.runtime import NodeContext
    from framework.engine.state import TaskReplacement, TeamState
    from framework.engine.stopping import StopRule
    from framework.errors import (
        CadreError,
        ConfigError,
        ReviewError,
        RunError,
        TransientError,
        WorkerError,
    )
    from framework.runs.runner import RunResult, arun_team, run_team

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
    "lazy_exports",
    "run_team",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "framework.engine.builder": (
            "TeamSettings",
            "build_team",
            "compile_team",
        ),
        "framework.errors": (
            "CadreError",
            "ConfigError",
            "ReviewError",
            "RunError",
            "TransientError",
            "WorkerError",
        ),
        "framework.engine.middleware": (
            "Middleware",
            "NodeCall",
        ),
        "framework.engine.records": (
            "Evidence",
            "Finding",
            "MemoryFact",
            "Plan",
            "Provenance",
            "ReviewVerdict",
            "Task",
            "WorkerResult",
        ),
        "framework.engine.retrying": ("RetryPolicy",),
        "framework.engine.routing": ("ControlSignal",),
        "framework.engine.roles": (
            "Aggregator",
            "Curator",
            "Formatter",
            "Planner",
            "Reviewer",
            "Roles",
            "Worker",
        ),
        "framework.runs.runner": (
            "RunResult",
            "arun_team",
            "run_team",
        ),
        "framework.engine.runtime": ("NodeContext",),
        "framework.engine.state": (
            "TaskReplacement",
            "TeamState",
        ),
        "framework.engine.stopping": ("StopRule",),
    },
)
