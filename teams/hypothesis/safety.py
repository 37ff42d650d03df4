"""The final check before the report: no value is confirmed against retrieved evidence.

Every confirmed hypothesis is read against all of the run's evidence, not only what it cites.
A piece of evidence stands against it when, about the same subject and attribute, it states
another value or rejects its value (:func:`~teams.language.contradiction.stated_otherwise`:
other figures, amounts, dates, names, words in the place of a value, figures the readers
cannot compare, a negation of nearly the same words). The hypothesis stays
confirmed only when each such piece is decided, in this order, and the report says by what:

1. a conflict the resolver settled for the hypothesis's side;
2. a correction that upholds the hypothesis's value or rejects the other one;
3. a later dated source that states the hypothesis's value;
4. a majority: more files state its value than state others (two at least).

Anything else holds it back: it is reported unresolved, with the evidence that stops it.
Figures in a form the readers do not know are held back whatever else is said.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from framework.memory import Conflict, EvidenceRecord, Hypothesis, ResearchMemory
from teams.hypothesis.evidence import run_evidence
from teams.hypothesis.state import HypothesisState
from teams.hypothesis.verdicts import upheld_side
from teams.language.contradiction import agrees, correction_of, stated_otherwise

__all__ = ["Check", "check_findings", "standing_against"]

_UNCOMPARABLE = "values that cannot be compared"
_SETTLED = "the settled conflict"


@dataclass(frozen=True, kw_only=True)
class Check:
    """The final check of one confirmed hypothesis: held back or not, and why.

    ``against`` are the sources stating otherwise; ``decided`` says what let the hypothesis
    through over them, less the conflicts the report already shows settled ("" when nothing
    else decided, or it is held back).
    """

    hypothesis: Hypothesis
    held: bool
    reason: str = ""
    against: tuple[str, ...] = ()
    decided: str = ""


def standing_against(statement: str, evidence: EvidenceRecord) -> str | None:
    """Why ``evidence`` stands against ``statement`` (another value, a rejection), or None."""
    return None if evidence.text == statement else stated_otherwise(statement, evidence.text)


def check_findings(state: HypothesisState, memory: ResearchMemory) -> list[Check]:
    """The check of every confirmed hypothesis of ``state`` against the run's evidence."""
    conflicts = [c for c in (state.get("conflicts") or {}).values() if c.status == "resolved"]
    ground = _Ground(memory, run_evidence(memory, state), conflicts)
    return [
        ground.check(h) for h in (state.get("hypotheses") or {}).values() if h.status == "confirmed"
    ]


@dataclass(frozen=True)
class _Ground:
    """What a hypothesis is checked against: the run's evidence and its settled conflicts."""

    memory: ResearchMemory
    pool: Sequence[EvidenceRecord]
    conflicts: Sequence[Conflict]

    def check(self, h: Hypothesis) -> Check:
        against = [
            (e, why) for e in self.pool if (why := standing_against(h.statement, e)) is not None
        ]
        if not against:
            return Check(hypothesis=h, held=False)
        sources = tuple(dict.fromkeys(e.source for e, _ in against))
        ids = {e.id for e, _ in against}
        support = [e for e in self.pool if e.id not in ids and _states(h, e)]
        majority = _majority(support, [e for e, _ in against])
        decisions = []
        for evidence, why in against:
            if why.startswith(_UNCOMPARABLE):  # only a conflict over this very evidence decides
                settled = (self._settled(h, evidence, c, exact=True) for c in self.conflicts)
                decided = next((d for d in settled if d is not None), None)
            else:
                decided = self._decided(h, evidence, support) or majority
            if not decided:
                reason = f"{evidence.source} states otherwise: {why}"
                return Check(hypothesis=h, held=True, reason=reason, against=sources)
            decisions.append(decided)
        shown = [d for d in dict.fromkeys(decisions) if not d.startswith(_SETTLED)]
        return Check(hypothesis=h, held=False, against=sources, decided="; ".join(shown))

    def _decided(
        self, h: Hypothesis, evidence: EvidenceRecord, support: Sequence[EvidenceRecord]
    ) -> str | None:
        """What decides for ``h`` over ``evidence``: a settled conflict, a correction (not when
        ``evidence`` corrects ``h`` in its turn: two sources each correcting the other decide
        nothing), a later source; None when none of them does."""
        for conflict in self.conflicts:
            settled = self._settled(h, evidence, conflict)
            if settled is not None:
                return settled
        rejoined = correction_of(evidence.text, h.statement, evidence.text) == evidence.text
        for other in self.pool:  # unless the evidence corrects ``h`` in its turn
            nearby = other.path is not None and other.path == evidence.path
            if not rejoined and (
                other.id != evidence.id
                and correction_of(other.text, h.statement, evidence.text, nearby=nearby)
                == h.statement
            ):
                return f"the correction in {other.source}"
        if evidence.date is not None:
            later = [s for s in support if s.date is not None and s.date > evidence.date]
            if later:
                return f"the later source {later[0].source} ({later[0].date})"
        return None

    def _settled(
        self, h: Hypothesis, evidence: EvidenceRecord, conflict: Conflict, *, exact: bool = False
    ) -> str | None:
        """The resolution of ``conflict`` when it upheld ``h``'s side over ``evidence``'s (over
        ``evidence`` itself when ``exact``: values that cannot be compared are settled only by
        the conflict between them)."""
        a, b = self.memory.evidence([conflict.source_a, conflict.source_b])
        resolved_by = [conflict.resolved_by] if conflict.resolved_by else []
        decisive = next(iter(self.memory.evidence(resolved_by)), None)
        upheld = upheld_side(conflict, a, b, decisive)
        if upheld is None:
            return None
        lost = b if upheld.id == a.id else a
        ours = upheld.id in h.supporting or _states(h, upheld)
        theirs = lost.id == evidence.id or (not exact and agrees(lost.text, evidence.text))
        return f"{_SETTLED} ({conflict.resolution})" if ours and theirs else None


def _states(h: Hypothesis, evidence: EvidenceRecord) -> bool:
    """Whether ``evidence`` states the hypothesis's value (it is cited for it, or agrees)."""
    if evidence.text == h.statement:
        return True
    return evidence.id in h.supporting or agrees(h.statement, evidence.text)


def _majority(support: Sequence[EvidenceRecord], against: Sequence[EvidenceRecord]) -> str:
    """ "N files against M" when more files state the value than state others (two at least),
    else ""."""
    ours = {e.path or e.source for e in support}
    theirs = {e.path or e.source for e in against}
    if len(ours) >= 2 and len(ours) > len(theirs):
        return f"a majority of independent sources ({len(ours)} files against {len(theirs)})"
    return ""
