"""What an extraction run did, counted over its documents, and the short report it answers."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from teams.extraction.state import DocumentReport

__all__ = ["ExtractionTotals", "report_text"]


@dataclass(frozen=True, kw_only=True)
class ExtractionTotals:
    """Counts over a run's documents; entities and relations are counted once however many
    documents state them."""

    documents: int
    entities: int
    relations: int
    dropped: int
    flagged: int
    """Relations saved for manual review."""
    review_documents: tuple[str, ...]
    """Documents whose extraction never passed the critic."""

    @classmethod
    def of(cls, reports: Iterable[DocumentReport]) -> ExtractionTotals:
        """The totals of ``reports``."""
        reports = sorted(reports, key=lambda r: r.path)
        return cls(
            documents=len(reports),
            entities=len({e for r in reports for e in r.entities}),
            relations=len({e for r in reports for e in r.relations}),
            dropped=sum(r.dropped for r in reports),
            flagged=len({e for r in reports for e in r.flagged}),
            review_documents=tuple(r.path for r in reports if r.needs_review),
        )

    def line(self) -> str:
        """``3 documents: 12 entities, 9 relations, 4 dropped, 0 flagged``."""
        return (
            f"{self.documents} documents: {self.entities} entities, {self.relations} relations, "
            f"{self.dropped} dropped, {self.flagged} flagged"
        )


def report_text(reports: Iterable[DocumentReport], min_confidence: float) -> str:
    """The run's answer: the counts, what they mean, and the documents left for review."""
    totals = ExtractionTotals.of(reports)
    lines = [
        f"Extracted {totals.line()}.",
        f"Dropped: triples below confidence {min_confidence:g}. Flagged: relations saved with "
        "status needs_review because their extraction did not pass the critic.",
    ]
    if totals.review_documents:
        lines.append("For manual review: " + ", ".join(totals.review_documents))
    return "\n".join(lines)
