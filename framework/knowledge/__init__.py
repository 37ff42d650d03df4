"""The knowledge graph: entities and relations with confidence, evidence and provenance, kept
in the (encrypted) semantic store of a data home.

Storage: it may import the engine's records and memory; never runs or anything above them.
"""

from __future__ import annotations

from framework.knowledge.graph import KNOWLEDGE_NAMESPACE, Direction, KnowledgeGraph
from framework.knowledge.records import (
    Entity,
    GraphCounts,
    Provenance,
    Relation,
    RelationStatus,
    SaveReport,
    entity_id,
    relation_id,
)

__all__ = [
    "KNOWLEDGE_NAMESPACE",
    "Direction",
    "Entity",
    "GraphCounts",
    "KnowledgeGraph",
    "Provenance",
    "Relation",
    "RelationStatus",
    "SaveReport",
    "entity_id",
    "relation_id",
]
