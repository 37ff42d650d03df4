"""cadre's engine: state, records, routing, team builders, runner and errors."""

from __future__ import annotations

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
