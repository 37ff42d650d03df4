"""The model-backed roles of the hypothesis team: structured output through pydantic drafts.

They work with any langchain-core ``BaseChatModel`` that supports ``with_structured_output``.
Evidence is named by its ``path:line`` source in prompts and answers; a source the run does
not hold is dropped and noted. The supervisor falls back to the routing rule when the model's
answer is unusable, and says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.errors import GraphBubbleUp

from framework.engine.runtime import NodeContext
from framework.errors import brief
from framework.memory import Conflict, EvidenceRecord, ResearchMemory
from teams.hypothesis.evidence import run_evidence
from teams.hypothesis.prompts import (
    JUDGE_SYSTEM,
    RESOLVER_SYSTEM,
    SEARCHER_SYSTEM,
    SUPERVISOR_SYSTEM,
    SYNTHESIZER_SYSTEM,
    judge_request,
    resolver_request,
    searcher_request,
    summary_request,
    supervisor_request,
)
from teams.hypothesis.report import hypothesis_report
from teams.hypothesis.resolving import DecisiveSourceResolver, candidates
from teams.hypothesis.rules import conflicts_to_resolve, pending_queries
from teams.hypothesis.schemas import (
    JudgmentDraft,
    QueriesDraft,
    ResolutionDraft,
    RouteDraft,
    SummaryDraft,
)
from teams.hypothesis.state import HypothesisState
from teams.hypothesis.verdicts import Assessment, ConflictClaim, Decision, Judgment, Resolution
from teams.research.schemas import StructuredCall, unit

__all__ = ["ModelJudge", "ModelResolver", "ModelSearcher", "ModelSupervisor", "ModelSynthesizer"]


class ModelSupervisor:
    """Asks the model for the next step; the rule decides when the answer is unusable."""

    def __init__(self, model: BaseChatModel, system: str = SUPERVISOR_SYSTEM) -> None:
        self._ask = StructuredCall(model, RouteDraft, system)

    def decide(self, state: HypothesisState, rule: Decision, context: NodeContext) -> Decision:
        """The model's step, or the rule's with the reason the model's was not taken."""
        try:
            draft = self._ask(supervisor_request(state, rule))
        except GraphBubbleUp:
            raise
        except Exception as error:  # an unusable answer or a failed call: the rule decides
            return Decision(step=rule.step, reason=rule.reason, fallback=brief(error))
        if draft.step == "resolve" and not conflicts_to_resolve(state):
            fallback = "the model chose resolve with no open conflict"
            return Decision(step=rule.step, reason=rule.reason, fallback=fallback)
        return Decision(step=draft.step, reason=" ".join(draft.reason.split()) or "no reason")


class ModelSearcher:
    """Asks the model for search queries; searches what lacks evidence when it gives none.

    Args:
        model: The chat model.
        sources: The sources to search.
        max_queries: Queries per round.
        system: The system prompt, a template with the field ``{max_queries}``.
    """

    def __init__(
        self,
        model: BaseChatModel,
        sources: Sequence[BaseTool],
        max_queries: int = 4,
        system: str = SEARCHER_SYSTEM,
    ) -> None:
        self.sources = tuple(sources)
        self.max_queries = max_queries
        self._ask = StructuredCall(model, QueriesDraft, system.format(max_queries=max_queries))

    def queries(self, state: HypothesisState, context: NodeContext) -> list[str]:
        """The model's queries, or the pending ones when it gave none."""
        draft = self._ask(searcher_request(state))
        queries = [" ".join(q.split()) for q in draft.queries if q.strip()]
        return (queries or pending_queries(state))[: self.max_queries]


class _Sources:
    """Maps the ``path:line`` sources a model names to evidence ids, noting unknown ones."""

    def __init__(self, records: Sequence[EvidenceRecord]) -> None:
        self.ids: dict[str, str] = {}
        for record in records:
            self.ids.setdefault(record.source, record.id)
        self.notes: list[str] = []

    def __call__(self, sources: Sequence[str]) -> tuple[str, ...]:
        unknown = [s for s in sources if s not in self.ids]
        if unknown:
            self.notes.append(f"dropped unknown source(s) {', '.join(unknown)}")
        return tuple(dict.fromkeys(self.ids[s] for s in sources if s in self.ids))


class ModelJudge:
    """Asks the model to weigh every hypothesis against the run's evidence and name conflicts."""

    def __init__(
        self, model: BaseChatModel, memory: ResearchMemory, system: str = JUDGE_SYSTEM
    ) -> None:
        self.memory = memory
        self._ask = StructuredCall(model, JudgmentDraft, system)

    def judge(self, state: HypothesisState, context: NodeContext) -> Judgment:
        """The model's assessments and conflicts, with sources mapped to evidence ids."""
        records = run_evidence(self.memory, state)
        draft = self._ask(judge_request(state, records))
        ids = _Sources(records)
        assessments = tuple(
            Assessment(
                statement=" ".join(d.statement.split()),
                hypothesis_id=d.id,
                status=d.status,
                confidence=unit(d.confidence),
                supporting=ids(d.supporting),
                contradicting=ids(d.contradicting),
                note=d.note or "",
            )
            for d in draft.hypotheses
            if d.statement.strip()
        )
        conflicts = []
        for c in draft.conflicts:
            pair = ids([c.source_a, c.source_b])
            if len(pair) == 2 and c.description.strip():
                conflicts.append(
                    ConflictClaim(source_a=pair[0], source_b=pair[1], description=c.description)
                )
        return Judgment(assessments=assessments, conflicts=tuple(conflicts), notes=tuple(ids.notes))


class ModelResolver:
    """Asks the model which source decides a conflict; the offline resolver stands in for a
    blank resolution.

    Args:
        model: The chat model.
        memory: The research memory the evidence is in.
        system: The system prompt.
    """

    def __init__(
        self, model: BaseChatModel, memory: ResearchMemory, system: str = RESOLVER_SYSTEM
    ) -> None:
        self.memory = memory
        self.offline = DecisiveSourceResolver(memory)
        self._ask = StructuredCall(model, ResolutionDraft, system)

    def queries(self, conflict: Conflict, a: EvidenceRecord, b: EvidenceRecord) -> list[str]:
        """Search for what each side states."""
        return self.offline.queries(conflict, a, b)

    def resolve(
        self, conflict: Conflict, a: EvidenceRecord, b: EvidenceRecord, context: NodeContext
    ) -> Resolution | None:
        """The model's resolution; the deciding source mapped to its evidence id (the offline
        resolver's when the model gives none)."""
        others = candidates(self.memory, a, b)
        draft = self._ask(resolver_request(conflict, a, b, others))
        if not draft.resolution.strip():
            return self.offline.resolve(conflict, a, b, context)
        by_source = {record.source: record.id for record in reversed([a, b, *others])}
        return Resolution(
            conflict_id=conflict.id,
            resolution=" ".join(draft.resolution.split()),
            resolved_by=by_source.get(draft.decisive_source or ""),
        )


class ModelSynthesizer:
    """The offline report, opened by the model's summary of the confirmed findings.

    A summary claim must cite evidence of a confirmed hypothesis; others are left out and
    counted under "Review".
    """

    def __init__(
        self, model: BaseChatModel, memory: ResearchMemory, system: str = SYNTHESIZER_SYSTEM
    ) -> None:
        self.memory = memory
        self._ask = StructuredCall(model, SummaryDraft, system)

    def synthesize(self, state: HypothesisState, context: NodeContext) -> str:
        """The report; no model call when nothing was confirmed."""
        confirmed = [h for h in (state.get("hypotheses") or {}).values() if h.status == "confirmed"]
        if not confirmed:
            return hypothesis_report(state, self.memory)
        records = self.memory.evidence(dict.fromkeys(e for h in confirmed for e in h.supporting))
        draft = self._ask(summary_request(state, records))
        known = {record.source for record in records}
        claims = [(" ".join(c.text.split()), c.source) for c in draft.claims if c.text.strip()]
        summary = [(text, source) for text, source in claims if source in known]
        dropped = len(claims) - len(summary)
        review = [f"{dropped} summary claim(s) left out: they cite no confirmed evidence."]
        return hypothesis_report(
            state, self.memory, summary=summary, review=review if dropped else ()
        )
