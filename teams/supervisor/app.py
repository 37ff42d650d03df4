"""The memory supervisor team as a runnable team (``--team supervisor``, ``cadre ask``)."""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from framework.knowledge import KnowledgeGraph
from framework.runs.teams import TeamSetup
from teams.supervisor.graph import (
    SupervisorSettings,
    build_supervisor_team,
    model_roles,
    offline_roles,
)
from teams.supervisor.prompts import (
    DRAFTER_ROLE,
    DRAFTER_SYSTEM,
    SUPERVISOR_ROLE,
    SUPERVISOR_SYSTEM,
)

__all__ = ["supervisor_team"]


def supervisor_team(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The team over the knowledge graph of the setup's store and memory scope.

    Model-backed when the setup has a model, its prompts the registry's current versions of
    ``supervisor`` and ``supervisor.drafter``; offline otherwise.
    """
    graph = KnowledgeGraph(setup.store, scope=setup.memory_scope)
    if setup.model is None:
        roles = offline_roles(graph)
    else:
        roles = model_roles(
            setup.model,
            graph,
            supervisor_prompt=setup.prompts.prompt(SUPERVISOR_ROLE, SUPERVISOR_SYSTEM).text,
            drafter_prompt=setup.prompts.prompt(DRAFTER_ROLE, DRAFTER_SYSTEM).text,
        )
    return build_supervisor_team(roles, SupervisorSettings(middleware=setup.middleware))
