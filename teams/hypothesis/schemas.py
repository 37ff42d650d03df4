"""Structured-output schemas of the hypothesis team's model-backed roles.

Like the research team's drafts, they use no literal defaults (only ``None`` and factories) and
no dict fields, so they pass as OpenAI strict JSON schemas. Evidence is named by its
``path:line`` source, which a model can copy from the prompt; the roles map it to ids.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from framework.memory import HypothesisStatus
from teams.hypothesis.state import Step
from teams.research.schemas import ClaimDraft

__all__ = [
    "ClaimDraft",
    "ConflictDraft",
    "HypothesisDraft",
    "JudgmentDraft",
    "QueriesDraft",
    "ResolutionDraft",
    "RouteDraft",
    "SummaryDraft",
]


class RouteDraft(BaseModel):
    """The supervisor's answer: the next step and why."""

    step: Step = Field(description="search, judge, resolve or synthesize")
    reason: str = Field(description="one sentence")


class QueriesDraft(BaseModel):
    """The searcher's answer: short search queries."""

    queries: list[str] = Field(default_factory=list)


class HypothesisDraft(BaseModel):
    """The judge's view of one hypothesis."""

    id: str | None = Field(default=None, description="the id of a listed hypothesis; null if new")
    statement: str = Field(description="the claim, one sentence")
    status: HypothesisStatus
    confidence: float = Field(description="0 to 1")
    supporting: list[str] = Field(default_factory=list, description="listed path:line sources")
    contradicting: list[str] = Field(default_factory=list, description="listed path:line sources")
    note: str | None = None


class ConflictDraft(BaseModel):
    """Two listed sources that contradict each other."""

    source_a: str = Field(description="a listed path:line source")
    source_b: str = Field(description="another listed path:line source")
    description: str = Field(description="what they disagree on")


class JudgmentDraft(BaseModel):
    """The judge's answer: every hypothesis weighed, and the conflicts found."""

    hypotheses: list[HypothesisDraft] = Field(default_factory=list)
    conflicts: list[ConflictDraft] = Field(default_factory=list)


class ResolutionDraft(BaseModel):
    """The resolver's answer for one conflict."""

    decisive_source: str | None = Field(
        default=None, description="the listed path:line source that decides it; null for a judgment"
    )
    resolution: str = Field(description="which side holds and why")


class SummaryDraft(BaseModel):
    """The synthesizer's answer: a few claims, each citing one listed source."""

    claims: list[ClaimDraft] = Field(default_factory=list)
