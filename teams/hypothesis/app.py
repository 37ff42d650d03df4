"""The hypothesis team as a runnable team (``cadre run --team hypothesis``)."""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from framework.memory import ResearchMemory
from framework.runs.teams import TeamSetup
from teams.hypothesis.graph import build_hypothesis_team, model_roles, offline_roles
from teams.hypothesis.prompts import HypothesisPrompts

__all__ = ["hypothesis_team"]


def hypothesis_team(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The hypothesis team on the setup's corpus, with research memory in the setup's scope.

    Model-backed when the setup has a model (its system prompts from ``setup.prompts``, the
    ``hypothesis.*`` roles), offline otherwise.
    """
    memory = ResearchMemory(setup.store, scope=setup.memory_scope)
    roles = (
        model_roles(
            setup.model,
            memory,
            setup.corpus,
            prompts=HypothesisPrompts.from_registry(setup.prompts),
        )
        if setup.model is not None
        else offline_roles(memory, setup.corpus)
    )
    overrides: dict[str, Any] = {"middleware": setup.middleware}
    if setup.max_parallel is not None:
        overrides["max_parallel"] = setup.max_parallel
    return build_hypothesis_team(roles, **overrides)
