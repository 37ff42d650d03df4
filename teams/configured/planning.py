"""The offline planner of a team file: the analyst's planner, its tasks routed to the file's
kinds."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from framework.engine.records import Plan, Task
from framework.engine.roles import Planner
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState

__all__ = ["RoutingPlanner"]

_WORD = re.compile(r"[a-z0-9]{4,}")
_STEM = 4
"""Words are compared by their first letters (``prices`` and ``pricing`` match)."""


class RoutingPlanner:
    """Plans with ``inner`` and sends each task to the file's kinds its kind routes to.

    The first task (the whole question) goes to each of them, so every kind is asked; each
    other task goes to the one whose name and description share the most words with it (the
    first on a tie). A task sent to several kinds keeps its id for the first and takes
    ``ID-KIND`` for the others.

    Args:
        inner: The planner.
        routes: Its kinds -> the file's kinds, each with the words that describe it (a kind it
            emits and this leaves out is kept).
    """

    def __init__(self, inner: Planner, routes: Mapping[str, Sequence[tuple[str, str]]]) -> None:
        self.inner = inner
        self.routes = {kind: list(targets) for kind, targets in routes.items() if targets}
        self.task_kinds = frozenset(name for targets in routes.values() for name, _ in targets)

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        """The inner plan, its tasks routed."""
        plan = self.inner.plan(state, context)
        tasks = [
            routed
            for index, task in enumerate(plan.tasks)
            for routed in self._routed(task, everywhere=index == 0)
        ]
        return plan.model_copy(update={"tasks": tasks})

    def _routed(self, task: Task, *, everywhere: bool) -> list[Task]:
        targets = self.routes.get(task.kind)
        if targets is None:
            return [task]
        if not everywhere:
            words = _stems(task.description)
            best = max(targets, key=lambda target: len(words & _stems(" ".join(target))))
            return [task.model_copy(update={"kind": best[0]})]
        return [
            task.model_copy(update={"kind": name, "id": task.id if n == 0 else f"{task.id}-{name}"})
            for n, (name, _) in enumerate(targets)
        ]


def _stems(text: str) -> set[str]:
    return {word[:_STEM] for word in _WORD.findall(text.lower())}
