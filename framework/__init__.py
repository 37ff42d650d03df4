"""cadre's framework: the names a team is built and run with (state, records, roles, the
builder, the runner, errors), from the layers under it (see docs/architecture.md).

The names below load on first use, so that importing one module of the framework (a
command, the errors) does not import LangGraph's graph machinery; :func:`lazy_exports` gives
any package the same.
"""

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports as lazy_exports

if TYPE_CHECKING:
    from framework.engine.builder import TeamSettings as TeamSettings
    from framework.engine.builder import build_team as build_team
    from framework.engine.builder import compile_team as compile_team
    from framework.engine.middleware import Middleware as Middleware
    from framework.engine.middleware import NodeCall as NodeCall
    from framework.engine.records import Evidence as Evidence
    from framework.engine.records import Finding as Finding
    from framework.engine.records import MemoryFact as MemoryFact
    from framework.engine.records import Plan as Plan
    from framework.engine.records import Provenance as Provenance
    from framework.engine.records import ReviewVerdict as ReviewVerdict
    from framework.engine.records import Task as Task
    from framework.engine.records import WorkerResult as WorkerResult
    from framework.engine.retrying import RetryPolicy as RetryPolicy
    from framework.engine.roles import Aggregator as Aggregator
    from framework.engine.roles import Curator as Curator
    from framework.engine.roles import Formatter as Formatter
    from framework.engine.roles import Planner as Planner
    from framework.engine.roles import Reviewer as Reviewer
    from framework.engine.roles import Roles as Roles
    from framework.engine.roles import Worker as Worker
    from framework.engine.routing import ControlSignal as ControlSignal
    from framework.engine.runtime import NodeContext as NodeContext
    from framework.engine.state import TaskReplacement as TaskReplacement
    from framework.engine.state import TeamState as TeamState
    from framework.engine.stopping import StopRule as StopRule
    from framework.errors import CadreError as CadreError
    from framework.errors import ConfigError as ConfigError
    from framework.errors import ReviewError as ReviewError
    from framework.errors import RunError as RunError
    from framework.errors import TransientError as TransientError
    from framework.errors import WorkerError as WorkerError
    from framework.runs.runner import RunResult as RunResult
    from framework.runs.runner import arun_team as arun_team
    from framework.runs.runner import run_team as run_team

__getattr__, __dir__ = lazy_exports(__name__)
