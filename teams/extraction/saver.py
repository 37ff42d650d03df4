"""The saver: the kept triples of a document as entities and relations in the knowledge graph,
with their evidence, critiques, status and provenance (document, line, run)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from framework.engine.nodes.team_node import SyncBody
from framework.engine.runtime import NodeContext
from framework.errors import ConfigError
from framework.knowledge import Entity, KnowledgeGraph, Provenance, Relation, entity_id
from teams.extraction.documents import Document
from teams.extraction.state import (
    DocumentReport,
    DocumentState,
    Extraction,
    Verdict,
    dump,
    read_record,
)

__all__ = ["graph_records", "saver_body"]

_NO_THREAD = "unthreaded"
"""The run recorded for a document extracted outside a thread (no checkpointer)."""


def graph_records(
    document: Document,
    extraction: Extraction,
    kept: Sequence[int],
    verdict: Verdict | None,
    *,
    needs_review: bool,
    run: str,
) -> tuple[list[Entity], list[Relation]]:
    """The entities and relations of the kept triples. Under review, each relation carries the
    critiques of its triple and of the output as a whole."""
    types = {entity_id(note.name): note.type for note in extraction.entities}
    first_line = document.sections[0].line if document.sections else 1
    entities: list[Entity] = []
    relations: list[Relation] = []
    for index in kept:
        triple = extraction.triples[index]
        provenance = (Provenance(document=document.path, line=triple.line or first_line, run=run),)
        entities += [
            Entity(name=name, type=types.get(entity_id(name), ""), provenance=provenance)
            for name in (triple.subject, triple.object)
        ]
        critiques = verdict.about(index) if needs_review and verdict is not None else ()
        relations.append(
            Relation(
                subject=triple.subject,
                predicate=triple.predicate,
                object=triple.object,
                confidence=triple.confidence,
                evidence=triple.evidence,
                status="needs_review" if needs_review else "accepted",
                critiques=critiques,
                provenance=provenance,
            )
        )
    return entities, relations


def _report(
    document: Document,
    entities: Sequence[Entity],
    relations: Sequence[Relation],
    verdict: Verdict | None,
    state: DocumentState,
) -> DocumentReport:
    needs_review = bool(state.get("needs_review"))
    relation_ids = tuple(dict.fromkeys(r.id for r in relations))
    left = verdict.critiques if needs_review and verdict is not None else ()
    return DocumentReport(
        path=document.path,
        entities=tuple(dict.fromkeys(e.id for e in entities)),
        relations=relation_ids,
        flagged=relation_ids if needs_review else (),
        dropped=state.get("dropped", 0),
        revisions=state.get("revisions", 0),
        needs_review=needs_review,
        critiques=tuple(c.message for c in left),
    )


def saver_body(graph: KnowledgeGraph) -> SyncBody:
    """The node body: save the document's records, report what was saved."""

    def saver(state: DocumentState, context: NodeContext) -> dict[str, Any]:
        document = read_record(state, "document", Document)
        if document is None:
            raise ConfigError("the saver runs on a state with a document")
        needs_review = bool(state.get("needs_review"))
        verdict = read_record(state, "verdict", Verdict)
        entities, relations = graph_records(
            document,
            read_record(state, "extraction", Extraction) or Extraction(),
            state.get("kept") or [],
            verdict,
            needs_review=needs_review,
            run=context.thread_id or _NO_THREAD,
        )
        graph.replace_document(document.path, entities, relations)
        report = _report(document, entities, relations, verdict, state)
        context.emit(
            "document_saved",
            path=document.path,
            relations=len(report.relations),
            dropped=report.dropped,
            flagged=len(report.flagged),
            revisions=report.revisions,
        )
        return {"reports": [dump(report)]}

    return saver
