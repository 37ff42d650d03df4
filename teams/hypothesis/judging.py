"""The offline judge: proposes hypotheses from the evidence, weighs them, finds conflicts.

For each hypothesis, the evidence close in meaning to its statement (cosine >= ``similar``) on
the same subject supports it, unless it disagrees
(:func:`teams.language.contradiction.disagreement`: another value of the same attribute, or
the negation), in which case it contradicts it. The rest of the run's evidence, however far in
meaning, contradicts it when it disagrees (a value in a table row, a sentence with extra
clauses). A correction ("a misprint", "was corrected to") neither supports nor contradicts:
the resolver weighs it. A supporting and a contradicting piece of evidence that disagree are a
conflict, unless a conflict between the same two claims is already known. Evidence on the
losing side of a resolved conflict no longer counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from framework.engine.runtime import NodeContext
from framework.memory import EvidenceRecord, Hypothesis, HypothesisStatus, ResearchMemory
from teams.hypothesis.asked_kinds import asks_dimension
from teams.hypothesis.state import HypothesisState
from teams.hypothesis.verdicts import (
    Assessment,
    ConflictClaim,
    Judgment,
    standing_of,
    upheld_side,
)
from teams.language.contradiction import (
    DEFAULT_OVERLAP,
    agrees,
    claim_of,
    disagreement,
    same_subject,
    stated_otherwise,
)
from teams.language.outdated import self_doubting
from teams.language.questions import answer_kind
from teams.language.values import values_agree, values_in
from teams.language.words import keywords, stem

__all__ = ["EvidenceJudge", "confidence_of"]

_MEASURED_KINDS = ("quantity", "money")


_ASKED_WORDS = 3
"""How many of the question's words two statements share to be read as two answers to it."""
_ASKED_VALUES = {
    "quantity": ("different figures", "different numbers", "different amounts"),
    "time": ("different dates",),
}
"""For a question of a figure or of a time, the differences between two answers to it that
count (not a date beside a figure asked for, nor a name)."""
_ASKED_OVERLAP = 0.4
"""The share of words two answers to one question need to be compared value by value."""


def _stems(text: str) -> set[str]:
    """The stems of ``text``'s content words, a possessive's without its "'s"."""
    return {stem(word.removesuffix("'s").rstrip("'")) for word in keywords(text)}


def _other_figures(statement: str, text: str) -> bool:
    """Whether ``text`` gives a figure of a measure ``statement`` gives one of, and none of its
    figures of those measures agrees with the statement's ("is estimated at £2,000-£3,000"
    beside "sold for £4,800"): it speaks of the same thing, but does not support the figure."""
    mine = [v for v in values_in(statement) if v.kind in _MEASURED_KINDS]
    theirs = [v for v in values_in(text) if v.kind in _MEASURED_KINDS]
    pairs = [(m, t) for m in mine for t in theirs if (m.kind, m.key) == (t.kind, t.key)]
    return bool(pairs) and not any(values_agree(m, t) for m, t in pairs)


_COUNTED_KINDS = ("count", *_MEASURED_KINDS)


def _another_measure(statement: str, text: str) -> bool:
    """Whether ``text`` gives figures, none of them of a measure ``statement`` gives a count,
    an amount or a sum of ("St Morwen's church was consecrated in 1320" beside "The tower of
    St Morwen's church holds 8 bells"): it speaks of the same thing, not of its figure."""
    mine = {(v.kind, v.key) for v in values_in(statement) if v.kind in _COUNTED_KINDS}
    theirs = {(v.kind, v.key) for v in values_in(text)}
    return bool(mine and theirs) and not mine & theirs


def confidence_of(support: int, against: int) -> float:
    """Confidence from counts of supporting and contradicting evidence: 2 vs 0 gives 0.8."""
    return round(support / (support + against + 0.5), 2)


@dataclass
class _Book:
    """Evidence records by id, read from memory once per judge round."""

    memory: ResearchMemory
    records: dict[str, EvidenceRecord] = field(default_factory=dict)

    def __call__(self, ids: Iterable[str]) -> list[EvidenceRecord]:
        wanted = list(ids)
        missing = [i for i in wanted if i not in self.records]
        self.records.update({r.id: r for r in self.memory.evidence(missing)})
        return [self.records[i] for i in wanted]

    def add(self, records: Iterable[EvidenceRecord]) -> None:
        self.records.update({r.id: r for r in records})


class EvidenceJudge:
    """Judges hypotheses against the evidence in research memory, with no model.

    Args:
        memory: The research memory the evidence is in.
        similar: Cosine similarity at which evidence is about a hypothesis.
        answers: Cosine similarity to the question at which evidence can become a hypothesis.
        margin: How far below the best answer's similarity a proposal may be (an answer much
            weaker than the best is about something else).
        max_hypotheses: Hypotheses a run holds at most (proposals stop there).
        confirm_at: Confidence at which a hypothesis with support is confirmed.
        refute_at: Confidence at or below which a contradicted hypothesis is refuted.
        overlap: Content-word overlap that makes two statements about the same subject.
    """

    def __init__(
        self,
        memory: ResearchMemory,
        *,
        similar: float = 0.5,
        answers: float = 0.45,
        margin: float = 0.15,
        max_hypotheses: int = 4,
        confirm_at: float = 0.6,
        refute_at: float = 0.3,
        overlap: float = DEFAULT_OVERLAP,
    ) -> None:
        self.memory = memory
        self.similar = similar
        self.answers = answers
        self.margin = margin
        self.max_hypotheses = max_hypotheses
        self.confirm_at = confirm_at
        self.refute_at = refute_at
        self.overlap = overlap

    def judge(self, state: HypothesisState, context: NodeContext) -> Judgment:
        """Proposals from new evidence, every hypothesis weighed, the conflicts found."""
        book = _Book(self.memory)
        known = {h.statement: h for h in (state.get("hypotheses") or {}).values()}
        statements = {**known, **dict.fromkeys(self._proposals(state, list(known)))}
        run = list(state.get("evidence_ids") or [])
        question = state.get("question") or ""
        weighed = {s: self._weigh(s, h, book, run, question) for s, h in statements.items()}
        conflicts = self._conflicts(state, weighed, book)
        disputed = {eid for c in conflicts for eid in (c.source_a, c.source_b)}
        disputed |= {
            eid
            for c in (state.get("conflicts") or {}).values()
            if c.status == "open"
            for eid in (c.source_a, c.source_b)
        }
        overruled = self._overruled(state, book, weighed)
        cited = {eid for support, against in weighed.values() for eid in (*support, *against)}
        doubted = {record.id for record in book(cited) if self_doubting(record.text)}
        assessments = tuple(
            self._assess(
                statement, statements[statement], evidence, disputed, overruled, doubted=doubted
            )
            for statement, evidence in weighed.items()
        )
        return Judgment(assessments=assessments, conflicts=tuple(conflicts))

    def _proposals(self, state: HypothesisState, known: list[str]) -> list[str]:
        """Sentences of the run's evidence answering the question, one per distinct claim (an
        answer much weaker than the best is left out, unless it disputes another)."""
        room = self.max_hypotheses - len(known)
        run = set(state.get("evidence_ids") or [])
        question = state.get("question", "")
        found = self.memory.relevant(question, n=8, min_score=self.answers)
        cutoff = max(self.answers, found[0].score - self.margin) if found else self.answers
        figure = answer_kind(question) == "quantity"  # "How many steps ...?"
        proposals: list[str] = []
        for scored in found:
            text = scored.evidence.text
            if len(proposals) >= room or scored.evidence.id not in run:
                continue
            if claim_of(text).correction or (figure and not values_in(text)):
                continue  # "We asked readers to guess how many steps it has.": no answer
            others = [*known, *proposals]
            disputes = any(disagreement(text, other, self.overlap) for other in others)
            if scored.score < cutoff and not disputes:
                continue
            if not any(agrees(text, other, self.overlap) for other in others):
                proposals.append(text)
        return proposals

    def _weigh(
        self,
        statement: str,
        known: Hypothesis | None,
        book: _Book,
        run: list[str],
        question: str,
    ) -> tuple[list[str], list[str]]:
        """Ids of the evidence supporting and contradicting ``statement`` (known ones first):
        close evidence supports or contradicts, the rest of the run's only contradicts."""
        support = list(known.supporting) if known is not None else []
        against = list(known.contradicting) if known is not None else []
        for scored in self.memory.relevant(statement, n=10, min_score=self.similar):
            evidence = scored.evidence
            book.add([evidence])
            if evidence.id in support or evidence.id in against:
                continue
            if claim_of(evidence.text).correction:
                continue
            if self._disagree(statement, evidence.text, question) is not None:
                against.append(evidence.id)
            elif (
                same_subject(statement, evidence.text, self.overlap)
                and not _other_figures(statement, evidence.text)
                and not _another_measure(statement, evidence.text)
            ):
                support.append(evidence.id)
        weighed = {*support, *against}
        for evidence in book([i for i in run if i not in weighed]):
            if claim_of(evidence.text).correction or evidence.text == statement:
                continue
            if (
                stated_otherwise(statement, evidence.text) is not None
                or self._disagree(statement, evidence.text, question) is not None
            ):
                against.append(evidence.id)
        return support, against

    def _disagree(self, first: str, second: str, question: str) -> str | None:
        """Why ``first`` and ``second`` disagree (see
        :func:`~teams.language.contradiction.disagreement`); for two that share words of the
        ``question`` (:data:`_ASKED_WORDS`), also a different value where they share fewer
        words of their own ("weighed on the farm weighbridge at 1,410 kg" against "weighed on
        the foundry's calibrated scales at 1,240 kg"): two answers to one question."""
        why = disagreement(first, second, self.overlap)
        if why is not None or not question:
            return why
        shared = _stems(question) & _stems(first) & _stems(second)
        if len(shared) < _ASKED_WORDS:
            return None
        looser = disagreement(first, second, _ASKED_OVERLAP)
        kind = answer_kind(question) or ("quantity" if asks_dimension(question) else "")
        asked = _ASKED_VALUES.get(kind, ())
        return looser if looser is not None and looser.startswith(asked) else None

    def _conflicts(
        self,
        state: HypothesisState,
        weighed: dict[str, tuple[list[str], list[str]]],
        book: _Book,
    ) -> list[ConflictClaim]:
        """New conflicts: a supporting and a contradicting piece that disagree, once per claims."""
        known = [(c.source_a, c.source_b) for c in (state.get("conflicts") or {}).values()]
        found: list[ConflictClaim] = []
        for support, against in weighed.values():
            for a in book(support):
                for b in book(against):
                    why = self._disagree(a.text, b.text, state.get("question") or "")
                    pairs = [*known, *((c.source_a, c.source_b) for c in found)]
                    if why is None or self._covered(a, b, pairs, book):
                        continue
                    description = f"{a.source} and {b.source} disagree: {why}"
                    found.append(
                        ConflictClaim(source_a=a.id, source_b=b.id, description=description)
                    )
        return found

    def _covered(
        self,
        a: EvidenceRecord,
        b: EvidenceRecord,
        pairs: list[tuple[str, str]],
        book: _Book,
    ) -> bool:
        """Whether a known conflict is already between the claims of ``a`` and ``b``."""

        def same(x: EvidenceRecord, y: EvidenceRecord) -> bool:
            return x.id == y.id or agrees(x.text, y.text, self.overlap)

        for pair in pairs:
            p, q = book(pair)
            if (same(a, p) and same(b, q)) or (same(a, q) and same(b, p)):
                return True
        return False

    def _overruled(
        self,
        state: HypothesisState,
        book: _Book,
        weighed: dict[str, tuple[list[str], list[str]]],
    ) -> set[str]:
        """Evidence on the losing side of a resolved conflict, and the evidence that decided
        it by giving the loser's figure as its page's figure of an earlier year ("In 2015,
        there were 118 members."): a figure of the past, not against the current one. Evidence
        ``weighed`` that agrees with a loser loses with it: the conflict was found once for the
        claim both make (see :meth:`_covered`)."""
        losers: set[str] = set()
        for conflict in (state.get("conflicts") or {}).values():
            a, b = book([conflict.source_a, conflict.source_b])
            decisive = book([conflict.resolved_by])[0] if conflict.resolved_by else None
            upheld = upheld_side(conflict, a, b, decisive, self.overlap)
            if upheld is not None:
                losers.add(b.id if upheld.id == a.id else a.id)
            dated = standing_of(decisive, a, b) if decisive is not None else None
            if decisive is not None and dated is not None and dated[0] == "earlier":
                losers.add(decisive.id)
        if not losers:
            return losers
        lost = book(sorted(losers))
        ids = {eid for support, against in weighed.values() for eid in (*support, *against)}
        return losers | {
            evidence.id
            for evidence in book(sorted(ids - losers))
            if any(agrees(evidence.text, loser.text, self.overlap) for loser in lost)
        }

    def _assess(
        self,
        statement: str,
        known: Hypothesis | None,
        evidence: tuple[list[str], list[str]],
        disputed: set[str],
        overruled: set[str],
        *,
        doubted: set[str],
    ) -> Assessment:
        """A hypothesis's status from its evidence: none, in an open conflict, confirmed
        (not when its only support is pages that doubt their own figures, see
        :func:`~teams.language.outdated.self_doubting`), refuted, or still validating."""
        support, against = evidence
        counted = [e for e in support if e not in overruled]
        opposed = [e for e in against if e not in overruled]
        confidence = confidence_of(len(counted), len(opposed))
        status: HypothesisStatus
        if not support and not against:
            status = known.status if known is not None else "proposed"
            note = "no evidence yet"
        elif disputed & {*support, *against}:
            status, note = "validating", "its evidence is in an open conflict"
        elif counted and set(counted) <= doubted and not opposed:
            status = "validating"
            note = "its only support is on pages that say their figures may be wrong"
        elif counted and confidence >= self.confirm_at:
            status, note = "confirmed", f"{len(counted)} supporting, {len(opposed)} against"
        elif opposed and confidence <= self.refute_at:
            status, note = "refuted", f"{len(counted)} supporting, {len(opposed)} against"
        else:
            status, note = "validating", f"{len(counted)} supporting, {len(opposed)} against"
        return Assessment(
            statement=statement,
            hypothesis_id=known.id if known is not None else None,
            status=status,
            confidence=confidence,
            supporting=tuple(support),
            contradicting=tuple(against),
            note=note,
        )
