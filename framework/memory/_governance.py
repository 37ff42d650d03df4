"""What a semantic store does to govern its items: expiry (refresh, sweep), provenance,
erasure of a scope's rows and the tombstones of purges, and compaction of the database."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Collection, Iterable
from contextlib import AbstractContextManager

from framework.database import Database
from framework.errors import ConfigError
from framework.memory import _clock
from framework.memory._generations import Generations
from framework.memory._index import VectorIndex
from framework.memory._items import Namespace, namespace_path
from framework.memory._provenance import ItemProvenance
from framework.memory._rows import LIVE, ItemRows
from framework.memory._scope_keys import scope_of
from framework.memory._tombstones import Tombstones
from framework.memory._values import ITEM, StoreValues

__all__ = ["Governance"]


class Governance:
    """Expiry, provenance and erasure, for :class:`~framework.memory.store.SemanticStore`
    (which provides the connection, its lock, its rows and its in-memory indexes)."""

    _db: Database
    _lock: threading.RLock
    _values: StoreValues
    _rows: ItemRows
    _indexes: dict[str, VectorIndex]
    _transaction: Callable[[], AbstractContextManager[Database]]
    _generations: Generations
    _bump_generation: Callable[[Collection[str] | None], None]
    _drop_indexes: Callable[[Iterable[str] | None], None]

    @property
    def tombstones(self) -> Tombstones:
        """The record of the scopes purged from this store (see
        :mod:`framework.retention.purge`)."""
        return Tombstones(self._db, self._lock, self._scope_digest)

    def _scope_digest(self, scope: str) -> str:
        if self._values.sealed:
            return self._values.blind("purge", "", scope)
        return hashlib.sha256(scope.encode("utf-8")).hexdigest()

    def provenance(self, namespace: Namespace, key: str) -> ItemProvenance | None:
        """Where the live item under ``key`` came from: the run, checkpoint, task, team and
        policy version that wrote it, and its source (None: no such item, or one written
        before items recorded it).

        Raises:
            CryptoError: The sealed record does not belong to this row or was altered.
        """
        ns = namespace_path(namespace)
        with self._lock:
            return self._rows.provenance(ns, key, _clock.now())

    # -- expiry ----------------------------------------------------------------------------

    def refresh(self, namespace: Namespace, keys: Iterable[str]) -> None:
        """Restart the TTL of the items under ``keys`` that have one (a read that refreshes)."""
        ns = namespace_path(namespace)
        now = _clock.now()
        refreshed = [self._values.blind(ITEM, ns, key) for key in keys]
        stored = [(now, ns, key) for key in refreshed]
        if not stored:
            return
        with self._lock, self._transaction() as db:
            db.executemany(
                "UPDATE items SET expires_at = ? + 60.0 * ttl_minutes "
                f"WHERE namespace = ? AND key = ? AND ttl_minutes IS NOT NULL AND {LIVE}",
                [(*row, now) for row in stored],
            )
            index = self._indexes.get(ns)
            if index is not None:
                index.set_expiry(self._rows.expiry(ns, refreshed))

    def sweep(self, batch: int = 1000) -> int:
        """Delete the items that have expired, with their vectors, ``batch`` rows per
        transaction (a killed sweep loses nothing); how many were deleted."""
        if batch < 1:
            raise ConfigError(f"batch must be at least 1, got {batch}")
        deleted = 0
        while True:
            now = _clock.now()
            with self._lock, self._transaction() as db:
                doomed = db.execute(
                    "SELECT namespace, key FROM items WHERE expires_at <= ? LIMIT ?", (now, batch)
                ).fetchall()
                if not doomed:
                    return deleted
                db.executemany(
                    "DELETE FROM items WHERE namespace = ? AND key = ? AND expires_at <= ?",
                    [(ns, key, now) for ns, key in doomed],
                )
                swept = {ns for ns, _ in doomed}
                self._bump_generation(swept)
                self._drop_indexes(swept)
            deleted += len(doomed)

    def erase(self, scope: str, thread_ids: Collection[str]) -> int:
        """Delete every item and source record of ``scope``'s namespaces (``KIND:NAME``, see
        :func:`~framework.memory._scope_keys.scope_of`) and its data key, so copies of its
        values made elsewhere cannot be opened either, and every item anywhere whose
        provenance names one of ``thread_ids`` (expired ones included); how many items went.
        Running it again deletes what is left.

        Raises:
            CryptoError: A provenance record cannot be opened (nothing is deleted).
        """
        threads = set(thread_ids)
        with self._lock:
            names = self._db.execute(
                "SELECT DISTINCT namespace FROM items WHERE namespace <> '' "
                "UNION SELECT DISTINCT namespace FROM sources"
            ).fetchall()
            doomed = [ns for (ns,) in names if scope_of(tuple(str(ns).split("/"))) == scope]
            written = self._written_by(threads, set(doomed)) if threads else []
            with self._transaction() as db:
                deleted = db.executemany(
                    "DELETE FROM items WHERE namespace = ?", [(ns,) for ns in doomed]
                )
                db.executemany("DELETE FROM sources WHERE namespace = ?", [(ns,) for ns in doomed])
                deleted += db.executemany(
                    "DELETE FROM items WHERE namespace = ? AND key = ?", written
                )
                self._generations.forget(doomed)
                self._bump_generation(None)
                self._drop_indexes(None)
            if self._values.scope_keys is not None:  # after the rows: a rerun destroys it too
                self._values.scope_keys.destroy(scope)
        return deleted

    def _written_by(self, threads: set[str], skipped: set[str]) -> list[tuple[str, str]]:
        """``(namespace, stored key)`` of the items outside ``skipped`` that the ``threads``
        wrote (the caller holds the lock)."""
        rows = self._db.execute(
            "SELECT namespace, key, provenance FROM items "
            "WHERE provenance IS NOT NULL AND namespace <> ''"
        ).fetchall()
        written = []
        for ns, stored, blob in rows:
            if ns in skipped:
                continue
            record = ItemProvenance.from_json(
                self._values.open(blob, (ITEM, ns, stored), "provenance").decode("utf-8")
            )
            if record.thread_id in threads:
                written.append((ns, stored))
        return written

    def delete_older(self, namespace: Namespace, cutoff: float, *, dry_run: bool = False) -> int:
        """Delete the items of ``namespace`` last written before ``cutoff`` (seconds since the
        epoch); how many (with ``dry_run``, how many would go)."""
        ns = namespace_path(namespace)
        where = "WHERE namespace = ? AND updated_at < ?"
        with self._lock:
            if dry_run:
                (count,) = self._db.execute(
                    f"SELECT COUNT(*) FROM items {where}", (ns, cutoff)
                ).fetchone()
                return int(count)
            with self._transaction() as db:
                deleted = db.execute(f"DELETE FROM items {where}", (ns, cutoff)).rowcount
                if deleted:
                    self._bump_generation([ns])
                    self._drop_indexes([ns])
        return int(deleted)

    def compact(self) -> None:
        """Rewrite the database (and the key store) without the space deleted rows took
        (SQLite: the file and its log are rewritten, so nothing deleted stays in them;
        PostgreSQL: ``VACUUM``)."""
        with self._lock:
            self._db.compact()
            if self._values.scope_keys is not None:
                self._values.scope_keys.keys.compact()
