"""The knowledge graph: entities and relations kept in a semantic store.

Everything lives under ``("knowledge", *scope, "entities")`` and ``("knowledge", *scope,
"relations")`` of a :class:`~framework.memory.SemanticStore`, so it is sealed at rest by the
store's codec and follows the store to its backend; store keys, which are not sealed, are
digests. Each entity item also holds its adjacency
(relation id -> the entity at the other end), so lookups and path searches read only the
entities they pass through; relations are embedded for semantic lookup.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Literal, TypeVar

from pydantic import Field

from framework.engine.records import Record
from framework.errors import ConfigError
from framework.knowledge._documents import DocumentRecords, document_key, without_document
from framework.knowledge.records import (
    Entity,
    GraphCounts,
    Relation,
    SaveReport,
    entity_id,
    merged_entity,
    merged_relation,
)
from framework.memory.store import (
    Namespace,
    SemanticStore,
    SourceRecord,
    StoreItem,
    namespace_path,
)

__all__ = ["KNOWLEDGE_NAMESPACE", "Direction", "KnowledgeGraph"]

KNOWLEDGE_NAMESPACE = "knowledge"
"""The first part of every knowledge graph namespace."""

Direction = Literal["out", "in", "both"]


class _Node(Record):
    """An entity as stored: the entity and its relations, each with the entity at its other end."""

    entity: Entity
    outgoing: dict[str, str] = Field(default_factory=dict)
    incoming: dict[str, str] = Field(default_factory=dict)

    def edges(self, direction: Direction = "both") -> dict[str, str]:
        """Relation id -> the other entity's id, in ``direction``."""
        out = self.outgoing if direction in ("out", "both") else {}
        into = self.incoming if direction in ("in", "both") else {}
        return {**into, **out}


class KnowledgeGraph:
    """Entities and relations of one scope (a user or a project) in a semantic store.

    Safe to share between threads; saves on one store are serialised. Unknown entity names give
    empty results, not errors.

    Args:
        store: Where the graph is kept.
        scope: Whose graph this is, e.g. ``("project", "apollo")``.

    Raises:
        ConfigError: The scope is not a non-empty tuple of names without ``/``.
    """

    def __init__(self, store: SemanticStore, scope: tuple[str, ...] = ("default",)) -> None:
        given: object = scope  # callers without a type checker pass a bare string
        if not isinstance(given, tuple) or not scope:
            raise ConfigError(f"the scope is a non-empty tuple of names, got {scope!r}")
        self.store = store
        self.scope = tuple(scope)
        self.entities_ns: Namespace = (KNOWLEDGE_NAMESPACE, *self.scope, "entities")
        self.relations_ns: Namespace = (KNOWLEDGE_NAMESPACE, *self.scope, "relations")
        self.documents_ns: Namespace = (KNOWLEDGE_NAMESPACE, *self.scope, "documents")
        namespace_path(self.entities_ns)

    # -- writing ---------------------------------------------------------------------------

    def save(self, entities: Sequence[Entity], relations: Sequence[Relation]) -> SaveReport:
        """Save entities and relations; ids already stored are merged (provenance, critiques).

        Raises:
            ConfigError: An item is not an Entity or Relation, or a relation names an entity
                that is neither in ``entities`` nor stored; nothing is saved.
        """
        new_entities = _merged_batch(_checked(entities, Entity), merged_entity)
        new_relations = _merged_batch(_checked(relations, Relation), merged_relation)
        with self.store.updating():
            nodes = self._nodes(new_entities.keys() | _ends(new_relations.values()))
            self._check_ends(new_relations.values(), nodes.keys() | new_entities.keys())
            stored = self._relations(new_relations)
            entities_out = {
                key: merged_entity(nodes[key].entity, entity) if key in nodes else entity
                for key, entity in new_entities.items()
            }
            relations_out = [
                merged_relation(stored[key], relation) if key in stored else relation
                for key, relation in new_relations.items()
            ]
            linked = _linked(nodes, entities_out, relations_out)
            self.store.put_many(self.relations_ns, map(_relation_item, relations_out))
            self.store.put_many(self.entities_ns, map(_node_item, linked))
        entities_added = len(new_entities.keys() - nodes.keys())
        return SaveReport(
            entities_added=entities_added,
            entities_merged=len(new_entities) - entities_added,
            relations_added=len(new_relations) - len(stored),
            relations_merged=len(stored),
        )

    def replace_document(
        self, document: str, entities: Sequence[Entity], relations: Sequence[Relation]
    ) -> SaveReport:
        """Save what ``document`` states now in place of what it stated before: its places
        leave the records this save does not repeat, and a relation or entity read nowhere
        else any more is removed, with its links.

        Raises:
            ConfigError: ``document`` is empty, or as :meth:`save`; nothing is changed.
        """
        if not document.strip():
            raise ConfigError("replace_document() needs the document's path")
        new_entities = _checked(entities, Entity)
        new_relations = _checked(relations, Relation)
        with self.store.updating():
            before = self._document_records(document)
            kept = {relation.id for relation in new_relations}
            self._forget(
                document, before, kept, {e.id for e in new_entities} | _ends(new_relations)
            )
            report = self.save(new_entities, new_relations)
            now = DocumentRecords(
                relations=frozenset(kept),
                entities=frozenset(_item_key(e.id) for e in new_entities),
            )
            record = SourceRecord(source=document_key(document), content_hash="", keys=now.keys())
            self.store.put_sources(self.documents_ns, [record])
        return report

    def _document_records(self, document: str) -> DocumentRecords:
        record = self.store.sources(self.documents_ns).get(document_key(document))
        return DocumentRecords.from_keys(record.keys) if record else DocumentRecords()

    def _forget(
        self, document: str, before: DocumentRecords, relations: set[str], entities: set[str]
    ) -> None:
        """Take ``document``'s places out of what it stated before; remove the relations and
        entities (not about to be saved again) that are left read nowhere."""
        stored = self._relations(before.relations)
        stripped = {key: without_document(r, document) for key, r in stored.items()}
        gone = [r for key, r in stripped.items() if key not in relations and not r.provenance]
        staying = [r for key, r in stripped.items() if key in relations or r.provenance]
        nodes = {
            node.entity.id: node
            for key in before.entities | {_item_key(e) for e in _ends(gone)}
            if (node := self._stored_node(key)) is not None
        }
        for relation in gone:
            for end in (relation.subject, relation.object):
                if end in nodes:
                    nodes[end] = _unlinked(nodes[end], relation.id)
        stripped_nodes = [
            node.model_copy(update={"entity": without_document(node.entity, document)})
            for node in nodes.values()
        ]
        orphan = {
            node.entity.id
            for node in stripped_nodes
            if not node.entity.provenance and not node.edges() and node.entity.id not in entities
        }
        dropped = [node for node in stripped_nodes if node.entity.id in orphan]
        kept_nodes = [node for node in stripped_nodes if node.entity.id not in orphan]
        self.store.delete_many(self.relations_ns, [r.id for r in gone])
        self.store.put_many(self.relations_ns, map(_relation_item, staying))
        self.store.delete_many(self.entities_ns, [_item_key(n.entity.id) for n in dropped])
        self.store.put_many(self.entities_ns, map(_node_item, kept_nodes))

    # -- reading ---------------------------------------------------------------------------

    def entity(self, name_or_id: str) -> Entity | None:
        """The entity with this name or id, or None."""
        node = self._node(entity_id(name_or_id))
        return node.entity if node else None

    def find_entities(
        self, *, name: str | None = None, type: str | None = None, limit: int = 20
    ) -> list[Entity]:
        """Entities whose name contains ``name`` and whose type is ``type`` (both ignoring
        case): exact names first, then shorter names.

        Raises:
            ConfigError: ``limit`` is below 1.
        """
        if limit < 1:
            raise ConfigError(f"limit must be at least 1, got {limit}")
        wanted_name = entity_id(name) if name is not None else ""
        wanted_type = type.casefold().strip() if type is not None else None
        found = [
            node.entity
            for node in self._all_nodes()
            if wanted_name in node.entity.id
            and (wanted_type is None or node.entity.type.casefold() == wanted_type)
        ]
        found.sort(key=lambda e: (e.id != wanted_name, len(e.id), e.id))
        return found[:limit]

    def relations_of(self, entity: str, *, direction: Direction = "both") -> list[Relation]:
        """The relations of ``entity`` (name or id) leaving it (``out``), reaching it (``in``)
        or both, most confident first."""
        if direction not in ("out", "in", "both"):
            raise ConfigError(f"direction must be 'out', 'in' or 'both', got {direction!r}")
        node = self._node(entity_id(entity))
        if node is None:
            return []
        found = list(self._relations(node.edges(direction)).values())
        return sorted(found, key=lambda r: (-r.confidence, r.id))

    def paths(
        self, source: str, target: str, *, max_depth: int = 3, limit: int = 5
    ) -> list[list[Relation]]:
        """Up to ``limit`` paths of at most ``max_depth`` relations from ``source`` to
        ``target`` (names or ids), shortest first, following relations either way and never
        passing an entity twice.

        Raises:
            ConfigError: ``max_depth`` or ``limit`` is below 1.
        """
        if max_depth < 1 or limit < 1:
            raise ConfigError(
                f"max_depth and limit must be at least 1, got max_depth={max_depth}, limit={limit}"
            )
        start, goal = entity_id(source), entity_id(target)
        adjacency = _Adjacency(self._node)
        if start == goal or not adjacency.known(start) or not adjacency.known(goal):
            return []
        found = _shortest_paths(adjacency, start, goal, max_depth, limit)
        relations = self._relations({key for path in found for key in path})
        return [[relations[key] for key in path] for path in found]

    def search_relations(self, query: str, n: int = 5) -> list[tuple[Relation, float]]:
        """The ``n`` relations closest in meaning to ``query`` (triple and evidence), best
        first, with their cosine similarity.

        Raises:
            ConfigError: ``n`` is below 1.
        """
        if n < 1:
            raise ConfigError(f"n must be at least 1, got {n}")
        if not query.strip():
            return []
        hits = self.store.search(self.relations_ns, query, k=n)
        return [(Relation.model_validate(hit.metadata), hit.score) for hit in hits]

    def counts(self) -> GraphCounts:
        """How many entities and relations the graph holds, and how many need review."""
        keys = self.store.keys(self.relations_ns)
        flagged = sum(r.status == "needs_review" for r in self._relations(keys).values())
        return GraphCounts(
            entities=self.store.count(self.entities_ns),
            relations=len(keys),
            needs_review=flagged,
        )

    # -- internals -------------------------------------------------------------------------

    def _node(self, key: str) -> _Node | None:
        return self._stored_node(_item_key(key)) if key else None

    def _stored_node(self, item_key: str) -> _Node | None:
        item = self.store.get(self.entities_ns, item_key)
        return _Node.model_validate(item.metadata) if item is not None else None

    def _nodes(self, keys: Iterable[str]) -> dict[str, _Node]:
        found = {key: self._node(key) for key in keys}
        return {key: node for key, node in found.items() if node is not None}

    def _all_nodes(self) -> list[_Node]:
        found = (self._stored_node(key) for key in self.store.keys(self.entities_ns))
        return [node for node in found if node is not None]

    def _relations(self, keys: Iterable[str]) -> dict[str, Relation]:
        found: dict[str, Relation] = {}
        for key in keys:
            item = self.store.get(self.relations_ns, key)
            if item is not None:
                found[key] = Relation.model_validate(item.metadata)
        return found

    @staticmethod
    def _check_ends(relations: Iterable[Relation], known: set[str]) -> None:
        missing = sorted(_ends(relations) - known)
        if missing:
            raise ConfigError(
                f"relations name entities that are neither saved with them nor stored: "
                f"{', '.join(map(repr, missing))}; pass those entities to save() too"
            )


class _Adjacency:
    """The graph's edges as a path search reads them, each entity loaded once."""

    def __init__(self, load: Callable[[str], _Node | None]) -> None:
        self._load = load
        self._edges: dict[str, list[tuple[str, str]] | None] = {}

    def known(self, key: str) -> bool:
        """Whether ``key`` is a stored entity."""
        return self._read(key) is not None

    def edges(self, key: str) -> list[tuple[str, str]]:
        """``(relation id, other entity id)`` of ``key``'s relations, by relation id."""
        return self._read(key) or []

    def _read(self, key: str) -> list[tuple[str, str]] | None:
        if key not in self._edges:
            node = self._load(key)
            self._edges[key] = sorted(node.edges().items()) if node is not None else None
        return self._edges[key]

    def distances(self, origin: str, limit: int) -> dict[str, int]:
        """Entities at most ``limit`` relations from ``origin``, with their distance."""
        distance = {origin: 0}
        frontier = [origin]
        for depth in range(1, limit + 1):
            reached = [other for key in frontier for _, other in self.edges(key)]
            frontier = [other for other in dict.fromkeys(reached) if other not in distance]
            distance.update(dict.fromkeys(frontier, depth))
        return distance


def _shortest_paths(
    adjacency: _Adjacency, start: str, goal: str, max_depth: int, limit: int
) -> list[tuple[str, ...]]:
    """Relation ids of up to ``limit`` simple paths, shortest first (a breadth-first search
    that extends a path only where the goal is still within reach)."""
    to_goal = adjacency.distances(goal, max_depth)
    found: list[tuple[str, ...]] = []
    queue: deque[tuple[str, tuple[str, ...], frozenset[str]]] = deque(
        [(start, (), frozenset({start}))]
    )
    while queue and len(found) < limit:
        key, path, seen = queue.popleft()
        for relation, other in adjacency.edges(key):
            reach = to_goal.get(other)
            if other in seen or reach is None or len(path) + 1 + reach > max_depth:
                continue
            if other == goal:
                found.append((*path, relation))
            else:
                queue.append((other, (*path, relation), seen | {other}))
    return found[:limit]


def _linked(
    nodes: dict[str, _Node], entities: dict[str, Entity], relations: Sequence[Relation]
) -> list[_Node]:
    """The stored nodes and the new entities, with the relations added to their edges."""
    keys = list(dict.fromkeys([*nodes, *entities]))
    outgoing = {key: dict(nodes[key].outgoing) if key in nodes else {} for key in keys}
    incoming = {key: dict(nodes[key].incoming) if key in nodes else {} for key in keys}
    for relation in relations:
        outgoing[relation.subject][relation.id] = relation.object
        incoming[relation.object][relation.id] = relation.subject
    return [
        _Node(
            entity=entities[key] if key in entities else nodes[key].entity,
            outgoing=outgoing[key],
            incoming=incoming[key],
        )
        for key in keys
    ]


def _unlinked(node: _Node, relation: str) -> _Node:
    outgoing = {k: v for k, v in node.outgoing.items() if k != relation}
    incoming = {k: v for k, v in node.incoming.items() if k != relation}
    return node.model_copy(update={"outgoing": outgoing, "incoming": incoming})


def _item_key(entity: str) -> str:
    """The store key of an entity: a digest, since store keys are not sealed (names are)."""
    return hashlib.sha256(entity.encode("utf-8")).hexdigest()[:32]


def _node_item(node: _Node) -> StoreItem:
    entity, metadata = node.entity, node.model_dump(mode="json")
    key = _item_key(entity.id)
    return StoreItem(key=key, text=entity.name, metadata=metadata, context=entity.type)


def _relation_item(relation: Relation) -> StoreItem:
    text = f"{relation.subject} {relation.predicate} {relation.object}: {relation.evidence}"
    return StoreItem(key=relation.id, text=text, metadata=relation.model_dump(mode="json"))


def _ends(relations: Iterable[Relation]) -> set[str]:
    return {key for r in relations for key in (r.subject, r.object)}


_R = TypeVar("_R", Entity, Relation)


def _checked(items: Sequence[_R], kind: type[_R]) -> list[_R]:
    if isinstance(items, str | bytes) or not all(isinstance(i, kind) for i in items):
        raise ConfigError(f"save() takes sequences of {kind.__name__} objects")
    return list(items)


def _merged_batch(items: Sequence[_R], merge: Callable[[_R, _R], _R]) -> dict[str, _R]:
    """The items by id, repeated ids merged in order."""
    batch: dict[str, _R] = {}
    for item in items:
        batch[item.id] = merge(batch[item.id], item) if item.id in batch else item
    return batch
