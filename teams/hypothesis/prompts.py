"""Prompts of the hypothesis team's model-backed roles, rendered deterministically from the state.

Each request starts with a fixed first line (``Route:``, ``Search:``, ``Judge:``, ``Resolve:``,
``Summarise:``), so a scripted model in a test can match the step meant for each role.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from framework.memory import Conflict, EvidenceRecord
from framework.runs.prompts import PromptRegistry
from teams.hypothesis.rules import open_conflicts, pending_queries
from teams.hypothesis.state import HypothesisState
from teams.hypothesis.verdicts import Decision

__all__ = [
    "JUDGE_SYSTEM",
    "RESOLVER_SYSTEM",
    "SEARCHER_SYSTEM",
    "SUPERVISOR_SYSTEM",
    "SYNTHESIZER_SYSTEM",
    "HypothesisPrompts",
    "judge_request",
    "resolver_request",
    "searcher_request",
    "summary_request",
    "supervisor_request",
]

SUPERVISOR_SYSTEM = (
    "You supervise a research team that tests hypotheses against sources. Choose the next "
    "step: search (find evidence for the question or for hypotheses that lack it), judge "
    "(weigh new evidence, update hypotheses, find contradicting sources), resolve (settle open "
    "conflicts between sources) or synthesize (write the report). Resolve while conflicts are "
    "open; synthesize when every hypothesis is confirmed or refuted. Give a one-line reason."
)
SEARCHER_SYSTEM = (
    "Write up to {max_queries} short search queries that would find evidence answering the "
    "question and evidence for the hypotheses that lack it."
)
JUDGE_SYSTEM = (
    "You weigh hypotheses against evidence. Give every listed hypothesis (with its id) and any "
    "new hypothesis the evidence suggests as an answer to the question: its status (proposed, "
    "validating, confirmed, refuted), a confidence in [0, 1], and the listed `path:line` sources "
    "that support or contradict it. Report pairs of sources that contradict each other as "
    "conflicts. Confirm only what the evidence supports and no open conflict disputes."
)
RESOLVER_SYSTEM = (
    "Two sources disagree. From the listed evidence, name the source that decides the conflict "
    "(a third source agreeing with one side) and write the resolution: which side holds and "
    "why. If no source decides, leave decisive_source null and say that the resolution is a "
    "judgment."
)
SYNTHESIZER_SYSTEM = (
    "Summarise the confirmed findings in a few claims. Each claim is one sentence the evidence "
    "supports and cites exactly one of the listed `path:line` sources. Never invent a source."
)


@dataclass(frozen=True, kw_only=True)
class HypothesisPrompts:
    """The system prompts of the model-backed roles: the packaged defaults unless given."""

    supervisor: str = SUPERVISOR_SYSTEM
    searcher: str = SEARCHER_SYSTEM
    """A template with the field ``{max_queries}``."""
    judge: str = JUDGE_SYSTEM
    resolver: str = RESOLVER_SYSTEM
    synthesizer: str = SYNTHESIZER_SYSTEM

    @classmethod
    def from_registry(cls, roles: PromptRegistry) -> HypothesisPrompts:
        """The current versions of the ``hypothesis.*`` roles; ConfigError for a searcher
        prompt whose format fields are not exactly ``{max_queries}``."""
        return cls(
            supervisor=roles.prompt("hypothesis.supervisor", SUPERVISOR_SYSTEM).text,
            searcher=roles.prompt("hypothesis.searcher", SEARCHER_SYSTEM).template("max_queries"),
            judge=roles.prompt("hypothesis.judge", JUDGE_SYSTEM).text,
            resolver=roles.prompt("hypothesis.resolver", RESOLVER_SYSTEM).text,
            synthesizer=roles.prompt("hypothesis.synthesizer", SYNTHESIZER_SYSTEM).text,
        )


def _records(records: Sequence[EvidenceRecord]) -> list[str]:
    lines = [f"- `{r.source}`: {' '.join(r.text.split())}" for r in records]
    return lines or ["- none"]


def _hypotheses(state: HypothesisState) -> list[str]:
    lines = [
        f"- [{h.id}] {h.status}, confidence {h.confidence:.2f}, {len(h.supporting)} supporting, "
        f"{len(h.contradicting)} contradicting: {h.statement}"
        for h in (state.get("hypotheses") or {}).values()
    ]
    return lines or ["- none yet"]


def _conflicts(state: HypothesisState) -> list[str]:
    lines = [
        f"- [{c.id}] {c.status}: {c.description}"
        + (f" (resolution: {c.resolution})" if c.resolution else "")
        for c in (state.get("conflicts") or {}).values()
    ]
    return lines or ["- none"]


def supervisor_request(state: HypothesisState, rule: Decision) -> str:
    """The state in brief and the step the routing rule would choose."""
    return "\n".join(
        [
            f"Route: {state.get('question', '')}",
            f"Iteration {state.get('iteration', 0)} of {state.get('max_iterations', 0)}; "
            f"{state.get('new_evidence', 0)} new evidence since the last judge; "
            f"{len(open_conflicts(state))} open conflict(s); "
            f"{len(pending_queries(state))} query(ies) lacking evidence.",
            "Hypotheses:",
            *_hypotheses(state),
            f"The routing rule would choose {rule.step}: {rule.reason}.",
        ]
    )


def searcher_request(state: HypothesisState) -> str:
    """The question, the hypotheses, and what was searched already."""
    searched = state.get("searched") or []
    return "\n".join(
        [
            f"Search: {state.get('question', '')}",
            "Hypotheses:",
            *_hypotheses(state),
            "Searched already:",
            *([f"- {query}" for query in searched] or ["- nothing"]),
        ]
    )


def judge_request(state: HypothesisState, records: Sequence[EvidenceRecord]) -> str:
    """The question, the hypotheses, the conflicts and every piece of evidence of the run."""
    return "\n".join(
        [
            f"Judge: {state.get('question', '')}",
            "Hypotheses:",
            *_hypotheses(state),
            "Conflicts:",
            *_conflicts(state),
            "Evidence:",
            *_records(records),
        ]
    )


def resolver_request(
    conflict: Conflict, a: EvidenceRecord, b: EvidenceRecord, others: Sequence[EvidenceRecord]
) -> str:
    """The conflict, its two sides and the other evidence close to them."""
    return "\n".join(
        [
            f"Resolve: {conflict.description}",
            f"Side a: `{a.source}`: {a.text}" + (f" (dated {a.date})" if a.date else ""),
            f"Side b: `{b.source}`: {b.text}" + (f" (dated {b.date})" if b.date else ""),
            "Other evidence:",
            *_records(others),
        ]
    )


def summary_request(state: HypothesisState, records: Sequence[EvidenceRecord]) -> str:
    """The confirmed hypotheses and the evidence that supports them."""
    confirmed = [
        f"- {h.statement} (confidence {h.confidence:.2f})"
        for h in (state.get("hypotheses") or {}).values()
        if h.status == "confirmed"
    ]
    return "\n".join(
        [
            f"Summarise: {state.get('question', '')}",
            "Confirmed:",
            *confirmed,
            "Evidence:",
            *_records(records),
        ]
    )
