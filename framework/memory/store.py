"""A persistent semantic store with numpy search, on SQLite or PostgreSQL.

Items live in one SQLite file (WAL mode) or a PostgreSQL database; each keeps its text, JSON
metadata, a float32 vector and a content hash. Search is a matrix product over an in-memory
copy of one namespace's vectors, kept up to date by this store's own writes and loaded again
when another connection writes that namespace; a namespace of :data:`APPROXIMATE_FROM` vectors
or more is searched through an approximate index (faiss IVF-Flat) built from that copy in the
background, exactly until it is ready. No database extension is needed.

A store opened with a cipher seals each text and metadata bound to its row (the metadata holds
a digest of the row's vector, checked whenever the row is read: a search's hits), and keeps
keys, source records and content hashes keyed with a secret of its own (see
:mod:`framework.memory._values` and ``docs/persistence.md``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import numpy as np

from framework.database import Database, open_database
from framework.errors import ConfigError, EmbeddingError
from framework.memory import _clock
from framework.memory._codecs import PlainCodec, RowCodec, ValueCodec
from framework.memory._generations import Generations
from framework.memory._governance import Governance
from framework.memory._index import Matrix, RowFacts, VectorIndex
from framework.memory._items import (
    Namespace,
    SearchHit,
    SourceRecord,
    StoreItem,
    checked_item,
    governed_items,
    namespace_path,
)
from framework.memory._provenance import from_source, writing_run
from framework.memory._rows import LIVE, ItemRows, StoredEntry
from framework.memory._sealing import load_digest_key, open_tables, reseal, sealed_blobs
from framework.memory._tables import (
    PG_SCHEMA,
    SCHEMA_VERSION,
    UPSERT,
    UPSERT_SOURCE,
)
from framework.memory._values import ITEM, SOURCE, StoreValues
from framework.memory.embeddings import Embedder, default_embedder, embedder_name
from framework.persistence.data_keys import DataKeys

__all__ = [
    "APPROXIMATE_FROM",
    "SCHEMA_VERSION",
    "Namespace",
    "PlainCodec",
    "RowCodec",
    "SearchHit",
    "SemanticStore",
    "SourceRecord",
    "StoreItem",
    "StoredEntry",
    "ValueCodec",
    "namespace_path",
]

APPROXIMATE_FROM = 100_000
"""Vectors in a namespace from which its search is approximate (below it exact search is as
fast; see ``docs/benchmarks/memory-store.md``)."""


class SemanticStore(Governance):
    """Texts with metadata and embeddings, by namespace and key, in one SQLite file or a
    PostgreSQL database.

    Safe to share between threads: one connection, guarded by a lock; embedding runs outside it.

    Args:
        path: The SQLite file (parent folders are created), ``":memory:"``, or a
            ``postgresql://`` URL.
        embedder: Embeds texts and queries; :func:`default_embedder` when omitted.
        codec: Seals text and metadata (a :class:`RowCodec` such as the home's cipher, or a
            cipher bound to the store's name): each value is bound to its row, and keys,
            source records and hashes are kept keyed. A :class:`ValueCodec` is applied as it
            is; :class:`PlainCodec` when omitted.
        data_keys: The key store of a sealed store's scope data keys (see
            :mod:`framework.memory._scope_keys`), closed with the store; without it every value
            is sealed under the codec's keys and a purge cannot erase copies by key.
        approximate_from: Vectors in a namespace from which its search goes through an
            approximate index (recall below 1; None: always exact).

    Raises:
        ConfigError: The file cannot be opened, or it was built with another embedding model or
            width, or by a newer schema.
        CryptoError: A sealed store of schema 1 is upgraded on opening, and one of its values
            cannot be opened.
    """

    def __init__(
        self,
        path: Path | str,
        embedder: Embedder | None = None,
        codec: ValueCodec | RowCodec | None = None,
        data_keys: DataKeys | None = None,
        approximate_from: int | None = APPROXIMATE_FROM,
    ) -> None:
        if approximate_from is not None and approximate_from < 1:
            raise ConfigError(f"approximate_from must be at least 1, got {approximate_from}")
        self.path = path if path == ":memory:" or "://" in str(path) else Path(path)
        self.embedder: Embedder = embedder if embedder is not None else default_embedder()
        self.codec = codec if codec is not None else PlainCodec()
        self.dim = self.embedder.dim
        self._approximate_from = approximate_from
        self._lock = threading.RLock()
        self._update_lock = threading.RLock()
        self._updating = False
        self._indexes: dict[str, VectorIndex] = {}
        self._build_slots: dict[str, threading.Lock] = {}
        self._spaces: list[Namespace] | None = None
        self._db: Database = open_database(self.path, schema=PG_SCHEMA)
        self._values = StoreValues(self.codec, self._db.label)
        self._rows = ItemRows(self._db, self._values)
        self._generations = Generations(self._db, self._values)
        self._values.use_digest_key(self._digest_key)
        self._data_keys = data_keys
        if data_keys is not None:
            self._values.use_scope_keys(data_keys)
        try:
            self._init_meta()
        except BaseException:
            self.close()
            raise

    @property
    def sealed(self) -> bool:
        """Whether values are sealed to their rows, and keys and hashes keyed."""
        return self._values.sealed

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; the store cannot be used afterwards."""
        with self._lock:
            self._drop_indexes()
            self._db.close()
            if self._data_keys is not None:
                self._data_keys.close()

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

    def put_many(
        self, namespace: Namespace, items: Iterable[StoreItem], *, form: str = "text"
    ) -> int:
        """Insert or replace items in one transaction; a later duplicate key wins.

        Texts whose content hash is unchanged keep their stored vector; the rest are embedded
        in one call. Inside a governed node the active policies see each item first: they may
        change its text and metadata or refuse it (it is then not written). A replaced item
        keeps the time it was created.

        Args:
            namespace: Where to write.
            items: What to write.
            form: ``value`` for LangGraph values (their metadata is the value; see
                :class:`~framework.memory.langgraph_store.LangGraphStore`).

        Returns:
            The number of distinct keys written.
        """
        ns = namespace_path(namespace)
        batch = governed_items(ns, {checked_item(item).key: item for item in items}.values())
        if not batch:
            return 0
        stored = [self._values.blind(ITEM, ns, item.key) for item in batch]
        hashes = [
            self._values.content_hash(ns, row, item.embedded_text)
            for row, item in zip(stored, batch, strict=True)
        ]
        matrix = self._vectors(ns, batch, hashes)
        now = _clock.now()
        run = writing_run(now)
        with self._values.sealing():
            rows = [
                self._rows.row(
                    ns,
                    item,
                    stored[i],
                    digest=hashes[i],
                    vector=matrix[i].tobytes(),
                    now=now,
                    form=form,
                    provenance=from_source(run, item.metadata),
                )
                for i, item in enumerate(batch)
            ]
            with self._lock, self._transaction() as db:
                db.executemany(UPSERT, rows)
                self._bump_generation([ns])
                index = self._indexes.get(ns)
                if index is not None:
                    facts = [RowFacts(form, bool(row[12]), now, row[9]) for row in rows]
                    opened = [(item.key, dict(item.metadata)) for item in batch]
                    index.upsert(stored, matrix, facts, opened)
        return len(batch)

    def get(self, namespace: Namespace, key: str) -> StoreItem | None:
        """The item stored under ``key``, or ``None``.

        Raises:
            CryptoError: Its sealed values do not belong to this row or were altered.
        """
        ns = namespace_path(namespace)
        with self._lock:
            entry = self._rows.get(ns, key, _clock.now())
        if entry is None:
            return None
        return StoreItem(key=key, text=entry.text, metadata=entry.metadata)

    def entries(self, namespace: Namespace, keys: Iterable[str]) -> dict[str, StoredEntry]:
        """The live items under ``keys`` with their form and times, by key."""
        ns = namespace_path(namespace)
        with self._lock:
            return self._rows.entries(ns, keys, _clock.now())

    def delete_many(self, namespace: Namespace, keys: Iterable[str]) -> int:
        """Delete the items under ``keys`` (missing keys are ignored); return how many went."""
        ns = namespace_path(namespace)
        doomed = list(dict.fromkeys(keys))
        if not doomed:
            return 0
        rows = [(ns, self._values.blind(ITEM, ns, key)) for key in doomed]
        with self._lock, self._transaction() as db:
            deleted = db.executemany("DELETE FROM items WHERE namespace = ? AND key = ?", rows)
            self._bump_generation([ns])
            index = self._indexes.get(ns)
            if index is not None:
                index.delete([stored for _, stored in rows])
            return deleted

    def keys(self, namespace: Namespace) -> list[str]:
        """All live keys of ``namespace``, sorted (a sealed store opens each item's
        metadata)."""
        ns = namespace_path(namespace)
        with self._lock:
            return self._rows.keys(ns, _clock.now())

    def count(self, namespace: Namespace) -> int:
        """Number of live items in ``namespace``."""
        ns = namespace_path(namespace)
        with self._lock:
            (total,) = self._db.execute(
                f"SELECT COUNT(*) FROM items WHERE namespace = ? AND {LIVE}", (ns, _clock.now())
            ).fetchone()
        return int(total)

    def namespaces(self, prefix: Namespace = (), *, live: bool = True) -> list[Namespace]:
        """The namespaces under ``prefix`` that hold a live item (any item, with ``live``
        False: cheaper, for a search that leaves expired items out itself), sorted."""
        with self._lock:
            self._fresh()
            if self._spaces is None:
                rows = self._db.execute(
                    "SELECT DISTINCT namespace FROM items WHERE namespace <> ''"
                ).fetchall()
                self._spaces = sorted(tuple(str(ns).split("/")) for (ns,) in rows)
            found = [ns for ns in self._spaces if ns[: len(prefix)] == prefix]
            if not live:
                return found
            now = _clock.now()
            return [ns for ns in found if self._holds_live("/".join(ns), now)]

    def _holds_live(self, ns: str, now: float) -> bool:
        sql = f"SELECT 1 FROM items WHERE namespace = ? AND {LIVE} LIMIT 1"
        return self._db.execute(sql, (ns, now)).fetchone() is not None

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

        Raises:
            CryptoError: A sealed value read does not belong to its row or was altered.
            TamperError: The vector of a hit is not its row's (swapped or altered).
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
            index = self._index(ns)
            if where:
                self._open_all(ns, index)
            ranked = index.search(vectors, k, min_score, where, self._live(ns, index))
            hit_rows = {row for hits in ranked for row, _ in hits}
            found = self._rows.entries_at(ns, hit_rows, _clock.now())
        return [
            [
                SearchHit(
                    key=found[stored].key,
                    text=found[stored].text,
                    metadata=found[stored].metadata,
                    score=score,
                )
                for stored, score in hits
                if stored in found
            ]
            for hits in ranked
        ]

    def select(
        self,
        namespace: Namespace,
        test: Callable[[str, dict[str, Any], str], bool] | None,
        vector: Matrix | None = None,
        k: int = 10,
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """The live items of ``namespace`` that pass ``test(key, metadata, form)`` (all of
        them when ``test`` is None), as row ids for :meth:`entries_at`.

        Returns:
            With a query ``vector``: the best ``k`` items with a vector as ``(row, score)``,
            best first, and the others as ``(row, updated_at)``; without one, no scored items
            and every match as ``(row, updated_at)``. Unscored items come newest first.
        """
        ns = namespace_path(namespace)
        with self._lock:
            index = self._index(ns)
            allowed = self._live(ns, index)
            if test is not None:
                self._open_all(ns, index)
                allowed &= index.where(test)
            if vector is None:
                return [], index.matching(allowed)
            ranked = index.search(vector, max(k, 1), -np.inf, allowed=allowed)[0]
            return ranked, index.matching(index.unscored(allowed))

    def entries_at(self, namespace: Namespace, rows: Iterable[str]) -> dict[str, StoredEntry]:
        """The live items at the row ids :meth:`select` returned, by row id.

        Raises:
            TamperError: The vector of one of them is not its row's.
        """
        ns = namespace_path(namespace)
        with self._lock:
            return self._rows.entries_at(ns, rows, _clock.now())

    def embed(self, texts: Sequence[str]) -> Matrix:
        """``texts`` embedded by the store's embedder, one row each.

        Raises:
            EmbeddingError: The embedder returned the wrong shape.
        """
        return self._embed(list(texts))

    # -- sources ---------------------------------------------------------------------------

    def sources(self, namespace: Namespace) -> dict[str, SourceRecord]:
        """The source records of ``namespace``, by source."""
        ns = namespace_path(namespace)
        with self._lock:
            rows = self._db.execute(
                "SELECT source, content_hash, keys FROM sources WHERE namespace = ?", (ns,)
            ).fetchall()
        records = [self._values.source_record(ns, tuple(row)) for row in rows]
        return {record.source: record for record in records}

    def put_sources(self, namespace: Namespace, records: Iterable[SourceRecord]) -> None:
        """Insert or replace source records."""
        ns = namespace_path(namespace)
        now = _clock.now()
        with self._values.sealing():
            rows = [(ns, *self._values.source_row(ns, record), now) for record in records]
            with self._lock, self._transaction() as db:
                db.executemany(UPSERT_SOURCE, rows)

    def delete_sources(self, namespace: Namespace, sources: Iterable[str]) -> None:
        """Delete source records (not their items)."""
        ns = namespace_path(namespace)
        rows = [(ns, self._values.blind(SOURCE, ns, source)) for source in sources]
        with self._lock, self._transaction() as db:
            db.executemany("DELETE FROM sources WHERE namespace = ? AND source = ?", rows)

    # -- sealed values ---------------------------------------------------------------------

    def sealed_values(self) -> Iterator[bytes]:
        """Every value the codec wrote, two per item and (sealed) per source record, the
        store's digest key included (for key usage counts)."""
        with self._lock:
            blobs = list(sealed_blobs(self._db, self._values))
        yield from blobs

    def reseal(self, batch: int = 500, stale: Callable[[bytes], bool] | None = None) -> int:
        """Open and seal values again through the codec (after a key rotation: they end under
        the current key); how many values were rewritten.

        Args:
            batch: Rows per transaction: a killed run loses nothing, and running it again is
                safe. Vectors are not touched.
            stale: Which values need it (say, those not under the primary key, read from their
                headers); every row is rewritten when omitted.
        """
        if batch < 1:
            raise ConfigError(f"batch must be at least 1, got {batch}")
        return reseal(self._db, self._lock, self._values, batch, stale)

    # -- internals -------------------------------------------------------------------------

    def _init_meta(self) -> None:
        wanted = {
            "schema_version": str(SCHEMA_VERSION),
            "dim": str(self.dim),
            "model": embedder_name(self.embedder),
        }
        open_tables(self._db, self._values, wanted)

    def _digest_key(self) -> bytes:
        with self._lock:
            return load_digest_key(self._db, self._values)

    @contextmanager
    def _transaction(self) -> Iterator[Database]:
        """A write transaction, rolled back on any error."""
        with self._db.write_transaction():
            yield self._db

    def _bump_generation(self, namespaces: Collection[str] | None) -> None:
        """Count a write of ``namespaces`` (None: of any) that changes what search sees, inside
        its transaction; the writer keeps its own indexes up to date or drops them."""
        self._generations.bump(namespaces)
        self._spaces = None

    def _fresh(self) -> None:
        """Drop what is cached of the namespaces another connection wrote since (the caller
        holds the lock)."""
        stale = self._generations.stale(self._indexes)
        if stale is not None:
            self._drop_indexes(stale)
            self._spaces = None

    def _index(self, ns: str) -> VectorIndex:
        """The namespace's in-memory index; the caller holds the lock."""
        self._fresh()
        index = self._indexes.get(ns)
        if index is None:
            slot = self._build_slots.setdefault(ns, threading.Lock())
            index = self._indexes[ns] = self._rows.index(ns, self.dim, self._approximate_from, slot)
        return index

    def _drop_indexes(self, namespaces: Iterable[str] | None = None) -> None:
        """Forget the in-memory indexes of ``namespaces`` (None: all), stopping their builds
        (the caller holds the lock)."""
        for ns in list(self._indexes) if namespaces is None else namespaces:
            index = self._indexes.pop(ns, None)
            if index is not None:
                index.close()

    def _open_all(self, ns: str, index: VectorIndex) -> None:
        """Open the keys and metadata of every row of ``index`` (a filter reads them)."""
        unopened = index.unopened()
        if unopened:
            index.fill(self._rows.opened(ns, unopened))

    def _live(self, ns: str, index: VectorIndex) -> Any:
        """Which rows of ``index`` have not expired; rows expired by the index's reckoning
        are checked against the database first (a refresh elsewhere moves expiry later)."""
        now = _clock.now()
        expired = index.expired_keys(now)
        if expired:
            index.set_expiry(self._rows.expiry(ns, expired))
        return index.live(now)

    def _vectors(self, ns: str, batch: list[StoreItem], hashes: list[str]) -> Matrix:
        """The vectors of ``batch``: stored ones where the content hash is unchanged (and,
        sealed, the vector bound to its row), zeros for items with nothing to embed, the rest
        embedded in one call."""
        wanted = {item.key: hashes[i] for i, item in enumerate(batch) if item.embedded_text.strip()}
        with self._lock:
            known = self._rows.reusable_vectors(ns, wanted)
        matrix = np.zeros((len(batch), self.dim), dtype=np.float32)
        todo = []
        for i, item in enumerate(batch):
            if item.key in known:
                matrix[i] = np.frombuffer(known[item.key], dtype=np.float32)
            elif item.key in wanted:
                todo.append(i)
        if todo:
            matrix[todo] = self._embed([batch[i].embedded_text for i in todo])
        return matrix

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
