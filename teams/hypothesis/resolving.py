"""The offline resolver: a third source that agrees with one side decides; else a judgment.

Decisive evidence is any other evidence close in meaning to either side that agrees with
exactly one of them (the judge's agreement test). Without it, the newer dated source is
preferred, as a judgment; without dates, the conflict is recorded as a judgment call.
"""

from __future__ import annotations

from framework.memory import Conflict, EvidenceRecord, ResearchMemory
from framework.runtime import NodeContext
from teams.contradiction import DEFAULT_OVERLAP
from teams.hypothesis.verdicts import Resolution, newer_side, side_of

__all__ = ["DecisiveSourceResolver", "candidates"]


def candidates(
    memory: ResearchMemory,
    a: EvidenceRecord,
    b: EvidenceRecord,
    *,
    n: int = 8,
    similar: float = 0.5,
) -> list[EvidenceRecord]:
    """Evidence in memory close to either side of a conflict, the sides left out, best first."""
    found = memory.relevant(a.text, n=n, min_score=similar)
    found += memory.relevant(b.text, n=n, min_score=similar)
    ranked = sorted(found, key=lambda scored: -scored.score)
    unique = {s.evidence.id: s.evidence for s in ranked if s.evidence.id not in (a.id, b.id)}
    return list(unique.values())


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
    ) -> Resolution:
        """The first decisive candidate, else the newer dated side, else a judgment call."""
        for evidence in candidates(self.memory, a, b, similar=self.similar):
            upheld = side_of(evidence, a, b, self.overlap)
            if upheld is not None:
                text = f"{evidence.source} agrees with {upheld.source}: {evidence.text}"
                return Resolution(conflict_id=conflict.id, resolution=text, resolved_by=evidence.id)
        newer = newer_side(a, b)
        if newer is not None:
            older = b if newer is a else a
            text = (
                f"judgment: no third source decides; the newer source {newer.source} "
                f"({newer.date}) is preferred over {older.source} ({older.date})"
            )
            return Resolution(conflict_id=conflict.id, resolution=text)
        text = (
            f"judgment call: no third source decides between {a.source} and {b.source}, "
            "and neither is dated later; both stay in doubt"
        )
        return Resolution(conflict_id=conflict.id, resolution=text)
