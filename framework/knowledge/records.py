"""The records of the knowledge graph: entities, relations, where they came from, and how two
saves of the same entity or relation merge."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from framework.engine.records import Record
from framework.memory import normalised

__all__ = [
    "Entity",
    "GraphCounts",
    "Provenance",
    "Relation",
    "RelationStatus",
    "SaveReport",
    "entity_id",
    "merged_entity",
    "merged_relation",
    "relation_id",
]

RelationStatus = Literal["accepted", "needs_review"]
"""``needs_review``: the extraction that found it never passed its critic."""


def entity_id(name: str) -> str:
    """The stable key of an entity: its name in lower case with single spaces."""
    return normalised(name)


def relation_id(subject: str, predicate: str, object: str) -> str:
    """The stable key of a relation: 16 hex digits of sha256 over its normalised triple."""
    triple = "\x1f".join(normalised(part) for part in (subject, predicate, object))
    return hashlib.sha256(triple.encode("utf-8")).hexdigest()[:16]


class Provenance(Record):
    """Where an entity or relation was read: the document, the line, the extraction run."""

    document: str = Field(min_length=1, description="the document's path as given")
    line: int = Field(ge=1, description="1-based line of the evidence")
    run: str = Field(description="thread id of the extraction run")


class Entity(Record):
    """A named thing of the graph; ``id`` is computed from ``name`` when left out."""

    id: str = Field(default="", description="the normalised name, computed when left out")
    name: str = Field(min_length=1)
    type: str = ""
    provenance: tuple[Provenance, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _fill_id(cls, data: Any) -> Any:
        if isinstance(data, dict) and not str(data.get("id") or "").strip():
            name = data.get("name")
            if isinstance(name, str):
                return {**data, "id": entity_id(name)}
        return data

    @model_validator(mode="after")
    def _id_of_name(self) -> Entity:
        if not self.id:
            raise ValueError("an entity needs a name with at least one non-space character")
        if self.id != entity_id(self.name):
            raise ValueError(
                f"id {self.id!r} is not the normalised name {entity_id(self.name)!r}; "
                "leave id out and it is computed"
            )
        return self


class Relation(Record):
    """``subject --predicate--> object`` between two entity ids, with the evidence for it.

    ``subject`` and ``object`` are normalised like entity ids; ``id`` is computed from the
    triple when left out.
    """

    id: str = Field(default="", description="computed from the triple when left out")
    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)
    object: str = Field(min_length=1)
    confidence: float = Field(ge=0.0, le=1.0)
    evidence: str
    status: RelationStatus = "accepted"
    critiques: tuple[str, ...] = ()
    provenance: tuple[Provenance, ...] = ()

    @field_validator("subject", "object", "predicate")
    @classmethod
    def _normalised(cls, value: str) -> str:
        value = normalised(value)
        if not value:
            raise ValueError("must not be blank")
        return value

    @model_validator(mode="before")
    @classmethod
    def _fill_id(cls, data: Any) -> Any:
        if isinstance(data, dict) and not str(data.get("id") or "").strip():
            subject, predicate, object_ = (data.get(k) for k in ("subject", "predicate", "object"))
            if isinstance(subject, str) and isinstance(predicate, str) and isinstance(object_, str):
                return {**data, "id": relation_id(subject, predicate, object_)}
        return data

    @model_validator(mode="after")
    def _id_of_triple(self) -> Relation:
        expected = relation_id(self.subject, self.predicate, self.object)
        if self.id != expected:
            raise ValueError(
                f"id {self.id!r} does not belong to the triple ({self.subject}, "
                f"{self.predicate}, {self.object}); leave id out and it is computed"
            )
        return self


@dataclass(frozen=True, kw_only=True)
class SaveReport:
    """What one save did: new entities and relations, and those merged into stored ones."""

    entities_added: int
    entities_merged: int
    relations_added: int
    relations_merged: int


@dataclass(frozen=True, kw_only=True)
class GraphCounts:
    """How much a graph holds, and how many relations wait for a human."""

    entities: int
    relations: int
    needs_review: int


def _union(*groups: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(item for group in groups for item in group))


def _places(stored: tuple[Provenance, ...], new: tuple[Provenance, ...]) -> tuple[Provenance, ...]:
    """Every place read, once per (document, line), naming the latest run that read it there:
    extracting the same document again does not grow the record."""
    latest = {(place.document, place.line): place for place in (*stored, *new)}
    return tuple(latest.values())


def merged_entity(stored: Entity, new: Entity) -> Entity:
    """One entity from two saves: the first name, the first known type, every place read."""
    return stored.model_copy(
        update={
            "type": stored.type or new.type,
            "provenance": _places(stored.provenance, new.provenance),
        }
    )


def merged_relation(stored: Relation, new: Relation) -> Relation:
    """One relation from two saves: the higher confidence and its evidence, all critiques and
    places read; accepted once any save accepted it (an extraction that passed its critic)."""
    best = new if new.confidence > stored.confidence else stored
    accepted = "accepted" in (stored.status, new.status)
    return stored.model_copy(
        update={
            "confidence": best.confidence,
            "evidence": best.evidence,
            "status": "accepted" if accepted else "needs_review",
            "critiques": _union(stored.critiques, new.critiques),
            "provenance": _places(stored.provenance, new.provenance),
        }
    )
