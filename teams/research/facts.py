"""Durable facts of a research run: their provenance and where they are kept.

Shared by the offline and the model-backed curators, so both write the same records to the
same namespace of the semantic store.
"""

from __future__ import annotations

from collections.abc import Sequence

from framework.engine.records import MemoryFact, Provenance
from framework.engine.runtime import NodeContext
from framework.memory import RESEARCH_NAMESPACE, Namespace, ResearchMemory, SemanticStore, StoreItem

__all__ = ["FACTS_NAMESPACE", "fact_provenance", "facts_namespace", "remember_facts"]

FACTS_NAMESPACE: Namespace = ("facts",)
"""Where curated facts are written by a team that keeps no research memory."""


def facts_namespace(memory: ResearchMemory | None) -> Namespace:
    """Where a team's curated facts are written: beside its research memory, under the same
    scope (``("research", *scope, "facts")``), so scopes see only their own and a purge of the
    scope takes them; :data:`FACTS_NAMESPACE` without a memory."""
    return FACTS_NAMESPACE if memory is None else (RESEARCH_NAMESPACE, *memory.scope, "facts")


def fact_provenance(context: NodeContext, task_id: str, source: str) -> Provenance:
    """Where a fact comes from: this run's thread and checkpoint, the task and its source."""
    return Provenance(
        thread_id=context.thread_id,
        checkpoint_id=context.checkpoint_id,
        task_id=task_id,
        source=source,
    )


def remember_facts(
    store: SemanticStore | None, facts: Sequence[MemoryFact], namespace: Namespace = FACTS_NAMESPACE
) -> None:
    """Write ``facts`` to ``namespace``, keyed by fact id; without a store, do nothing."""
    if store is None or not facts:
        return
    store.put_many(
        namespace,
        [
            StoreItem(
                key=fact.id,
                text=f"{fact.subject} {fact.predicate} {fact.object}",
                metadata=fact.model_dump(mode="json"),
            )
            for fact in facts
        ],
    )
