"""The extraction team as a runnable team (``cadre run --team extraction``, ``cadre extract``)."""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from framework.knowledge import KnowledgeGraph
from framework.runs.teams import TeamSetup
from teams.extraction.graph import build_extraction_team, model_roles, offline_roles
from teams.extraction.prompts import (
    CARTOGRAPHER_ROLE,
    CARTOGRAPHER_SYSTEM,
    CRITIC_ROLE,
    CRITIC_SYSTEM,
)

__all__ = ["extraction_team"]


def extraction_team(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The extraction team saving into the knowledge graph of the setup's store and memory
    scope; a run without documents in its input extracts the setup's corpus.

    Model-backed when the setup has a model, its prompts the registry's current versions of
    ``cartographer`` and ``critic`` (recorded as used by the run); offline otherwise.
    """
    graph = KnowledgeGraph(setup.store, scope=setup.memory_scope)
    if setup.model is None:
        roles = offline_roles(graph, setup.corpus)
    else:
        roles = model_roles(
            setup.model,
            graph,
            setup.corpus,
            cartographer_prompt=setup.prompts.prompt(CARTOGRAPHER_ROLE, CARTOGRAPHER_SYSTEM).text,
            critic_prompt=setup.prompts.prompt(CRITIC_ROLE, CRITIC_SYSTEM).text,
        )
    overrides: dict[str, Any] = {"middleware": setup.middleware}
    if setup.max_parallel is not None:
        overrides["max_parallel"] = setup.max_parallel
    return build_extraction_team(roles, **overrides)
