"""The hypothesis team: a supervisor routes search, judge and resolve rounds over research
memory (hypotheses, conflicts, evidence kept across runs) to a cited report."""

from __future__ import annotations

from framework.engine.records import SourceError
from teams.hypothesis.graph import (
    DEFAULT_SETTINGS,
    NODES,
    build_hypothesis_team,
    model_roles,
    offline_roles,
)
from teams.hypothesis.roles import (
    HypothesisRoles,
    Judge,
    Resolver,
    Searcher,
    Supervisor,
    Synthesizer,
)
from teams.hypothesis.rules import next_step_by_rule
from teams.hypothesis.settings import HypothesisSettings
from teams.hypothesis.sources import corpus_source
from teams.hypothesis.state import HypothesisState, Step

__all__ = [
    "DEFAULT_SETTINGS",
    "NODES",
    "HypothesisRoles",
    "HypothesisSettings",
    "HypothesisState",
    "Judge",
    "Resolver",
    "Searcher",
    "SourceError",
    "Step",
    "Supervisor",
    "Synthesizer",
    "build_hypothesis_team",
    "corpus_source",
    "model_roles",
    "next_step_by_rule",
    "offline_roles",
]
