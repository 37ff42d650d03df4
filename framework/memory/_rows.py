"""Reading and writing a semantic store's item rows through its :class:`StoreValues` (keys
blinded and values sealed when the store is). The caller holds the store's lock."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from framework.database import Database
from framework.memory._index import RowFacts, VectorIndex
from framework.memory._items import StoreItem
from framework.memory._provenance import ItemProvenance
from framework.memory._tables import SCHEMA_VERSION
from framework.memory._values import ITEM, StoreValues

__all__ = ["LIVE", "ItemRows", "StoredEntry"]

_IN_BATCH = 500  # keys per ``IN (...)`` query, well under SQLite's variable limit

LIVE = "(expires_at IS NULL OR expires_at > ?)"
"""The condition of a row that has not expired (bound to the time now)."""


@dataclass(frozen=True, kw_only=True)
class StoredEntry:
    """An item as stored, with its form and times (what a LangGraph store returns)."""

    key: str
    text: str
    metadata: dict[str, Any]
    form: str
    created_at: float
    updated_at: float
    ttl_minutes: float | None


class ItemRows:
    """The ``items`` table of one store.

    Args:
        db: The store's connection.
        values: How its values are sealed and its keys stored.
    """

    def __init__(self, db: Database, values: StoreValues) -> None:
        self.db = db
        self.values = values

    def row(
        self,
        ns: str,
        item: StoreItem,
        stored: str,
        *,
        digest: str,
        vector: bytes,
        now: float,
        form: str,
        provenance: ItemProvenance,
    ) -> tuple[Any, ...]:
        """The row of ``item`` under its stored key (inside ``values.sealing()``), in the
        columns of ``UPSERT``."""
        row = (ITEM, ns, stored)
        text = self.values.seal(item.text.encode("utf-8"), row, "text")
        metadata = self.values.metadata_blob(ns, stored, item, vector)
        origin = self.values.seal(provenance.to_json().encode("utf-8"), row, "provenance")
        ttl = item.ttl_minutes
        expires = None if ttl is None else now + 60.0 * ttl
        indexed = int(bool(item.embedded_text.strip()))
        return (ns, stored, text, metadata, vector, digest, SCHEMA_VERSION, now, now, expires,
                ttl, form, indexed, origin)  # fmt: skip

    def get(self, ns: str, key: str, now: float) -> StoredEntry | None:
        """The live item stored under ``key``, or None."""
        found = self.entries(ns, [key], now)
        return found.get(key)

    def entries(self, ns: str, keys: Iterable[str], now: float) -> dict[str, StoredEntry]:
        """The live items stored under ``keys``, opened, by key."""
        found = self.entries_at(ns, [self.values.blind(ITEM, ns, key) for key in keys], now)
        return {entry.key: entry for entry in found.values()}

    def entries_at(self, ns: str, stored_keys: Iterable[str], now: float) -> dict[str, StoredEntry]:
        """The live items at ``stored_keys``, opened, by stored key.

        Raises:
            TamperError: A row's vector is not the one sealed with it.
        """
        columns = "text, metadata, vector, form, created_at, updated_at, ttl_minutes"
        entries = {}
        for stored, text, metadata, vector, form, created, updated, ttl in self._select_stored(
            ns, columns, stored_keys, live_at=now
        ):
            key, opened, digest = self.values.opened_metadata(ns, stored, metadata)
            self.values.check_vector(ns, key, digest, vector)
            entries[stored] = StoredEntry(
                key=key,
                text=self.values.text(ns, stored, text, key),
                metadata=opened,
                form=form,
                created_at=created if created is not None else updated,
                updated_at=updated,
                ttl_minutes=ttl,
            )
        return entries

    def opened(self, ns: str, stored_keys: Iterable[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """The item key and metadata at each of ``stored_keys``."""
        rows = self._select_stored(ns, "metadata", stored_keys)
        return {stored: self.values.key_and_metadata(ns, stored, blob) for stored, blob in rows}

    def keys(self, ns: str, now: float) -> list[str]:
        """The live keys of ``ns``, sorted (a sealed store opens each item's metadata)."""
        if not self.values.sealed:
            sql = f"SELECT key FROM items WHERE namespace = ? AND {LIVE} ORDER BY key"
            return [key for (key,) in self.db.execute(sql, (ns, now))]
        rows = self.db.execute(
            f"SELECT key, metadata FROM items WHERE namespace = ? AND {LIVE}", (ns, now)
        )
        return sorted(self.values.key_and_metadata(ns, key, blob)[0] for key, blob in rows)

    def index(
        self, ns: str, dim: int, approximate_from: int | None, build_slot: threading.Lock
    ) -> VectorIndex:
        """A new in-memory index of the vectors and row facts of ``ns`` (keys and metadata
        are opened when needed; search approximate from ``approximate_from`` vectors, its
        builds holding ``build_slot``)."""
        rows = self.db.execute(
            "SELECT key, vector, form, indexed, updated_at, expires_at FROM items "
            "WHERE namespace = ? ORDER BY key",
            (ns,),
        ).fetchall()
        index = VectorIndex(dim, approximate_from, build_slot)
        if rows:
            matrix = np.frombuffer(b"".join(row[1] for row in rows), dtype=np.float32)
            index.upsert(
                [row[0] for row in rows],
                matrix.reshape(len(rows), dim),
                [RowFacts(row[2], bool(row[3]), row[4], row[5]) for row in rows],
            )
        return index

    def provenance(self, ns: str, key: str, now: float) -> ItemProvenance | None:
        """Where the live item under ``key`` came from (None: no such item, or written before
        items recorded it)."""
        found = self._select(ns, "provenance", [key], live_at=now)
        if not found or found[0][2] is None:
            return None
        _, stored, blob = found[0]
        return ItemProvenance.from_json(
            self.values.open(blob, (ITEM, ns, stored), "provenance", key).decode("utf-8")
        )

    def expiry(self, ns: str, stored_keys: Iterable[str]) -> dict[str, float | None]:
        """When the items at ``stored_keys`` expire (None: never), as the database has it."""
        return dict(self._select_stored(ns, "expires_at", stored_keys))

    def reusable_vectors(self, ns: str, hashes: Mapping[str, str]) -> dict[str, bytes]:
        """The stored vectors of the keys in ``hashes`` whose content hash is unchanged and,
        sealed, whose vector is bound to the row (an older row's is embedded again).

        Raises:
            TamperError: A stored vector is not its row's.
        """
        rows = self._select(ns, "content_hash, vector, metadata", hashes)
        return {
            key: bytes(vector)
            for key, stored, digest, vector, metadata in rows
            if digest == hashes[key] and self._bound(ns, stored, key, metadata, vector)
        }

    def _bound(self, ns: str, stored: str, key: str, metadata: bytes, vector: bytes) -> bool:
        """Whether a stored vector may be kept: a plain store's always, a sealed store's when
        its row holds its digest (checked)."""
        if not self.values.sealed:
            return True
        digest = self.values.opened_metadata(ns, stored, metadata, key)[2]
        self.values.check_vector(ns, key, digest, vector)
        return digest is not None

    def _select(
        self, ns: str, columns: str, keys: Iterable[str], live_at: float | None = None
    ) -> list[tuple[Any, ...]]:
        """``key, stored key, <columns>`` of the stored ``keys`` (live at ``live_at`` when
        given)."""
        wanted = {self.values.blind(ITEM, ns, key): key for key in keys}
        rows = self._select_stored(ns, columns, wanted, live_at)
        return [(wanted[row[0]], *row) for row in rows]

    def _select_stored(
        self, ns: str, columns: str, stored_keys: Iterable[str], live_at: float | None = None
    ) -> list[tuple[Any, ...]]:
        """``stored key, <columns>`` of the rows at ``stored_keys`` (live at ``live_at`` when
        given), in batches of bound parameters."""
        stored = list(dict.fromkeys(stored_keys))
        live = f" AND {LIVE}" if live_at is not None else ""
        extra = (live_at,) if live_at is not None else ()
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(stored), _IN_BATCH):
            part = stored[start : start + _IN_BATCH]
            marks = ",".join("?" * len(part))
            sql = f"SELECT key, {columns} FROM items WHERE namespace = ? AND key IN ({marks}){live}"
            rows.extend(tuple(row) for row in self.db.execute(sql, (ns, *part, *extra)))
        return rows
