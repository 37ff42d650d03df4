"""What one document stated, so that extracting it again replaces it.

For each document the graph keeps a source record (in the store's source index, under the
graph's ``documents`` namespace) listing the relations and entities it last contributed; the
record's name and keys are digests, like every plaintext key of the store. Before a document's
new records are saved, its places are taken out of what it stated before: a relation read
nowhere else any more is removed with its links, an entity left with no place and no relation
too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from framework.knowledge.records import Entity, Relation

__all__ = ["DocumentRecords", "document_key", "without_document"]

_R = TypeVar("_R", Entity, Relation)
_RELATION = "r:"
_ENTITY = "e:"


def document_key(document: str) -> str:
    """The source name of a document in the index: a digest of its path."""
    return hashlib.sha256(document.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class DocumentRecords:
    """The relation ids and entity item keys a document contributed."""

    relations: frozenset[str] = frozenset()
    entities: frozenset[str] = frozenset()

    @classmethod
    def from_keys(cls, keys: Iterable[str]) -> DocumentRecords:
        """Read the keys of a source record."""
        keys = list(keys)
        return cls(
            relations=frozenset(k[len(_RELATION) :] for k in keys if k.startswith(_RELATION)),
            entities=frozenset(k[len(_ENTITY) :] for k in keys if k.startswith(_ENTITY)),
        )

    def keys(self) -> tuple[str, ...]:
        """The keys of a source record holding these records."""
        return (
            *(_RELATION + key for key in sorted(self.relations)),
            *(_ENTITY + key for key in sorted(self.entities)),
        )


def without_document(record: _R, document: str) -> _R:
    """``record`` with its places in ``document`` taken out."""
    kept = tuple(place for place in record.provenance if place.document != document)
    return record.model_copy(update={"provenance": kept})
