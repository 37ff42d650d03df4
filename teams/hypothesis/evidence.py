"""The evidence of a run: what it found or recalled, and what its hypotheses and conflicts cite."""

from __future__ import annotations

from framework.engine.records import Evidence
from framework.memory import EvidenceRecord, ResearchMemory
from teams.hypothesis.state import HypothesisState

__all__ = ["handed_over", "run_evidence"]


def run_evidence(memory: ResearchMemory, state: HypothesisState) -> list[EvidenceRecord]:
    """The run's evidence, then the evidence its hypotheses and conflicts cite, each once."""
    ids = list(state.get("evidence_ids") or [])
    for h in (state.get("hypotheses") or {}).values():
        ids += [*h.supporting, *h.contradicting]
    for c in (state.get("conflicts") or {}).values():
        ids += [c.source_a, c.source_b, *([c.resolved_by] if c.resolved_by else [])]
    return memory.evidence(dict.fromkeys(ids))


def handed_over(memory: ResearchMemory, state: HypothesisState) -> list[Evidence]:
    """:func:`run_evidence` as framework records, scored by relevance to the question.

    This is what the phases after the team (the MetaCoordinator's assessors) check the report
    against: everything it may cite.
    """
    records = run_evidence(memory, state)
    if not records:
        return []
    found = memory.relevant(state.get("question", ""), n=len(records) + 10)
    scores = {scored.evidence.id: scored.score for scored in found}
    return [
        Evidence(source=r.source, text=r.text, score=max(0.0, min(1.0, scores.get(r.id, 0.0))))
        for r in records
    ]
