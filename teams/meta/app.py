"""The MetaCoordinator as a runnable team (``cadre run --team meta``, the default)."""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from framework.registry import TeamSetup
from teams.meta.assessors import CitationCompliance, EvidenceRisk
from teams.meta.graph import build_meta_coordinator
from teams.meta.model_assessors import ModelCompliance, ModelRisk
from teams.research.app import research_team

__all__ = ["meta_coordinator"]


def meta_coordinator(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The MetaCoordinator around the research team of ``setup``; model-backed given a model."""
    risk, compliance = (
        (ModelRisk(setup.model), ModelCompliance(setup.model))
        if setup.model is not None
        else (EvidenceRisk(), CitationCompliance())
    )
    return build_meta_coordinator(research_team(setup), risk, compliance, setup.middleware)
