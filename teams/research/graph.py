"""``build_research_team``: planner -> workers (Send) -> aggregator -> reviewer loop -> answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import StateGraph

from framework.engine.builder import TeamSettings, build_team
from framework.engine.roles import Roles
from framework.memory import Corpus, ResearchMemory, SemanticStore
from policies.reflection import ConfidenceReached, NoProgress
from policies.retry import transient_retry
from teams.research.facts import facts_namespace
from teams.research.model_roles import build_model_roles
from teams.research.offline import (
    CorpusSearchWorker,
    CoverageReviewer,
    EvidenceAggregator,
    EvidenceCurator,
    RememberingWorker,
    ReportFormatter,
    SubQuestionPlanner,
)
from teams.research.prompts import ResearchPrompts

__all__ = ["DEFAULT_SETTINGS", "build_research_team", "model_roles", "offline_roles"]

DEFAULT_SETTINGS = TeamSettings(
    name="research",
    max_parallel=8,
    max_iterations=3,
    retry=transient_retry(),
    stop_rules=(ConfidenceReached(0.8), NoProgress(rounds=2)),
)
"""Research defaults: 8 workers at once, 3 review rounds, stop at 0.8 confidence or no progress."""


def offline_roles(
    corpus: Corpus, store: SemanticStore | None = None, memory: ResearchMemory | None = None
) -> Roles:
    """The offline roles: semantic search over ``corpus``, facts kept in ``store``, the evidence
    found stored in research ``memory`` when one is given."""
    return Roles(
        planner=SubQuestionPlanner(corpus),
        worker=CorpusSearchWorker(corpus, memory=memory),
        aggregator=EvidenceAggregator(),
        reviewer=CoverageReviewer(),
        curator=EvidenceCurator(store, namespace=facts_namespace(memory)),
        formatter=ReportFormatter(),
    )


def model_roles(
    model: BaseChatModel,
    corpus: Corpus,
    store: SemanticStore | None = None,
    memory: ResearchMemory | None = None,
    prompts: ResearchPrompts | None = None,
    *,
    kinds: Mapping[str, str] | None = None,
) -> Roles:
    """The model-backed roles: structured output and a tool-calling worker over ``corpus``; the
    evidence the worker finds is stored in research ``memory`` when one is given. ``prompts``
    are the system prompts (the packaged defaults when None); the planner chooses among the
    worker ``kinds`` when given."""
    roles = build_model_roles(
        model, corpus, store, prompts, kinds=kinds, facts=facts_namespace(memory)
    )
    if memory is None:
        return roles
    return replace(roles, worker=RememberingWorker(roles.worker, memory))


def build_research_team(
    roles: Roles, settings: TeamSettings | None = None, **overrides: Any
) -> StateGraph[Any, Any, Any, Any]:
    """The research team's graph (uncompiled), on :data:`DEFAULT_SETTINGS` plus ``overrides``."""
    return build_team(roles, replace(settings or DEFAULT_SETTINGS, **overrides))
