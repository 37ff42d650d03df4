"""The coordinator a team file's ``phases:`` declare, built on the MetaCoordinator's steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.graph import StateGraph

from framework.engine.team_worker import TeamWorker
from framework.kinds.team_file import TeamFile
from framework.kinds.team_phases import ASSESSORS
from framework.runs.teams import TeamSetup
from teams.meta.app import assessors
from teams.meta.graph import build_coordinator
from teams.meta.steps import Assess, Intake, NestedTeam, Notes, Step

__all__ = ["phased_team"]


def phased_team(
    spec: TeamFile, setup: TeamSetup, subteam: Callable[[str, TeamSetup], TeamWorker]
) -> StateGraph[Any, Any, Any, Any]:
    """The coordinator of ``spec``'s phases in order: ``intake``, each ``team:`` phase a
    nested team (``subteam(step, setup)``), each ``assess:`` phase its assessors (model-backed
    given ``--model``); after an assessor, a last step appends their notes to the answer."""
    chosen = assessors(setup.model)
    steps: list[Step] = []
    for phase in spec.phases:
        if phase.intake:
            steps.append(Intake())
        elif phase.team is not None:
            steps.append(NestedTeam(phase.steps[0], subteam(phase.steps[0], setup)))
        else:
            steps += [Assess(ASSESSORS[name], chosen[name]) for name in phase.assess]
    if any(isinstance(step, Assess) for step in steps):
        steps.append(Notes())
    return build_coordinator(steps, setup.middleware, team=spec.name)
