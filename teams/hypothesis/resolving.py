"""The offline resolver: a correction or a third source decides; else the newer dated source.

A side that rejects the other's value in its own sentence ("31 m, not 37 m as the guide
says") decides first, unless the other rejects its value too. Then decisive evidence is other
evidence close in meaning to either side that either corrects one of them ("a misprint",
"confused it with", "was corrected to"; see :func:`teams.language.contradiction.correction_of`)
or agrees with exactly one of them
(the judge's agreement test) from another document than the side it upholds (a document does
not confirm itself: a line of its own list is no third source); corrections are weighed
first; a document that says it is out of date ("This page is archived") upholds the other.
Without it, the newer dated source is preferred, or the later edition of one work, unless it
only denies the older one's value ("no longer runs every 30 minutes"), which says the value is
out of date but not what it is now. Otherwise nothing decides: the conflict stays open and the
report says so.
"""

from __future__ import annotations

import re

from framework.engine.runtime import NodeContext
from framework.memory import Conflict, EvidenceRecord, ResearchMemory
from teams.hypothesis.verdicts import (
    Resolution,
    newer_side,
    order_reason,
    side_of,
    speaks_of_standing,
    standing_note,
    standing_of,
)
from teams.language.contradiction import (
    DEFAULT_OVERLAP,
    claim_of,
    correction_of,
    notice_of_error,
)
from teams.language.standing import disowned_as, retires_itself, written_since

__all__ = ["DecisiveSourceResolver", "candidates"]


def candidates(
    memory: ResearchMemory,
    a: EvidenceRecord,
    b: EvidenceRecord,
    *,
    n: int = 8,
    similar: float = 0.5,
    correcting: float = 0.2,
) -> list[EvidenceRecord]:
    """Evidence in memory about either side of a conflict, the sides left out: corrections
    (cosine >= ``correcting``: they name the subject in other words; a notice of an error or a
    change in a side's own document at any cosine: "Bylaw 12 is amended as follows.", "This
    page is archived.") first,
    then other evidence (cosine >= ``similar``), best first."""
    found = memory.relevant(a.text, n=n, min_score=-1.0)
    found += memory.relevant(b.text, n=n, min_score=-1.0)
    ranked = sorted(found, key=lambda scored: -scored.score)
    unique: dict[str, EvidenceRecord] = {}
    for scored in ranked:
        record = scored.evidence
        if record.id in (a.id, b.id):
            continue
        beside = record.path is not None and record.path in (a.path, b.path)
        notice = beside and (
            notice_of_error(record.text, a.text, b.text)
            or retires_itself(record.text)
            or speaks_of_standing(record.text)
        )
        correcting_it = scored.score >= correcting or notice
        standing = beside and speaks_of_standing(record.text)
        if scored.score < 0.0 and not standing:  # a line on its page's standing at any cosine
            continue
        if (
            scored.score >= similar
            or standing
            or (correcting_it and claim_of(record.text).correction)
        ):
            unique.setdefault(record.id, record)
    return sorted(unique.values(), key=lambda record: not claim_of(record.text).correction)


class DecisiveSourceResolver:
    """Settles a conflict with a third source, or by judgment, with no model.

    Args:
        memory: The research memory the evidence is in.
        similar: Cosine similarity at which evidence is about the conflict.
        overlap: Content-word overlap of the agreement test.
    """

    def __init__(
        self, memory: ResearchMemory, *, similar: float = 0.5, overlap: float = DEFAULT_OVERLAP
    ) -> None:
        self.memory = memory
        self.similar = similar
        self.overlap = overlap

    def queries(self, conflict: Conflict, a: EvidenceRecord, b: EvidenceRecord) -> list[str]:
        """Search for what each side states."""
        return list(dict.fromkeys([a.text, b.text]))

    def resolve(
        self, conflict: Conflict, a: EvidenceRecord, b: EvidenceRecord, context: NodeContext
    ) -> Resolution | None:
        """A side correcting the other, the first decisive candidate, else the newer dated side,
        else None (stays open)."""
        correcting = [s for s in (a, b) if correction_of(s.text, a.text, b.text) == s.text]
        if len(correcting) == 1 and a.text != b.text:  # each correcting the other decides none
            side = correcting[0]
            other = b if side is a else a
            text = f"{side.source} corrects {other.source} in its own words: {side.text}"
            return Resolution(conflict_id=conflict.id, resolution=text, resolved_by=side.id)
        decided = self._decisive(conflict, a, b)
        if decided is not None:
            return decided
        newer = newer_side(a, b)
        if newer is None:
            return None
        older = b if newer is a else a
        if _only_denies(newer, older):
            return None
        when = (newer.date, older.date) if newer.date and older.date else (newer.title, older.title)
        if newer.date is None and older.date is not None:
            when = (f"telling of {written_since(newer.text)}", older.date)
        text = (
            f"no third source decides; the newer source {newer.source} ({when[0]}) is "
            f"preferred over {older.source} ({when[1]})"
        )
        reason = order_reason(newer, older)
        if reason is not None:
            text = f"no third source decides; {newer.source} {reason}, so it is preferred"
        return Resolution(conflict_id=conflict.id, resolution=text)

    def _decisive(
        self, conflict: Conflict, a: EvidenceRecord, b: EvidenceRecord
    ) -> Resolution | None:
        """The first candidate that decides the conflict: a correction, a line on its
        document's standing ("This page replaces ...", "Status: draft"), or agreement from
        another document."""
        found = candidates(self.memory, a, b, similar=self.similar)
        finals = {e.path for e in found if standing_note(e.text, "") == "final"}
        drafts = {e.path for e in found if standing_note(e.text, "") == "draft"}
        for evidence in found:
            other_path = b.path if evidence.path == a.path else a.path
            final = other_path in finals and other_path not in drafts
            if standing_note(evidence.text, "") == "draft" and not final:
                continue  # a draft is set aside only against a page marked final
            upheld = side_of(evidence, a, b, self.overlap)
            correction = claim_of(evidence.text).correction
            ordered = standing_of(evidence, a, b)
            note = ordered[0] if ordered is not None and ordered[1] is upheld else None
            if upheld is None or (not correction and not note and _same_document(evidence, upheld)):
                continue
            if note is not None and not correction:
                rejected = b if upheld is a else a
                how = (
                    f"{_standing_how(note, evidence, rejected, upheld)}, upholding {upheld.source}"
                )
            elif correction:
                rejected = b if upheld is a else a
                how = f"corrects {rejected.source}, upholding {upheld.source}"
                if disowned := disowned_as(evidence.text):
                    how = f"says {rejected.source} {disowned}, upholding {upheld.source}"
            else:
                how = f"agrees with {upheld.source}"
            text = f"{evidence.source} {how}: {evidence.text}"
            return Resolution(conflict_id=conflict.id, resolution=text, resolved_by=evidence.id)
        return None


def _standing_how(
    note: str, evidence: EvidenceRecord, rejected: EvidenceRecord, upheld: EvidenceRecord
) -> str:
    """How a line on its document's standing (``note``, :func:`standing_of`) orders it."""
    if note == "draft":
        return "says its document is a draft"
    if note == "earlier":
        return f"gives {rejected.source}'s figure as its page's figure of an earlier year"
    if note == "updated":
        return f"tells of an update after {rejected.source} was dated"
    if note == "expired" and re.search(r"\breview\b", evidence.text, re.IGNORECASE):
        return f"says its document was due for review before {upheld.source}'s date"
    if note == "expired":
        return f"says its document held only until a date before {upheld.source}'s"
    return f"says its document replaces {rejected.source}"


def _only_denies(newer: EvidenceRecord, older: EvidenceRecord) -> bool:
    """Whether ``newer`` denies the value ``older`` states and states none of its own ("The
    ferry no longer runs every 30 minutes." against "The ferry runs every 30 minutes."): it
    says the value is out of date, not what it is now, so the date decides nothing. A denial
    of a fact with no value ("is not open on Mondays") answers what it denies."""
    denial, stated = claim_of(newer.text), claim_of(older.text)
    labels = {value.label for value in stated.values}
    own = {value.label for value in denial.values} - labels
    measured = any(value.kind in _MEASURED for value in stated.values)
    return denial.negated and measured and not own


_MEASURED = frozenset({"quantity", "count", "money", "date", "time", "ordinal"})
"""Kinds of value a denial leaves unknown ("no longer every 30 minutes": how often, then?); a
weekday or a category denied ("not open on Mondays") is answered by the denial."""


def _same_document(first: EvidenceRecord, second: EvidenceRecord) -> bool:
    """Whether two pieces of evidence come from one document (its path, else its source less
    a ``:line``)."""
    return _document(first) == _document(second)


def _document(evidence: EvidenceRecord) -> str:
    return evidence.path or re.sub(r":\d+$", "", evidence.source)
