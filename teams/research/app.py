"""The research team as a runnable team (``cadre run --team research``)."""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from framework.memory import ResearchMemory
from framework.runs.teams import TeamSetup
from teams.research.graph import build_research_team, model_roles, offline_roles
from teams.research.prompts import ResearchPrompts

__all__ = ["research_team"]


def research_team(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The research team on the setup's corpus: model-backed when a model is given.

    Its workers store the evidence they find in the research memory of ``setup.memory_scope``;
    it pauses for human review at ``setup.review``. The model-backed roles take their system
    prompts from ``setup.prompts`` (the ``research.*`` roles).
    """
    memory = ResearchMemory(setup.store, scope=setup.memory_scope)
    roles = (
        model_roles(
            setup.model,
            setup.corpus,
            setup.store,
            memory,
            ResearchPrompts.from_registry(setup.prompts),
        )
        if setup.model is not None
        else offline_roles(setup.corpus, setup.store, memory)
    )
    overrides: dict[str, Any] = {"middleware": setup.middleware, "review": setup.review}
    if setup.max_parallel is not None:
        overrides["max_parallel"] = setup.max_parallel
    return build_research_team(roles, **overrides)
