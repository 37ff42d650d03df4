"""Research memory: evidence, hypotheses and conflicts that outlive a run.

One service every team can use. Everything lives in a :class:`SemanticStore` under
``("research", *scope, kind)``, so a later run with the same scope (a user or a project) starts
from what earlier runs found, and other scopes never see it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar, get_args

from framework.engine.records import Record
from framework.errors import ConfigError, InvalidUpdate
from framework.memory._near_duplicates import near_duplicates
from framework.memory._research_records import (
    Conflict,
    ConflictStatus,
    EvidenceRecord,
    Hypothesis,
    HypothesisChange,
    HypothesisStatus,
    MemorySummary,
    ScoredEvidence,
    conflict_id,
    hypothesis_id,
)
from framework.memory._research_rules import (
    check_confidence,
    check_step,
    checked_evidence,
    checked_status,
    plural,
    unique,
)
from framework.memory.store import Namespace, SemanticStore, StoreItem, namespace_path

__all__ = ["RESEARCH_NAMESPACE", "ResearchMemory"]

RESEARCH_NAMESPACE = "research"
"""The first part of every research memory namespace."""

_R = TypeVar("_R", bound=Record)


class ResearchMemory:
    """Evidence, hypotheses and conflicts of one scope, kept in a semantic store.

    Every update is validated first: a refused update raises :class:`InvalidUpdate` and changes
    nothing. Safe to share between threads (workers call it from a thread pool).

    Args:
        store: Where everything is kept.
        scope: Whose memory this is: a user or a project, e.g. ``("project", "apollo")``.
        duplicate_threshold: Evidence whose embedding is at least this similar to stored
            evidence (or an earlier item of the batch) is refused as a near duplicate, unless
            the two mention different numbers or one is negated (they may disagree).

    Raises:
        ConfigError: The scope is not a non-empty tuple of names without ``/``, or the threshold
            is not in (0, 1].
    """

    def __init__(
        self,
        store: SemanticStore,
        scope: tuple[str, ...] = ("default",),
        *,
        duplicate_threshold: float = 0.95,
    ) -> None:
        if not 0.0 < duplicate_threshold <= 1.0:
            raise ConfigError(
                f"duplicate_threshold must be in (0, 1], got {duplicate_threshold}; "
                "0.95 refuses paraphrases, 0.999 only near-identical texts"
            )
        given: object = scope  # callers without a type checker pass a bare string
        if not isinstance(given, tuple):
            raise ConfigError(f"the scope is a tuple of names, e.g. ('default',), got {scope!r}")
        self.store = store
        self.scope = tuple(scope)
        self.duplicate_threshold = duplicate_threshold
        self.evidence_ns = self._namespace("evidence")
        self.hypotheses_ns = self._namespace("hypotheses")
        self.conflicts_ns = self._namespace("conflicts")

    def _namespace(self, kind: str) -> Namespace:
        if not self.scope:
            raise ConfigError("the scope is empty: name a user or project, e.g. ('default',)")
        namespace = (RESEARCH_NAMESPACE, *self.scope, kind)
        namespace_path(namespace)
        return namespace

    @property
    def name(self) -> str:
        """``research/<scope>``, as :meth:`describe` shows it."""
        return "/".join((RESEARCH_NAMESPACE, *self.scope))

    # -- evidence --------------------------------------------------------------------------

    def store_evidence(self, items: Sequence[EvidenceRecord | Mapping[str, Any]]) -> list[str]:
        """Store new evidence; return the ids actually stored, in order.

        An item is refused (silently: it is already known) when its id is stored or appears
        earlier in the batch, or when it is a near duplicate of stored evidence or of an earlier
        item kept from the batch (see ``duplicate_threshold``).

        Raises:
            InvalidUpdate: An item is not valid evidence; nothing is stored.
        """
        records = [checked_evidence(item) for item in items]
        with self.store.updating():
            seen: set[str] = set()
            fresh: list[EvidenceRecord] = []
            for record in records:
                if record.id not in seen and not self.has_evidence(record.id):
                    fresh.append(record)
                seen.add(record.id)
            if not fresh:
                return []
            refused = near_duplicates(
                self.store, self.evidence_ns, [r.text for r in fresh], self.duplicate_threshold
            )
            kept = [record for record, no in zip(fresh, refused, strict=True) if not no]
            self.store.put_many(self.evidence_ns, [_item(r.id, r.text, r) for r in kept])
        return [record.id for record in kept]

    def evidence(self, ids: Iterable[str]) -> list[EvidenceRecord]:
        """The evidence under ``ids`` (each once, in order).

        Raises:
            InvalidUpdate: An id is not stored.
        """
        return [self._get(self.evidence_ns, i, EvidenceRecord, "evidence") for i in unique(ids)]

    def has_evidence(self, id: str) -> bool:
        """Whether evidence ``id`` is stored."""
        return self.store.get(self.evidence_ns, id) is not None

    def evidence_count(self) -> int:
        """How much evidence is stored."""
        return self.store.count(self.evidence_ns)

    def relevant(self, query: str, n: int = 5, min_score: float = 0.0) -> list[ScoredEvidence]:
        """The ``n`` pieces of evidence closest in meaning to ``query``, best first."""
        hits = self.store.search(self.evidence_ns, query, k=n, min_score=min_score)
        return [
            ScoredEvidence(evidence=EvidenceRecord.model_validate(hit.metadata), score=hit.score)
            for hit in hits
        ]

    # -- hypotheses ------------------------------------------------------------------------

    def propose(
        self,
        statement: str,
        *,
        step: str,
        supporting: Sequence[str] = (),
        confidence: float = 0.0,
    ) -> Hypothesis:
        """A new hypothesis (status "proposed"), or the stored one with the same statement.

        Raises:
            InvalidUpdate: The statement or step is blank, the confidence is outside [0, 1], or
                a supporting id is not stored evidence.
        """
        if not statement.strip():
            raise InvalidUpdate("a hypothesis needs a statement: pass the claim to investigate")
        check_step(step)
        check_confidence(confidence)
        with self.store.updating():
            self._check_evidence_ids(supporting, "supporting")
            found = self.store.get(self.hypotheses_ns, hypothesis_id(statement))
            if found is not None:
                return Hypothesis.model_validate(found.metadata)
            change = HypothesisChange(
                step=step, status="proposed", confidence=confidence, note="proposed", at=time.time()
            )
            hypothesis = Hypothesis(
                id=hypothesis_id(statement),
                statement=" ".join(statement.split()),
                confidence=confidence,
                supporting=unique(supporting),
                history=[change],
            )
            self._put_hypothesis(hypothesis)
        return hypothesis

    def update_hypothesis(
        self,
        id: str,
        *,
        step: str,
        status: HypothesisStatus | None = None,
        confidence: float | None = None,
        supporting: Sequence[str] = (),
        contradicting: Sequence[str] = (),
        note: str = "",
    ) -> Hypothesis:
        """Change a hypothesis and record the change with ``step``.

        ``status`` and ``confidence`` left out keep their values; evidence ids are added to the
        stored ones (each id once).

        Raises:
            InvalidUpdate: Unknown hypothesis or evidence id, confidence outside [0, 1], an
                illegal status change (see :data:`LEGAL_STATUS_CHANGES`), or a blank step.
        """
        check_step(step)
        if confidence is not None:
            check_confidence(confidence)
        with self.store.updating():
            current = self.hypothesis(id)
            new_status = current.status if status is None else checked_status(current, status)
            self._check_evidence_ids(supporting, "supporting")
            self._check_evidence_ids(contradicting, "contradicting")
            new_confidence = current.confidence if confidence is None else confidence
            change = HypothesisChange(
                step=step, status=new_status, confidence=new_confidence, note=note, at=time.time()
            )
            updated = current.model_copy(
                update={
                    "status": new_status,
                    "confidence": new_confidence,
                    "supporting": unique([*current.supporting, *supporting]),
                    "contradicting": unique([*current.contradicting, *contradicting]),
                    "history": [*current.history, change],
                }
            )
            self._put_hypothesis(updated)
        return updated

    def hypothesis(self, id: str) -> Hypothesis:
        """The hypothesis ``id``.

        Raises:
            InvalidUpdate: It is not stored.
        """
        return self._get(self.hypotheses_ns, id, Hypothesis, "hypothesis")

    def hypotheses(self, status: HypothesisStatus | None = None) -> list[Hypothesis]:
        """The hypotheses (with ``status`` only, when given), oldest first."""
        found = self._all(self.hypotheses_ns, Hypothesis)
        found.sort(key=lambda h: (h.history[0].at if h.history else 0.0, h.id))
        return [h for h in found if status is None or h.status == status]

    def related_hypotheses(
        self, query: str, n: int = 5, min_score: float = 0.0
    ) -> list[Hypothesis]:
        """The ``n`` hypotheses whose statements are closest in meaning to ``query``."""
        hits = self.store.search(self.hypotheses_ns, query, k=n, min_score=min_score)
        return [Hypothesis.model_validate(hit.metadata) for hit in hits]

    # -- conflicts -------------------------------------------------------------------------

    def open_conflict(self, description: str, source_a: str, source_b: str) -> Conflict:
        """Record that two pieces of evidence disagree; the same pair (either order) is one
        conflict, and opening it again returns the stored one.

        Raises:
            InvalidUpdate: The description is blank, the two ids are the same, or one is not
                stored evidence.
        """
        if not description.strip():
            raise InvalidUpdate("a conflict needs a description: say what the sources disagree on")
        if source_a == source_b:
            raise InvalidUpdate(
                f"a conflict needs two different pieces of evidence, got {source_a!r} twice"
            )
        with self.store.updating():
            self._check_evidence_ids((source_a, source_b), "conflicting")
            key = conflict_id(source_a, source_b)
            found = self.store.get(self.conflicts_ns, key)
            if found is not None:
                return Conflict.model_validate(found.metadata)
            conflict = Conflict(
                id=key, description=description.strip(), source_a=source_a, source_b=source_b
            )
            self._put_conflict(conflict)
        return conflict

    def resolve_conflict(
        self,
        id: str,
        resolution: str,
        *,
        resolved_by: str | None = None,
    ) -> Conflict:
        """Resolve a conflict with a resolution text and, when it was decisive, the evidence.

        ``resolved_by=None`` records a judgment. Resolving again replaces the resolution.

        Raises:
            InvalidUpdate: The conflict is unknown, the resolution is blank, or ``resolved_by``
                is not stored evidence.
        """
        if not resolution or not resolution.strip():
            raise InvalidUpdate(
                f"conflict {id!r} cannot be resolved without a resolution text: say which "
                "source holds and why (or that it is a judgment call)"
            )
        with self.store.updating():
            current = self._get(self.conflicts_ns, id, Conflict, "conflict")
            if resolved_by is not None:
                self._check_evidence_ids((resolved_by,), "resolved_by")
            resolved = current.model_copy(
                update={
                    "status": "resolved",
                    "resolution": resolution.strip(),
                    "resolved_by": resolved_by,
                }
            )
            self._put_conflict(resolved)
        return resolved

    def conflicts(self, status: ConflictStatus | None = None) -> list[Conflict]:
        """The conflicts (with ``status`` only, when given), by id."""
        found = sorted(self._all(self.conflicts_ns, Conflict), key=lambda c: c.id)
        return [c for c in found if status is None or c.status == status]

    # -- overview --------------------------------------------------------------------------

    def summary(self) -> MemorySummary:
        """Counts of evidence, hypotheses by status, and conflicts."""
        by_status = dict.fromkeys(get_args(HypothesisStatus), 0)
        for hypothesis in self.hypotheses():
            by_status[hypothesis.status] += 1
        conflicts = self.conflicts()
        open_ = sum(1 for c in conflicts if c.status == "open")
        return MemorySummary(
            evidence=self.evidence_count(),
            hypotheses=by_status,
            open_conflicts=open_,
            resolved_conflicts=len(conflicts) - open_,
        )

    def describe(self) -> str:
        """One line, e.g. ``memory research/default: 12 evidence, 3 hypotheses (1 confirmed),
        1 open conflict``."""
        summary = self.summary()
        total = sum(summary.hypotheses.values())
        settled = [f"{summary.hypotheses[s]} {s}" for s in ("confirmed", "refuted")]
        settled = [part for part in settled if not part.startswith("0 ")]
        hypotheses = f"{total} {'hypothesis' if total == 1 else 'hypotheses'}"
        if settled:
            hypotheses += f" ({', '.join(settled)})"
        conflicts = f"{summary.open_conflicts} open {plural('conflict', summary.open_conflicts)}"
        if summary.resolved_conflicts:
            conflicts += f", {summary.resolved_conflicts} resolved"
        return f"memory {self.name}: {summary.evidence} evidence, {hypotheses}, {conflicts}"

    # -- internals -------------------------------------------------------------------------

    def _check_evidence_ids(self, ids: Sequence[str], role: str) -> None:
        if isinstance(ids, str):
            raise InvalidUpdate(f"{role} takes a list of evidence ids, got the string {ids!r}")
        unknown = [i for i in unique(ids) if not self.has_evidence(i)]
        if unknown:
            raise InvalidUpdate(
                f"unknown {role} evidence {plural('id', len(unknown))} "
                f"{', '.join(map(repr, unknown))} in {self.name}: "
                "store the evidence with store_evidence() first and cite the ids it returns"
            )

    def _get(self, namespace: Namespace, key: str, kind: type[_R], label: str) -> _R:
        found = self.store.get(namespace, key)
        if found is None:
            raise InvalidUpdate(
                f"unknown {label} id {key!r} in {self.name}: use an id this memory returned"
            )
        return kind.model_validate(found.metadata)

    def _all(self, namespace: Namespace, kind: type[_R]) -> list[_R]:
        items = (self.store.get(namespace, key) for key in self.store.keys(namespace))
        return [kind.model_validate(item.metadata) for item in items if item is not None]

    def _put_hypothesis(self, hypothesis: Hypothesis) -> None:
        self.store.put(self.hypotheses_ns, _item(hypothesis.id, hypothesis.statement, hypothesis))

    def _put_conflict(self, conflict: Conflict) -> None:
        self.store.put(self.conflicts_ns, _item(conflict.id, conflict.description, conflict))


def _item(key: str, text: str, record: Record) -> StoreItem:
    return StoreItem(key=key, text=text, metadata=record.model_dump(mode="json"))
