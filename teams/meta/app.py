"""The MetaCoordinator as runnable teams: ``--team meta`` (the default, the research team as its
research phase) and ``--team meta-hypothesis`` (the hypothesis team as its research phase)."""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from framework.registry import TeamSetup
from teams.hypothesis.app import hypothesis_team
from teams.meta.assessors import CitationCompliance, EvidenceRisk
from teams.meta.graph import build_meta_coordinator
from teams.meta.model_assessors import ModelCompliance, ModelRisk
from teams.research.app import research_team

__all__ = ["meta_coordinator", "meta_hypothesis"]


def _coordinator(
    setup: TeamSetup, research: StateGraph[Any, Any, Any, Any]
) -> StateGraph[Any, Any, Any, Any]:
    risk, compliance = (
        (ModelRisk(setup.model), ModelCompliance(setup.model))
        if setup.model is not None
        else (EvidenceRisk(), CitationCompliance())
    )
    return build_meta_coordinator(research, risk, compliance, setup.middleware)


def meta_coordinator(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The MetaCoordinator around the research team of ``setup``; model-backed given a model."""
    return _coordinator(setup, research_team(setup))


def meta_hypothesis(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The MetaCoordinator with the hypothesis team as its research phase."""
    return _coordinator(setup, hypothesis_team(setup))
