"""The offline assessors of the MetaCoordinator: risk assessment and compliance check."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, Protocol, runtime_checkable

from framework.engine.records import Evidence, Finding
from framework.engine.runtime import NodeContext
from teams.language.answer_layout import answer_claims
from teams.language.contradiction import DEFAULT_OVERLAP, disagreement

__all__ = ["Assessor", "CitationCompliance", "EvidenceRisk", "found_evidence"]

_CITATION = re.compile(r"`?([\w./\-]+:\d+)`?")


def found_evidence(state: Mapping[str, Any]) -> list[Evidence]:
    """The evidence the research phase found: its workers' evidence, then its ``evidence`` key.

    A planner-workers team reports evidence in ``worker_results``; a team without workers
    (the hypothesis team) hands its evidence over in ``evidence``.
    """
    results = state.get("worker_results") or {}
    found = [item for _, result in sorted(results.items()) for item in result.evidence]
    return found + list(state.get("evidence") or [])


@runtime_checkable
class Assessor(Protocol):
    """A phase after the research team that reports findings about its work."""

    def assess(self, state: Mapping[str, Any], context: NodeContext) -> Sequence[Finding]:
        """Return the findings of this phase."""
        ...


class EvidenceRisk:
    """Flags weak evidence (failed or low-confidence tasks) and conflicting passages.

    Two passages conflict when :func:`teams.language.contradiction.disagreement` says so: they
    share most
    of their content words yet one negates what the other states, or they give different
    numbers for the same thing.
    """

    phase = "risk_assessment"

    def __init__(self, weak_below: float = 0.45, overlap: float = DEFAULT_OVERLAP) -> None:
        self.weak_below = weak_below
        self.overlap = overlap

    def assess(self, state: Mapping[str, Any], context: NodeContext) -> Sequence[Finding]:
        """Findings for weak tasks and for conflicting evidence pairs."""
        findings = []
        for task_id, result in sorted((state.get("worker_results") or {}).items()):
            if result.status == "failed":
                findings.append(self._finding("error", f"task failed: {result.error}", task_id))
            elif result.confidence < self.weak_below:
                findings.append(
                    self._finding(
                        "warning", f"weak evidence (best score {result.confidence:.2f})", task_id
                    )
                )
        unique = list({item.source: item for item in found_evidence(state)}.values())
        for first, second in combinations(unique, 2):
            why = disagreement(first.text, second.text, self.overlap)
            if why:
                findings.append(
                    self._finding(
                        "warning",
                        f"{first.source} and {second.source} may conflict: {why}",
                        source=first.source,
                    )
                )
        return findings

    def _finding(
        self, severity: Any, message: str, task_id: str | None = None, source: str | None = None
    ) -> Finding:
        return Finding(
            phase=self.phase, severity=severity, message=message, task_id=task_id, source=source
        )


class CitationCompliance:
    """Flags claims of the final answer that cite nothing, or cite a source no worker found.


    Only the answer's claims are read (:func:`teams.language.answer_layout.answer_claims`):
    cadre's own
    note sections (what was not answered or was rejected in review, the review, the sources)
    state nothing to cite.
    """

    phase = "compliance_check"

    def assess(self, state: Mapping[str, Any], context: NodeContext) -> Sequence[Finding]:
        """One finding per uncited or unknown-source claim; an info finding when all is cited."""
        known = {item.source for item in found_evidence(state)}
        findings = []
        claims = answer_claims(state.get("final_answer") or "")
        for number, claim in claims:
            cited = _CITATION.findall(claim)
            if not cited:
                findings.append(self._finding("error", f"line {number}: uncited claim: {claim}"))
            for source in cited:
                if source not in known:
                    message = f"line {number}: cites {source}, which no worker found"
                    findings.append(self._finding("error", message, source))
        if not findings:
            findings.append(self._finding("info", f"all {len(claims)} claims cite their sources"))
        return findings

    def _finding(self, severity: Any, message: str, source: str | None = None) -> Finding:
        return Finding(phase=self.phase, severity=severity, message=message, source=source)
