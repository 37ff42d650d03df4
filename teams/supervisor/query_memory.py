"""The query_memory step: run the next planned lookup in the knowledge graph.

Lookups: the entities of a type, the relations of an entity (with the two-step chains through
the objects of its own relations), the paths between two entities (breadth first, bounded
depth) and the relations semantically close to a text. A lookup that
fails gives an empty result with the error recorded; the run goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.errors import GraphBubbleUp

from framework.engine.runtime import NodeContext
from framework.errors import ConfigError, CryptoError, brief
from framework.knowledge import Entity, KnowledgeGraph, Provenance, Relation
from teams.supervisor.queries import describe
from teams.supervisor.rules import pending_queries
from teams.supervisor.state import (
    FoundEntity,
    FoundRelation,
    Query,
    QueryResult,
    StepError,
    SupervisorState,
)

__all__ = ["MemoryQuery", "query_memory_body", "sources_of"]


def sources_of(provenance: Sequence[Provenance]) -> list[str]:
    """The ``path:line`` sources of a record's provenance, each once, in order."""
    return list(dict.fromkeys(f"{p.document}:{p.line}" for p in provenance))


def _entity(entity: Entity) -> FoundEntity:
    return FoundEntity(name=entity.name, type=entity.type, sources=sources_of(entity.provenance))


def _result(
    query: Query,
    *,
    entities: list[FoundEntity] | None = None,
    relations: list[FoundRelation] | None = None,
    paths: list[list[FoundRelation]] | None = None,
    error: str = "",
) -> QueryResult:
    return QueryResult(
        query=query,
        entities=entities or [],
        relations=relations or [],
        paths=paths or [],
        error=error,
    )


@dataclass(frozen=True, kw_only=True)
class MemoryQuery:
    """Runs lookups in a knowledge graph and returns what they found as citable data.

    Attributes:
        graph: The knowledge graph.
        max_depth: The longest path between two entities, in relations.
        max_paths: Paths per lookup, shortest first.
        max_entities: Entities per lookup by type.
        max_relations: Relations per lookup of an entity's relations, most confident first.
        semantic_n: Relations per semantic lookup.
        semantic_min_score: The least cosine similarity a semantic hit needs.
    """

    graph: KnowledgeGraph
    max_depth: int = 3
    max_paths: int = 5
    max_entities: int = 20
    max_relations: int = 20
    semantic_n: int = 5
    semantic_min_score: float = 0.35

    def __post_init__(self) -> None:
        bounds = {
            "max_depth": self.max_depth,
            "max_paths": self.max_paths,
            "max_entities": self.max_entities,
            "max_relations": self.max_relations,
            "semantic_n": self.semantic_n,
        }
        low = [f"{name}={value}" for name, value in bounds.items() if value < 1]
        if low:
            raise ConfigError(f"the lookup bounds must be at least 1, got {', '.join(low)}")

    def run(self, query: Query) -> QueryResult:
        """What ``query`` finds; an empty result naming the error when the lookup fails."""
        try:
            return self._lookup(query)
        except (GraphBubbleUp, CryptoError):  # a pause, or data that must not be read past
            raise
        except Exception as error:  # a failed lookup finds nothing; the supervisor goes on
            return _result(query, error=brief(error))

    def _lookup(self, query: Query) -> QueryResult:
        graph, terms = self.graph, query["terms"]
        if query["kind"] == "paths":
            paths = graph.paths(terms[0], terms[1], max_depth=self.max_depth, limit=self.max_paths)
            entities = self._entities(terms)
            return _result(query, entities=entities, paths=[self._cite(p) for p in paths])
        if query["kind"] == "relations":
            known = graph.relations_of(terms[0])[: self.max_relations]
            chains = [self._cite(chain) for chain in self._onward(terms[0], known)]
            return _result(
                query, entities=self._entities(terms), relations=self._cite(known), paths=chains
            )
        if query["kind"] == "entities":
            found = graph.find_entities(type=terms[0], limit=self.max_entities)
            return _result(query, entities=[_entity(entity) for entity in found])
        hits = graph.search_relations(terms[0], n=self.semantic_n)
        close = [relation for relation, score in hits if score >= self.semantic_min_score]
        return _result(query, relations=self._cite(close))

    def _onward(self, name: str, relations: Sequence[Relation]) -> list[list[Relation]]:
        """Two-step chains from the entity: each relation from it, then one from its object."""
        entity = self.graph.entity(name)
        chains: list[list[Relation]] = []
        for first in relations:
            if entity is None or first.subject != entity.id:
                continue
            for second in self.graph.relations_of(first.object, direction="out"):
                if len(chains) >= self.max_paths:
                    return chains
                if second.object != entity.id:
                    chains.append([first, second])
        return chains

    def _entities(self, names: Sequence[str]) -> list[FoundEntity]:
        found = (self.graph.entity(name) for name in names)
        return [_entity(entity) for entity in found if entity is not None]

    def _cite(self, relations: Sequence[Relation]) -> list[FoundRelation]:
        names: dict[str, str] = {}

        def name(entity_id: str) -> str:
            if entity_id not in names:
                entity = self.graph.entity(entity_id)
                names[entity_id] = entity.name if entity is not None else entity_id
            return names[entity_id]

        return [
            FoundRelation(
                subject=name(r.subject),
                predicate=r.predicate,
                object=name(r.object),
                evidence=" ".join(r.evidence.split()),
                confidence=r.confidence,
                status=r.status,
                sources=sources_of(r.provenance),
            )
            for r in relations
        ]


def _found(result: QueryResult) -> str:
    if result["error"]:
        return f"failed ({result['error']})"
    counts = (
        (len(result["entities"]), "entity(ies)"),
        (len(result["relations"]), "relation(s)"),
        (len(result["paths"]), "path(s)"),
    )
    return ", ".join(f"{n} {what}" for n, what in counts if n) or "nothing"


def query_memory_body(memory: MemoryQuery) -> Any:
    """The body of the query_memory node: run the next planned lookup."""

    def body(state: SupervisorState, context: NodeContext) -> dict[str, Any]:
        pending = pending_queries(state)
        if not pending:
            error = StepError(step="query_memory", error="no planned lookup is left to run")
            note = AIMessage(f"nothing to look up: {error['error']}", name="query_memory")
            return {"errors": [error], "messages": [note]}
        result = memory.run(pending[0])
        line = f"{describe(result['query'])}: {_found(result)}"
        context.emit("query", query=describe(result["query"]), found=_found(result))
        update: dict[str, Any] = {
            "results": [result],
            "messages": [AIMessage(line, name="query_memory")],
        }
        if result["error"]:
            update["errors"] = [StepError(step="query_memory", error=result["error"])]
        return update

    return body
