"""Reading and writing a semantic store's item rows through its :class:`StoreValues` (keys
blinded and values sealed when the store is). The caller holds the store's lock."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from framework.database import Database
from framework.memory._index import VectorIndex
from framework.memory._items import StoreItem
from framework.memory._tables import SCHEMA_VERSION
from framework.memory._values import ITEM, StoreValues

__all__ = ["ItemRows"]

_IN_BATCH = 500  # keys per ``IN (...)`` query, well under SQLite's variable limit


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
        self, ns: str, item: StoreItem, stored: str, *, digest: str, vector: bytes, now: float
    ) -> tuple[Any, ...]:
        """The row of ``item`` under its stored key (inside ``values.sealing()``)."""
        text = self.values.seal(item.text.encode("utf-8"), (ITEM, ns, stored), "text")
        metadata = self.values.metadata_blob(ns, stored, item)
        return (ns, stored, text, metadata, vector, digest, SCHEMA_VERSION, now)

    def get(self, ns: str, key: str) -> StoreItem | None:
        """The item stored under ``key``, or None."""
        stored = self.values.blind(ITEM, ns, key)
        row = self.db.execute(
            "SELECT text, metadata FROM items WHERE namespace = ? AND key = ?", (ns, stored)
        ).fetchone()
        if row is None:
            return None
        text = self.values.text(ns, stored, row[0], key)
        _, metadata = self.values.key_and_metadata(ns, stored, row[1], key)
        return StoreItem(key=key, text=text, metadata=metadata)

    def keys(self, ns: str) -> list[str]:
        """The keys of ``ns``, sorted (a sealed store opens each item's metadata)."""
        if not self.values.sealed:
            sql = "SELECT key FROM items WHERE namespace = ? ORDER BY key"
            return [key for (key,) in self.db.execute(sql, (ns,))]
        rows = self.db.execute("SELECT key, metadata FROM items WHERE namespace = ?", (ns,))
        return sorted(self.values.key_and_metadata(ns, key, blob)[0] for key, blob in rows)

    def index(self, ns: str, dim: int) -> VectorIndex:
        """A new in-memory index of the vectors and metadata of ``ns``."""
        rows = self.db.execute(
            "SELECT key, metadata, vector FROM items WHERE namespace = ? ORDER BY key", (ns,)
        ).fetchall()
        index = VectorIndex(dim)
        if rows:
            matrix = np.frombuffer(b"".join(row[2] for row in rows), dtype=np.float32)
            opened = [self.values.key_and_metadata(ns, row[0], row[1]) for row in rows]
            index.upsert(
                [key for key, _ in opened],
                matrix.reshape(len(rows), dim),
                [metadata for _, metadata in opened],
            )
        return index

    def known_vectors(self, ns: str, keys: Sequence[str]) -> dict[str, tuple[str, bytes]]:
        """Content hash and vector of the keys already stored."""
        rows = self._select(ns, "content_hash, vector", keys)
        return {key: (digest, vector) for key, _, digest, vector in rows}

    def texts(self, ns: str, keys: Iterable[str]) -> dict[str, str]:
        """Opened texts of the stored ``keys``."""
        rows = self._select(ns, "text", keys)
        return {key: self.values.text(ns, stored, blob, key) for key, stored, blob in rows}

    def _select(self, ns: str, columns: str, keys: Iterable[str]) -> list[tuple[Any, ...]]:
        """``key, stored key, <columns>`` of the stored ``keys``, in batches of bound
        parameters."""
        wanted = {self.values.blind(ITEM, ns, key): key for key in keys}
        stored = list(wanted)
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(stored), _IN_BATCH):
            part = stored[start : start + _IN_BATCH]
            marks = ",".join("?" * len(part))
            sql = f"SELECT key, {columns} FROM items WHERE namespace = ? AND key IN ({marks})"
            rows.extend((wanted[row[0]], *row) for row in self.db.execute(sql, (ns, *part)))
        return rows
