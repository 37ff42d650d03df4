"""The records of :class:`~framework.memory.research.ResearchMemory`: evidence, hypotheses,
conflicts, and the rules their updates follow."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from framework.engine.records import Record

__all__ = [
    "LEGAL_STATUS_CHANGES",
    "Conflict",
    "ConflictStatus",
    "EvidenceRecord",
    "Hypothesis",
    "HypothesisChange",
    "HypothesisStatus",
    "MemorySummary",
    "ScoredEvidence",
    "conflict_id",
    "evidence_id",
    "hypothesis_id",
    "normalised",
]

HypothesisStatus = Literal["proposed", "validating", "confirmed", "refuted"]
ConflictStatus = Literal["open", "resolved"]

LEGAL_STATUS_CHANGES: dict[str, frozenset[str]] = {
    "proposed": frozenset({"validating", "refuted"}),
    "validating": frozenset({"validating", "confirmed", "refuted"}),
    "confirmed": frozenset({"validating"}),
    "refuted": frozenset({"validating"}),
}
"""For each status, the statuses an update may move a hypothesis to."""

_ISO_DATE = re.compile(r"\d{4}(-\d{2}(-\d{2}([T ][0-9:.+\-Z]*)?)?)?")


def normalised(text: str) -> str:
    """``text`` with its whitespace collapsed and its case folded: what ids are made from."""
    return " ".join(text.split()).casefold()


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def evidence_id(source: str, text: str) -> str:
    """The stable id of evidence: 16 hex digits of sha256 over its source and normalised text."""
    return _digest(source.strip(), normalised(text))[:16]


def hypothesis_id(statement: str) -> str:
    """The stable id of a hypothesis: ``h-`` and 8 hex digits of its normalised statement."""
    return "h-" + _digest(normalised(statement))[:8]


def conflict_id(source_a: str, source_b: str) -> str:
    """The id of the conflict between two evidence ids, the same in either order."""
    return "c-" + _digest(*sorted((source_a, source_b)))[:8]


class EvidenceRecord(Record):
    """A piece of evidence: a passage with where it came from.

    ``id`` is computed from ``source`` and ``text`` when left out, so the same passage from the
    same place always has the same id.
    """

    id: str = Field(default="", description="computed from source and text when left out")
    text: str = Field(min_length=1)
    source: str = Field(min_length=1, description='"path:line" or a url')
    title: str = ""
    date: str | None = Field(default=None, description="ISO date (YYYY, YYYY-MM, YYYY-MM-DD...)")
    authors: list[str] = Field(default_factory=list)
    url: str | None = None
    path: str | None = None
    origin: str = Field(default="", description="the source or tool name that found it")
    stored_by: str = Field(default="", description="the thread id of the run that stored it")

    @model_validator(mode="before")
    @classmethod
    def _fill_id(cls, data: Any) -> Any:
        if isinstance(data, dict) and not str(data.get("id") or "").strip():
            text, source = data.get("text"), data.get("source")
            if isinstance(text, str) and isinstance(source, str):
                return {**data, "id": evidence_id(source, text)}
        return data

    @field_validator("text", "source")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("date")
    @classmethod
    def _iso_date(cls, value: str | None) -> str | None:
        if value is not None and not _ISO_DATE.fullmatch(value.strip()):
            raise ValueError(f"{value!r} is not an ISO date; write it as YYYY-MM-DD")
        return value.strip() if value is not None else None


class ScoredEvidence(Record):
    """Evidence found by a search, with its cosine similarity to the query."""

    evidence: EvidenceRecord
    score: float


class HypothesisChange(Record):
    """One recorded change of a hypothesis: the step that made it and the values it left."""

    step: str = Field(min_length=1, description='the step that made it, e.g. "judge#3"')
    status: HypothesisStatus
    confidence: float = Field(ge=0.0, le=1.0)
    note: str = ""
    at: float = Field(description="unix time")


class Hypothesis(Record):
    """A statement under investigation, with its status, confidence and evidence."""

    id: str = Field(min_length=1)
    statement: str = Field(min_length=1)
    status: HypothesisStatus = "proposed"
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    supporting: list[str] = Field(default_factory=list)
    contradicting: list[str] = Field(default_factory=list)
    history: list[HypothesisChange] = Field(default_factory=list)


class Conflict(Record):
    """Two pieces of evidence that disagree, and how the disagreement was settled."""

    id: str = Field(min_length=1)
    description: str = Field(min_length=1)
    source_a: str = Field(min_length=1, description="evidence id")
    source_b: str = Field(min_length=1, description="evidence id")
    status: ConflictStatus = "open"
    resolution: str | None = None
    resolved_by: str | None = Field(
        default=None, description="the deciding evidence id; None for a judgment"
    )


@dataclass(frozen=True, kw_only=True)
class MemorySummary:
    """Counts of what a research memory holds."""

    evidence: int
    hypotheses: dict[str, int] = field(default_factory=dict)
    """Hypotheses by status (every status present, zero when none)."""
    open_conflicts: int = 0
    resolved_conflicts: int = 0
