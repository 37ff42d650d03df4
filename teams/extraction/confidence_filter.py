"""The confidence filter: keeps the triples at or above a threshold and counts the rest."""

from __future__ import annotations

from typing import Any

from framework.engine.nodes.team_node import SyncBody
from framework.engine.runtime import NodeContext
from teams.extraction.state import DocumentState, Extraction, read_record

__all__ = ["DEFAULT_MIN_CONFIDENCE", "confidence_filter_body"]

DEFAULT_MIN_CONFIDENCE = 0.5


def confidence_filter_body(min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> SyncBody:
    """The node body: ``kept`` are the indices of the triples whose confidence is at least
    ``min_confidence``, ``dropped`` how many fell below."""

    def confidence_filter(state: DocumentState, context: NodeContext) -> dict[str, Any]:
        triples = (read_record(state, "extraction", Extraction) or Extraction()).triples
        kept = [i for i, triple in enumerate(triples) if triple.confidence >= min_confidence]
        dropped = len(triples) - len(kept)
        context.emit(
            "filtered",
            path=state["document"]["path"],
            kept=len(kept),
            dropped=dropped,
            min_confidence=min_confidence,
        )
        return {"kept": kept, "dropped": dropped}

    return confidence_filter
