"""Tombstones of purged scopes, in the semantic store's database: who purged, when, and how
much went, never what. The scope is kept as a keyed digest, so a purge can be found again
(and finished, if it was interrupted) by naming the scope, but not read back."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from framework.database import Database

__all__ = ["TOMBSTONE_TABLE", "Tombstone", "Tombstones"]

TOMBSTONE_TABLE = """CREATE TABLE IF NOT EXISTS purges (
    id TEXT PRIMARY KEY, scope_digest TEXT NOT NULL, requested_by TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL, finished_at DOUBLE PRECISION, counts TEXT NOT NULL)"""


@dataclass(frozen=True, kw_only=True)
class Tombstone:
    """One purge: who asked, when it started and finished (None: interrupted), what counts."""

    id: str
    scope_digest: str
    requested_by: str
    started_at: float
    finished_at: float | None
    counts: dict[str, int]


class Tombstones:
    """The ``purges`` table of one store.

    Args:
        db: The store's connection.
        lock: The store's lock.
        digest: Keyed digest of a scope name.
    """

    def __init__(
        self, db: Database, lock: AbstractContextManager[Any], digest: Callable[[str], str]
    ) -> None:
        self.db = db
        self.lock = lock
        self.digest = digest

    def begin(self, scope: str, requested_by: str) -> Tombstone:
        """The unfinished purge of ``scope``, or a new one recorded now."""
        found = self.unfinished(scope)
        if found is not None:
            return found
        stone = Tombstone(
            id=secrets.token_hex(8),
            scope_digest=self.digest(scope),
            requested_by=requested_by,
            started_at=time.time(),
            finished_at=None,
            counts={},
        )
        with self.lock, self.db.write_transaction():
            self.db.execute(
                "INSERT INTO purges (id, scope_digest, requested_by, started_at, finished_at, "
                "counts) VALUES (?, ?, ?, ?, NULL, '{}')",
                (stone.id, stone.scope_digest, stone.requested_by, stone.started_at),
            )
        return stone

    def finish(self, stone: Tombstone, counts: Mapping[str, int]) -> Tombstone:
        """Record that ``stone``'s purge finished, with what it removed."""
        done = time.time()
        with self.lock, self.db.write_transaction():
            self.db.execute(
                "UPDATE purges SET finished_at = ?, counts = ? WHERE id = ?",
                (done, json.dumps(dict(counts), sort_keys=True), stone.id),
            )
        return Tombstone(**{**stone.__dict__, "finished_at": done, "counts": dict(counts)})

    def unfinished(self, scope: str) -> Tombstone | None:
        """The purge of ``scope`` that started and did not finish, if any."""
        return next((s for s in self.of(scope) if s.finished_at is None), None)

    def of(self, scope: str) -> list[Tombstone]:
        """The purges of ``scope``, oldest first."""
        digest = self.digest(scope)
        return [stone for stone in self.all() if stone.scope_digest == digest]

    def all(self) -> list[Tombstone]:
        """Every purge, oldest first."""
        with self.lock:
            rows = self.db.execute(
                "SELECT id, scope_digest, requested_by, started_at, finished_at, counts "
                "FROM purges ORDER BY started_at"
            ).fetchall()
        return [
            Tombstone(
                id=row[0],
                scope_digest=row[1],
                requested_by=row[2],
                started_at=row[3],
                finished_at=row[4],
                counts=json.loads(row[5]),
            )
            for row in rows
        ]
