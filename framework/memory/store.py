"""A persistent semantic store with numpy search, on SQLite or PostgreSQL.

Items live in one SQLite file (WAL mode) or a PostgreSQL database; each keeps its text, JSON
metadata, a float32 vector and a content hash. Search is a matrix product over an in-memory
copy of one namespace's vectors, kept up to date by this store's own writes and rebuilt when
another connection commits. No database extension is needed.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

import numpy as np

from framework.database import Database, open_database
from framework.errors import ConfigError, EmbeddingError
from framework.memory._index import Matrix, VectorIndex
from framework.memory._tables import (
    BUMP_GENERATION,
    PG_SCHEMA,
    SCHEMA,
    SCHEMA_VERSION,
    UPSERT,
    UPSERT_SOURCE,
    check_meta,
)
from framework.memory.embeddings import Embedder, default_embedder, embedder_name

__all__ = [
    "SCHEMA_VERSION",
    "Namespace",
    "PlainCodec",
    "SearchHit",
    "SemanticStore",
    "SourceRecord",
    "StoreItem",
    "ValueCodec",
    "namespace_path",
]

Namespace = tuple[str, ...]
"""A namespace such as ``("corpus",)`` or ``("memory", "user-42")``."""

_IN_BATCH = 500  # keys per ``IN (...)`` query, well under SQLite's variable limit


class ValueCodec(Protocol):
    """Transforms text and metadata bytes on their way to and from disk.

    Encryption at rest plugs in here. Vectors are not passed through the codec, so search keeps
    working on encoded stores (a vector reveals little, but not nothing, about its text).
    """

    def encode(self, data: bytes) -> bytes:
        """Bytes to write for ``data``."""
        ...

    def decode(self, data: bytes) -> bytes:
        """The original bytes of something :meth:`encode` wrote."""
        ...


class PlainCodec:
    """The identity codec: values are stored as they are."""

    def encode(self, data: bytes) -> bytes:
        """Return ``data`` unchanged."""
        return data

    def decode(self, data: bytes) -> bytes:
        """Return ``data`` unchanged."""
        return data


@dataclass(frozen=True, kw_only=True)
class StoreItem:
    """One stored text with its JSON-serialisable metadata.

    ``context`` (a heading, a title) is embedded with the text to place it better in search,
    without becoming part of the stored text.
    """

    key: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    context: str = ""

    @property
    def embedded_text(self) -> str:
        """What is embedded: the context line, then the text."""
        return f"{self.context}\n{self.text}" if self.context else self.text


@dataclass(frozen=True, kw_only=True)
class SearchHit:
    """A search result; ``score`` is the cosine similarity to the query."""

    key: str
    text: str
    metadata: dict[str, Any]
    score: float


@dataclass(frozen=True, kw_only=True)
class SourceRecord:
    """A source (such as a file) whose items a namespace holds, with the hash it was read at."""

    source: str
    content_hash: str
    keys: tuple[str, ...]


def namespace_path(namespace: Namespace) -> str:
    """Validate ``namespace`` and return its stored form, the parts joined with ``/``.

    Raises:
        ConfigError: It is not a non-empty tuple of non-empty strings without ``/``.
    """
    if not isinstance(namespace, tuple) or not namespace:
        raise ConfigError(f"a namespace is a non-empty tuple of strings, got {namespace!r}")
    for part in namespace:
        if not isinstance(part, str) or not part or "/" in part:
            raise ConfigError(
                f"namespace {namespace!r}: each part must be a non-empty string without '/', "
                f"got {part!r}; pass the levels as separate parts, e.g. ('memory', 'user-1')"
            )
    return "/".join(namespace)


class SemanticStore:
    """Texts with metadata and embeddings, by namespace and key, in one SQLite file or a
    PostgreSQL database.

    Safe to share between threads: one connection, guarded by a lock; embedding runs outside it.

    Args:
        path: The SQLite file (parent folders are created), ``":memory:"``, or a
            ``postgresql://`` URL.
        embedder: Embeds texts and queries; :func:`default_embedder` when omitted.
        codec: Applied to text and metadata before they reach disk; :class:`PlainCodec` when
            omitted.

    Raises:
        ConfigError: The file cannot be opened, or it was built with another embedding model or
            width, or by a newer schema.
    """

    def __init__(
        self,
        path: Path | str,
        embedder: Embedder | None = None,
        codec: ValueCodec | None = None,
    ) -> None:
        self.path = path if path == ":memory:" or "://" in str(path) else Path(path)
        self.embedder: Embedder = embedder if embedder is not None else default_embedder()
        self.codec: ValueCodec = codec if codec is not None else PlainCodec()
        self.dim = self.embedder.dim
        self._lock = threading.RLock()
        self._update_lock = threading.RLock()
        self._updating = False
        self._indexes: dict[str, VectorIndex] = {}
        self._data_version = -1
        self._db: Database = open_database(self.path, schema=PG_SCHEMA)
        try:
            self._init_meta()
        except BaseException:
            self._db.close()
            raise

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; the store cannot be used afterwards."""
        with self._lock:
            self._indexes.clear()
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def updating(self) -> Iterator[None]:
        """Read items and write them back as one update (research memory, the knowledge
        graph): no other thread, and no other process on the same database, updates this
        store meanwhile. Nested use in one thread is free."""
        with self._update_lock:
            if self._updating:
                yield
                return
            with self._db.wait_for("updates"):
                self._updating = True
                try:
                    yield
                finally:
                    self._updating = False

    # -- items -----------------------------------------------------------------------------

    def put(self, namespace: Namespace, item: StoreItem) -> None:
        """Insert or replace one item."""
        self.put_many(namespace, [item])

    def put_many(self, namespace: Namespace, items: Iterable[StoreItem]) -> int:
        """Insert or replace items in one transaction; a later duplicate key wins.

        Texts whose content hash is unchanged keep their stored vector; the rest are embedded
        in one call.

        Returns:
            The number of distinct keys written.
        """
        ns = namespace_path(namespace)
        batch = list({_checked(item).key: item for item in items}.values())
        if not batch:
            return 0
        hashes = [_content_hash(item.embedded_text) for item in batch]
        keys = [item.key for item in batch]
        with self._lock:
            known = self._known_vectors(ns, keys)
        stale = [i for i, key in enumerate(keys) if known.get(key, ("", b""))[0] != hashes[i]]
        matrix = np.empty((len(batch), self.dim), dtype=np.float32)
        matrix[stale] = self._embed([batch[i].embedded_text for i in stale])
        for i, key in enumerate(keys):
            if key in known and known[key][0] == hashes[i]:
                matrix[i] = np.frombuffer(known[key][1], dtype=np.float32)
        now = time.time()
        rows = [
            (
                ns,
                item.key,
                self._encode_text(item.text),
                self._encode_metadata(item),
                matrix[i].tobytes(),
                hashes[i],
                SCHEMA_VERSION,
                now,
            )
            for i, item in enumerate(batch)
        ]
        with self._lock, self._transaction() as db:
            db.executemany(UPSERT, rows)
            self._bump_generation()
            index = self._indexes.get(ns)
            if index is not None:
                index.upsert(keys, matrix, [dict(item.metadata) for item in batch])
        return len(batch)

    def get(self, namespace: Namespace, key: str) -> StoreItem | None:
        """The item stored under ``key``, or ``None``."""
        ns = namespace_path(namespace)
        with self._lock:
            row = self._db.execute(
                "SELECT text, metadata FROM items WHERE namespace = ? AND key = ?", (ns, key)
            ).fetchone()
        if row is None:
            return None
        return StoreItem(
            key=key, text=self._decode_text(row[0]), metadata=self._decode_meta(row[1])
        )

    def delete_many(self, namespace: Namespace, keys: Iterable[str]) -> int:
        """Delete the items under ``keys`` (missing keys are ignored); return how many went."""
        ns = namespace_path(namespace)
        doomed = list(dict.fromkeys(keys))
        if not doomed:
            return 0
        with self._lock, self._transaction() as db:
            deleted = db.executemany(
                "DELETE FROM items WHERE namespace = ? AND key = ?", [(ns, k) for k in doomed]
            )
            self._bump_generation()
            index = self._indexes.get(ns)
            if index is not None:
                index.delete(doomed)
            return deleted

    def keys(self, namespace: Namespace) -> list[str]:
        """All keys of ``namespace``, sorted."""
        ns = namespace_path(namespace)
        with self._lock:
            rows = self._db.execute(
                "SELECT key FROM items WHERE namespace = ? ORDER BY key", (ns,)
            ).fetchall()
        return [key for (key,) in rows]

    def count(self, namespace: Namespace) -> int:
        """Number of items in ``namespace``."""
        ns = namespace_path(namespace)
        with self._lock:
            (total,) = self._db.execute(
                "SELECT COUNT(*) FROM items WHERE namespace = ?", (ns,)
            ).fetchone()
        return int(total)

    # -- search ----------------------------------------------------------------------------

    def search(
        self,
        namespace: Namespace,
        query: str,
        k: int = 5,
        min_score: float = 0.0,
        where: Mapping[str, Any] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` items most similar to ``query``, best first.

        Args:
            namespace: Where to search.
            query: The text to compare against.
            k: At most this many hits.
            min_score: Drop hits with a lower cosine similarity.
            where: Keep only items whose metadata has exactly these key/value pairs.
        """
        return self.search_many(namespace, [query], k, min_score=min_score, where=where)[0]

    def search_many(
        self,
        namespace: Namespace,
        queries: Sequence[str],
        k: int = 5,
        *,
        min_score: float = 0.0,
        where: Mapping[str, Any] | None = None,
    ) -> list[list[SearchHit]]:
        """Run :meth:`search` for each query, embedding all queries in one call."""
        ns = namespace_path(namespace)
        if isinstance(queries, str):
            raise ConfigError("search_many() takes a sequence of queries; use search() for one")
        if k < 1:
            raise ConfigError(f"k must be at least 1, got {k}")
        with self._lock:
            if self._index(ns).size == 0:
                return [[] for _ in queries]
        vectors = self._embed(list(queries))
        with self._lock:
            ranked = self._index(ns).search(vectors, k, min_score, where)
            texts = self._texts(ns, {key for hits in ranked for key, _, _ in hits})
        return [
            [
                SearchHit(key=key, text=texts[key], metadata=copy.deepcopy(meta), score=score)
                for key, score, meta in hits
            ]
            for hits in ranked
        ]

    # -- sources ---------------------------------------------------------------------------

    def sources(self, namespace: Namespace) -> dict[str, SourceRecord]:
        """The source records of ``namespace``, by source."""
        ns = namespace_path(namespace)
        with self._lock:
            rows = self._db.execute(
                "SELECT source, content_hash, keys FROM sources WHERE namespace = ?", (ns,)
            ).fetchall()
        return {
            source: SourceRecord(source=source, content_hash=digest, keys=tuple(json.loads(keys)))
            for source, digest, keys in rows
        }

    def put_sources(self, namespace: Namespace, records: Iterable[SourceRecord]) -> None:
        """Insert or replace source records."""
        ns = namespace_path(namespace)
        now = time.time()
        rows = [(ns, r.source, r.content_hash, json.dumps(list(r.keys)), now) for r in records]
        with self._lock, self._transaction() as db:
            db.executemany(UPSERT_SOURCE, rows)

    def delete_sources(self, namespace: Namespace, sources: Iterable[str]) -> None:
        """Delete source records (not their items)."""
        ns = namespace_path(namespace)
        rows = [(ns, source) for source in sources]
        with self._lock, self._transaction() as db:
            db.executemany("DELETE FROM sources WHERE namespace = ? AND source = ?", rows)

    # -- internals -------------------------------------------------------------------------

    # -- sealed values ------------------------------------------------------------------------

    def sealed_values(self) -> Iterator[bytes]:
        """Every stored text and metadata blob as the codec left it (for key usage counts)."""
        with self._lock:
            rows = self._db.execute("SELECT text, metadata FROM items").fetchall()
        for text, metadata in rows:
            yield bytes(text)
            yield bytes(metadata)

    def reseal(self, batch: int = 500, stale: Callable[[bytes], bool] | None = None) -> int:
        """Open and seal text and metadata blobs again through the codec (after a key
        rotation: they end under the current key); how many items were rewritten.

        Args:
            batch: Items per transaction: a killed run loses nothing, and running it again is
                safe. Vectors are not touched.
            stale: Which blobs need it (say, those not under the primary key, read from their
                headers); every item is rewritten when omitted.
        """
        if batch < 1:
            raise ConfigError(f"batch must be at least 1, got {batch}")
        with self._lock:
            keys = self._db.execute("SELECT namespace, key FROM items ORDER BY 1, 2").fetchall()
        rewritten = 0
        for start in range(0, len(keys), batch):
            with self._lock, self._transaction() as db:
                for namespace, key in keys[start : start + batch]:
                    row = db.execute(
                        "SELECT text, metadata FROM items WHERE namespace = ? AND key = ?",
                        (namespace, key),
                    ).fetchone()
                    blobs = [bytes(value) for value in row or ()]
                    if not blobs or (stale is not None and not any(map(stale, blobs))):
                        continue  # deleted meanwhile, or already current
                    text, metadata = (self.codec.encode(self.codec.decode(b)) for b in blobs)
                    db.execute(
                        "UPDATE items SET text = ?, metadata = ? WHERE namespace = ? AND key = ?",
                        (text, metadata, namespace, key),
                    )
                    rewritten += 1
        return rewritten

    def _init_meta(self) -> None:
        wanted = {
            "schema_version": str(SCHEMA_VERSION),
            "dim": str(self.dim),
            "model": embedder_name(self.embedder),
        }
        db = self._db
        with db.schema_transaction():
            for statement in SCHEMA:
                db.execute(db.ddl(statement))
            found = dict(db.execute("SELECT name, value FROM meta").fetchall())
            if not found:
                db.executemany(
                    "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                    wanted.items(),
                )
            db.execute(
                "INSERT INTO meta (name, value) VALUES ('generation', '0') "
                "ON CONFLICT (name) DO NOTHING"
            )
        if found:
            check_meta(self._db.label, found, wanted)

    @contextmanager
    def _transaction(self) -> Iterator[Database]:
        """A write transaction, rolled back on any error."""
        with self._db.write_transaction():
            yield self._db

    def _generation(self) -> int:
        (value,) = self._db.execute("SELECT value FROM meta WHERE name = 'generation'").fetchone()
        return int(value)

    def _bump_generation(self) -> None:
        """Count a write that changes what search sees (inside its transaction). The
        in-memory indexes stay valid when nobody else wrote since they were checked."""
        before = self._generation()
        self._db.execute(BUMP_GENERATION)
        if before == self._data_version:
            self._data_version = before + 1

    def _index(self, ns: str) -> VectorIndex:
        """The namespace's in-memory index; the caller holds the lock."""
        version = self._generation()
        if version != self._data_version:
            self._indexes.clear()
            self._data_version = version
        index = self._indexes.get(ns)
        if index is None:
            rows = self._db.execute(
                "SELECT key, metadata, vector FROM items WHERE namespace = ? ORDER BY key", (ns,)
            ).fetchall()
            index = VectorIndex(self.dim)
            if rows:
                matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
                metadata = [self._decode_meta(r[1]) for r in rows]
                index.upsert([r[0] for r in rows], matrix.reshape(len(rows), self.dim), metadata)
            self._indexes[ns] = index
        return index

    def _known_vectors(self, ns: str, keys: Sequence[str]) -> dict[str, tuple[str, bytes]]:
        """Content hash and vector of the keys already stored; the caller holds the lock."""
        rows = self._select_keys(ns, "content_hash, vector", keys)
        return {key: (digest, vector) for key, digest, vector in rows}

    def _texts(self, ns: str, keys: Iterable[str]) -> dict[str, str]:
        """Decoded texts of ``keys``; the caller holds the lock."""
        return {key: self._decode_text(blob) for key, blob in self._select_keys(ns, "text", keys)}

    def _select_keys(self, ns: str, columns: str, keys: Iterable[str]) -> list[tuple[Any, ...]]:
        """``key, <columns>`` of the stored ``keys``, in batches of bound parameters."""
        wanted = list(keys)
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(wanted), _IN_BATCH):
            part = wanted[start : start + _IN_BATCH]
            marks = ",".join("?" * len(part))
            sql = f"SELECT key, {columns} FROM items WHERE namespace = ? AND key IN ({marks})"
            rows.extend(self._db.execute(sql, (ns, *part)))
        return rows

    def _embed(self, texts: list[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise EmbeddingError(
                f"{embedder_name(self.embedder)} returned shape {vectors.shape} for "
                f"{len(texts)} texts; expected ({len(texts)}, {self.dim})"
            )
        return vectors

    def _encode_text(self, text: str) -> bytes:
        return self.codec.encode(text.encode("utf-8"))

    def _decode_text(self, blob: bytes) -> str:
        return self.codec.decode(blob).decode("utf-8")

    def _encode_metadata(self, item: StoreItem) -> bytes:
        try:
            raw = json.dumps(item.metadata, sort_keys=True, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                f"metadata of item {item.key!r} is not JSON-serialisable ({exc}); "
                "store strings, numbers, booleans, None, lists and dicts only"
            ) from exc
        return self.codec.encode(raw.encode("utf-8"))

    def _decode_meta(self, blob: bytes) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.codec.decode(blob))
        return value


def _checked(item: StoreItem) -> StoreItem:
    if not isinstance(item, StoreItem):
        raise ConfigError(f"put_many() takes StoreItem objects, got {type(item).__name__}")
    if not isinstance(item.key, str) or not item.key:
        raise ConfigError(f"a StoreItem needs a non-empty string key, got {item.key!r}")
    if not isinstance(item.text, str):
        raise ConfigError(
            f"item {item.key!r}: text must be a string, got {type(item.text).__name__}"
        )
    return item


def _content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
