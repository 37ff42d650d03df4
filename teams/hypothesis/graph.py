"""``build_hypothesis_team``: a supervisor routing search, judge and resolve rounds to a report.

```
START -> recall -> supervisor --search--> search --Send x sources--> source --> supervisor
                      |  ^  \\--judge----> judge ----------------------------------^
                      |  +---\\-resolve--> resolve --------------------------------+
                      \\--synthesize--> synthesize -> END
```

The graph is returned uncompiled; compile it once with
:func:`framework.engine.builder.compile_team`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, StateGraph

from framework.engine.concurrency import DispatchLimiter
from framework.engine.nodes.team_node import TeamNode
from framework.errors import ConfigError
from framework.memory import Corpus, ResearchMemory
from teams.hypothesis._apply import judge_body, resolve_body, synthesize_body
from teams.hypothesis._control import recall_body, route_next, supervisor_body
from teams.hypothesis._search import SourceBodies, route_to_sources, search_body
from teams.hypothesis.judging import EvidenceJudge
from teams.hypothesis.model_roles import (
    ModelJudge,
    ModelResolver,
    ModelSearcher,
    ModelSupervisor,
    ModelSynthesizer,
)
from teams.hypothesis.prompts import HypothesisPrompts
from teams.hypothesis.report import ReportSynthesizer
from teams.hypothesis.resolving import DecisiveSourceResolver
from teams.hypothesis.roles import HypothesisRoles
from teams.hypothesis.rules import QueryPlanner, RuleSupervisor
from teams.hypothesis.settings import HypothesisSettings
from teams.hypothesis.sources import corpus_source
from teams.hypothesis.state import STEPS, HypothesisState, SourceInput

__all__ = [
    "DEFAULT_SETTINGS",
    "NODES",
    "build_hypothesis_team",
    "model_roles",
    "offline_roles",
]

NODES = ("recall", "supervisor", "search", "source", "judge", "resolve", "synthesize")
DEFAULT_SETTINGS = HypothesisSettings()
"""Hypothesis defaults: 8 work rounds, judge after 1 new piece of evidence, all sources at once."""


def offline_roles(
    memory: ResearchMemory, corpus: Corpus, extra_sources: Sequence[BaseTool] = ()
) -> HypothesisRoles:
    """The offline roles: the routing rule, the corpus (and ``extra_sources``), no model."""
    return HypothesisRoles(
        memory=memory,
        supervisor=RuleSupervisor(),
        searcher=QueryPlanner((corpus_source(corpus), *extra_sources)),
        judge=EvidenceJudge(memory),
        resolver=DecisiveSourceResolver(memory),
        synthesizer=ReportSynthesizer(memory),
    )


def model_roles(
    model: BaseChatModel,
    memory: ResearchMemory,
    corpus: Corpus,
    extra_sources: Sequence[BaseTool] = (),
    prompts: HypothesisPrompts | None = None,
) -> HypothesisRoles:
    """The model-backed roles on one chat model; the sources are the same tools as offline.
    ``prompts`` are the system prompts (the packaged defaults when None)."""
    prompts = prompts or HypothesisPrompts()
    sources = (corpus_source(corpus), *extra_sources)
    return HypothesisRoles(
        memory=memory,
        supervisor=ModelSupervisor(model, prompts.supervisor),
        searcher=ModelSearcher(model, sources, system=prompts.searcher),
        judge=ModelJudge(model, memory, prompts.judge),
        resolver=ModelResolver(model, memory, prompts.resolver),
        synthesizer=ModelSynthesizer(model, memory, prompts.synthesizer),
    )


def _search_of(payload: SourceInput) -> str:
    return payload["search_id"]


def build_hypothesis_team(
    roles: HypothesisRoles, settings: HypothesisSettings | None = None, **overrides: Any
) -> StateGraph[Any, Any, Any, Any]:
    """The hypothesis team's graph (uncompiled), on ``settings`` (or the defaults) + ``overrides``.

    Raises:
        ConfigError: ``roles`` is not a :class:`HypothesisRoles`, or a setting is invalid.
    """
    if not isinstance(roles, HypothesisRoles):
        raise ConfigError(
            f"build_hypothesis_team needs HypothesisRoles, got {type(roles).__name__}: use "
            "offline_roles(memory, corpus) or model_roles(model, memory, corpus)"
        )
    settings = replace(settings or DEFAULT_SETTINGS, **overrides)
    team, chain = settings.name, settings.middleware
    bodies = {
        "recall": recall_body(roles, settings),
        "supervisor": supervisor_body(roles, settings),
        "search": search_body(roles),
        "judge": judge_body(roles),
        "resolve": resolve_body(roles),
        "synthesize": synthesize_body(roles),
    }
    graph = StateGraph(HypothesisState)
    for name, body in bodies.items():
        graph.add_node(name, TeamNode(name, team, body, middleware=chain))
    sources = SourceBodies(roles)
    slots = (DispatchLimiter(settings.max_parallel), _search_of)
    graph.add_node(
        "source",
        TeamNode(
            "source",
            team,
            sources.run,
            sources.arun,
            middleware=chain,
            slots=slots,
            role=roles.searcher,
        ),
    )
    graph.add_edge(START, "recall")
    graph.add_edge("recall", "supervisor")
    graph.add_conditional_edges("supervisor", route_next, list(STEPS))
    graph.add_conditional_edges(
        "search", route_to_sources(roles, "source", "supervisor"), ["source", "supervisor"]
    )
    for node in ("source", "judge", "resolve"):
        graph.add_edge(node, "supervisor")
    graph.add_edge("synthesize", END)
    return graph
