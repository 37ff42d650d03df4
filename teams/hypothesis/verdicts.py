"""What the hypothesis team's roles decide, as small immutable values, and the sides of a conflict.

A role decides; its node applies the decision to research memory, which validates it. So a
model's bad answer is refused by the memory's rules, recorded, and does not fail the run.
"""

from __future__ import annotations

from dataclasses import dataclass

from framework.memory import Conflict, EvidenceRecord, HypothesisStatus
from teams.hypothesis.state import Step
from teams.language.contradiction import (
    DEFAULT_OVERLAP,
    agrees,
    correction_of,
    notice_of_error,
    same_subject,
)
from teams.language.standing import edition_of, retires_itself, written_since

__all__ = [
    "Assessment",
    "ConflictClaim",
    "Decision",
    "Judgment",
    "Resolution",
    "newer_side",
    "side_of",
    "upheld_side",
]


@dataclass(frozen=True, kw_only=True)
class Decision:
    """The supervisor's choice of the next step, why, and whether the rule stood in for a model."""

    step: Step
    reason: str
    fallback: str | None = None
    """Why the rule decided instead of the model (invalid output, a failure), or None."""


@dataclass(frozen=True, kw_only=True)
class Assessment:
    """A judge's view of one hypothesis: proposed when ``hypothesis_id`` is None and unknown."""

    statement: str
    status: HypothesisStatus
    confidence: float
    hypothesis_id: str | None = None
    supporting: tuple[str, ...] = ()
    contradicting: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True, kw_only=True)
class ConflictClaim:
    """Two pieces of evidence (ids) the judge found to disagree."""

    source_a: str
    source_b: str
    description: str


@dataclass(frozen=True, kw_only=True)
class Judgment:
    """What a judge round decided: hypotheses to propose or update, conflicts to open."""

    assessments: tuple[Assessment, ...] = ()
    conflicts: tuple[ConflictClaim, ...] = ()
    notes: tuple[str, ...] = ()
    """What the judge left out and why (a model citing evidence nobody found...)."""


@dataclass(frozen=True, kw_only=True)
class Resolution:
    """How a conflict is settled: decisive evidence (``resolved_by``) or a judgment (None)."""

    conflict_id: str
    resolution: str
    resolved_by: str | None = None


def side_of(
    evidence: EvidenceRecord,
    a: EvidenceRecord,
    b: EvidenceRecord,
    overlap: float = DEFAULT_OVERLAP,
) -> EvidenceRecord | None:
    """The side (``a`` or ``b``) that ``evidence`` upholds, or None: the other document's side
    when it says its own document is out of date ("This page is archived"), the side a
    correction upholds (a notice that another text was wrong or changed upholds what its own
    document states), else the side it agrees with when it does not agree with the other."""
    nearby = evidence.path is not None and evidence.path in (a.path, b.path)
    if nearby and retires_itself(evidence.text):  # "This page is archived": the other stands
        others = [side for side in (a, b) if side.path != evidence.path]
        return others[0] if len(others) == 1 else None
    corrected = correction_of(evidence.text, a.text, b.text, nearby=nearby)
    if corrected is not None:
        return a if corrected == a.text else b
    if nearby and notice_of_error(evidence.text, a.text, b.text):
        own = [side for side in (a, b) if side.path == evidence.path]
        if len(own) != 1:
            return None
        on_subject = same_subject(evidence.text, own[0].text, _NOTICE_OVERLAP)
        return own[0] if on_subject or _line(own[0]) - _line(evidence) == 1 else None
    with_a = evidence.id == a.id or agrees(evidence.text, a.text, overlap)
    with_b = evidence.id == b.id or agrees(evidence.text, b.text, overlap)
    if with_a == with_b:
        return None
    return a if with_a else b


_NOTICE_OVERLAP = 0.3
"""Content-word overlap at which a notice of an error is about its document's statement (a
notice on the line right before a statement is about it whatever its words)."""


def _line(evidence: EvidenceRecord) -> int:
    """The line ``evidence`` cites (``path:line``), or -1."""
    _, _, line = evidence.source.rpartition(":")
    return int(line) if line.isdigit() else -1


def newer_side(a: EvidenceRecord, b: EvidenceRecord) -> EvidenceRecord | None:
    """The more recently dated of two pieces of evidence; else the undated one that tells, in
    the past tense, of a year after the date in the other's title ("renamed when it was rebuilt
    in 2009" against "Theatre notes, 2004"; not against a sentence of the other's opening "In
    1870", an event, not when it was written); else the later edition of one work (by their
    titles: "third edition", "5th edition"); None when none of these orders them."""
    if a.date is not None and b.date is not None and a.date != b.date:
        return a if a.date > b.date else b
    for side, other in ((a, b), (b, a)):
        since = written_since(side.text) if side.date is None else None
        titled = other.date is not None and other.date[:4] in (other.title or "")
        if since is not None and titled and since > int(str(other.date)[:4]):
            return side
    editions = edition_of(a.title or ""), edition_of(b.title or "")
    if None in editions:
        return None
    (rank_a, work_a), (rank_b, work_b) = editions  # type: ignore[misc]
    if work_a != work_b or rank_a == rank_b:
        return None
    return a if rank_a > rank_b else b


def upheld_side(
    conflict: Conflict,
    a: EvidenceRecord,
    b: EvidenceRecord,
    decisive: EvidenceRecord | None,
    overlap: float = DEFAULT_OVERLAP,
) -> EvidenceRecord | None:
    """The side a resolved conflict upheld, or None (open, or a judgment call without a side).

    Decisive evidence upholds the side it agrees with; a judgment without it upholds the newer
    dated source, as the offline resolver's judgment does.
    """
    if conflict.status != "resolved":
        return None
    if decisive is not None:
        return side_of(decisive, a, b, overlap)
    return newer_side(a, b)
