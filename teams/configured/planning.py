"""The offline planner of a team file: the analyst's planner, its kinds renamed to the file's."""

from __future__ import annotations

from collections.abc import Mapping

from framework.engine.records import Plan
from framework.engine.roles import Planner
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState

__all__ = ["RenamingPlanner"]


class RenamingPlanner:
    """Plans with ``inner`` and gives each task the kind ``names`` maps its kind to.

    Args:
        inner: The planner.
        names: Its kinds -> the team's (a kind it emits and this leaves out is kept).
    """

    def __init__(self, inner: Planner, names: Mapping[str, str]) -> None:
        self.inner = inner
        self.names = dict(names)
        self.task_kinds = frozenset(self.names.values())

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        """The inner plan, its tasks' kinds renamed."""
        plan = self.inner.plan(state, context)
        tasks = [
            task.model_copy(update={"kind": self.names.get(task.kind, task.kind)})
            for task in plan.tasks
        ]
        return plan.model_copy(update={"tasks": tasks})
