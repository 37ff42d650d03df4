"""The MetaCoordinator as runnable teams: ``--team meta`` (the default, the research team as its
research phase), ``--team meta-hypothesis`` (the hypothesis team as its research phase) and
``--team meta-knowledge`` (the extraction team, then the memory supervisor team)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import StateGraph

from framework.runs.teams import TeamSetup
from teams.extraction.app import extraction_team
from teams.hypothesis.app import hypothesis_team
from teams.meta.assessors import Assessor, CitationCompliance, EvidenceRisk
from teams.meta.graph import Phase, build_phased_coordinator
from teams.meta.model_assessors import ModelCompliance, ModelRisk
from teams.research.app import research_team
from teams.supervisor.app import supervisor_team

__all__ = ["assessors", "meta_coordinator", "meta_hypothesis", "meta_knowledge"]


def assessors(model: BaseChatModel | None) -> dict[str, Assessor]:
    """The assessors by name (``risk``, ``compliance``): model-backed given a model."""
    if model is not None:
        return {"risk": ModelRisk(model), "compliance": ModelCompliance(model)}
    return {"risk": EvidenceRisk(), "compliance": CitationCompliance()}


def _coordinator(
    setup: TeamSetup, phases: Sequence[tuple[str, Phase]]
) -> StateGraph[Any, Any, Any, Any]:
    chosen = assessors(setup.model)
    return build_phased_coordinator(phases, chosen["risk"], chosen["compliance"], setup.middleware)


def meta_coordinator(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The MetaCoordinator around the research team of ``setup``; model-backed given a model."""
    return _coordinator(setup, [("research_team", research_team(setup))])


def meta_hypothesis(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The MetaCoordinator with the hypothesis team as its research phase."""
    return _coordinator(setup, [("research_team", hypothesis_team(setup))])


def meta_knowledge(setup: TeamSetup) -> StateGraph[Any, Any, Any, Any]:
    """The MetaCoordinator that extracts the corpus into the knowledge graph of the setup's
    memory scope (the extraction team), then answers the question from that graph (the memory
    supervisor team), citing the documents; risk and compliance phases check the answer."""
    phases = [
        ("extraction_team", extraction_team(setup)),
        ("supervisor_team", supervisor_team(setup)),
    ]
    return _coordinator(setup, phases)
