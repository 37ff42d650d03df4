"""The hypothesis team's report: confirmed findings and settled conflicts, each citing its
evidence as ``path:line``, then what stays unresolved and what the run started from.

Only confirmed hypotheses are stated as findings; refuted ones are listed as ruled out. Every
line outside the note sections ("Unresolved", "Memory", "Review" and "Sources", see
:mod:`teams.language.answer_layout`) cites evidence, so the MetaCoordinator's compliance check can
verify it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from framework.engine.runtime import NodeContext
from framework.memory import EvidenceRecord, Hypothesis, ResearchMemory
from teams.hypothesis.state import HypothesisState
from teams.language.answer_layout import note_section
from teams.language.contradiction import without_rejected

__all__ = ["ReportSynthesizer", "hypothesis_report"]


class _Citations:
    """Renders evidence ids as cited sources and remembers every source cited."""

    def __init__(self, memory: ResearchMemory) -> None:
        self.memory = memory
        self.cited: dict[str, None] = {}

    def __call__(self, ids: Iterable[str]) -> str:
        records: list[EvidenceRecord] = self.memory.evidence(ids)
        sources = list(dict.fromkeys(record.source for record in records))
        self.cited.update(dict.fromkeys(sources))
        return ", ".join(f"`{source}`" for source in sources)


def _by_confidence(state: HypothesisState, status: str) -> list[Hypothesis]:
    found = [h for h in (state.get("hypotheses") or {}).values() if h.status == status]
    return sorted(found, key=lambda h: (-h.confidence, h.statement))


def _findings(state: HypothesisState, cite: _Citations) -> list[str]:
    lines = []
    for h in _by_confidence(state, "confirmed"):
        lines.append(
            f"- {without_rejected(h.statement)} (confirmed, confidence {h.confidence:.2f}; "
            f"{cite(h.supporting)})"
        )
    ruled_out = [
        f"- {h.statement} (refuted, confidence {h.confidence:.2f}; "
        f"contradicted by {cite(h.contradicting)})"
        for h in _by_confidence(state, "refuted")
        if h.contradicting
    ]
    sections = []
    if lines:
        sections += ["## Findings", "", *lines, ""]
    if ruled_out:
        sections += ["## Ruled out", "", *ruled_out, ""]
    return sections


def _conflicts(state: HypothesisState, cite: _Citations) -> list[str]:
    lines = []
    for conflict in (state.get("conflicts") or {}).values():
        if conflict.status != "resolved":
            continue
        sides = cite([conflict.source_a, conflict.source_b])
        if conflict.resolved_by:
            cited = f"{sides}; decided by {cite([conflict.resolved_by])}"
        else:
            cited = f"a judgment between {sides}"
        lines.append(f"- {conflict.description}. Resolution: {conflict.resolution} ({cited})")
    lines += [f"- {line}." for line in state.get("decided_over") or []]
    return ["## Conflicts", "", *lines, ""] if lines else []


def _unresolved(state: HypothesisState, cite: _Citations) -> list[str]:
    lines = [
        f"- Open conflict: {c.description} ({cite([c.source_a, c.source_b])})"
        for c in (state.get("conflicts") or {}).values()
        if c.status == "open"
    ]
    held = state.get("held_back") or []
    lines += [f"- Open conflict, not confirmed: {line}" for line in held]
    for status in ("validating", "proposed"):
        lines += [
            f"- Still {status} (confidence {h.confidence:.2f}): {h.statement}"
            for h in _by_confidence(state, status)
            if not any(line.startswith(f"{h.statement} (") for line in held)
        ]
    lines += [
        f"- Source {e.source} failed on {e.query!r}: {e.error}" for e in state.get("errors") or []
    ]
    if not _by_confidence(state, "confirmed"):
        lines.insert(0, "- No hypothesis was confirmed.")
    return note_section("Unresolved", lines) if lines else []


def hypothesis_report(
    state: HypothesisState,
    memory: ResearchMemory,
    *,
    summary: Sequence[tuple[str, str]] = (),
    review: Sequence[str] = (),
) -> str:
    """The Markdown report of a run from its state, citing evidence kept in ``memory``.

    Args:
        state: The run's state.
        memory: Where the cited evidence is kept.
        summary: ``(sentence, source)`` claims to open the report with (a model's summary).
        review: Notes about how the report was made, in a "Review" section.
    """
    cite = _Citations(memory)
    lines = [f"# {state.get('question', '')}", ""]
    if summary:
        cite.cited.update(dict.fromkeys(source for _, source in summary))
        lines += ["## Summary", "", *(f"- {text} (`{source}`)" for text, source in summary), ""]
    lines += _findings(state, cite)
    lines += _conflicts(state, cite)
    lines += _unresolved(state, cite)
    note = state.get("memory_note", "")
    if note:
        lines += note_section("Memory", [note])
    if review:
        lines += note_section("Review", review)
    if cite.cited:
        lines += note_section("Sources", [f"- `{source}`" for source in cite.cited])
    return "\n".join(lines).rstrip() + "\n"


class ReportSynthesizer:
    """The offline synthesizer: renders :func:`hypothesis_report`."""

    def __init__(self, memory: ResearchMemory) -> None:
        self.memory = memory

    def synthesize(self, state: HypothesisState, context: NodeContext) -> str:
        """The report of the run."""
        return hypothesis_report(state, self.memory)
