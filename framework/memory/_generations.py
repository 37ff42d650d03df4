"""Which namespaces other connections wrote, so a store drops only those in-memory indexes.

Every write that changes what search sees counts one ``generation`` (a row of ``meta``). A
write that knows its namespaces also counts ``scoped_generation`` and records the new
generation against each of them (``namespace_generations``, the names blinded in a sealed
store); one that does not (an erasure, an upgrade, a writer from before this table) counts
``generation`` alone. A connection that sees the generation moved asks which namespaces were
written since; it drops every index when the unscoped count (the difference of the two) moved
too, as it cannot tell which were.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from framework.database import Database
from framework.memory._tables import BUMP_GENERATION, BUMP_SCOPED_GENERATION
from framework.memory._values import StoreValues

__all__ = ["Generations"]

_READ = "SELECT name, value FROM meta WHERE name IN ('generation', 'scoped_generation')"
_RECORD = (
    "INSERT INTO namespace_generations (namespace, generation) VALUES (?, ?) "
    "ON CONFLICT (namespace) DO UPDATE SET generation = excluded.generation"
)
_WRITTEN_SINCE = "SELECT namespace FROM namespace_generations WHERE generation > ?"


class Generations:
    """One connection's view of the store's write counts (its caller holds the store's lock).

    Args:
        db: The store's connection.
        values: Blinds namespace names in a sealed store.
    """

    def __init__(self, db: Database, values: StoreValues) -> None:
        self._db = db
        self._values = values
        self._seen = -1
        self._unscoped = -1

    def bump(self, namespaces: Collection[str] | None) -> None:
        """Count a write of ``namespaces`` (None: of any), inside its transaction."""
        if namespaces is None:
            self._db.execute(BUMP_GENERATION)
            return
        self._db.execute(BUMP_SCOPED_GENERATION)
        generation, unscoped = self._read()
        self._db.executemany(_RECORD, [(self._name(ns), generation) for ns in namespaces])
        if generation - 1 == self._seen and unscoped == self._unscoped:
            self._seen = generation  # nobody else wrote since the last look

    def forget(self, namespaces: Iterable[str]) -> None:
        """Drop the records of erased namespaces (with a write of any namespace counted)."""
        self._db.executemany(
            "DELETE FROM namespace_generations WHERE namespace = ?",
            [(self._name(ns),) for ns in namespaces],
        )

    def stale(self, held: Iterable[str]) -> list[str] | None:
        """Which of the ``held`` namespaces were written since the last call, by this
        connection or another (all of them when it cannot tell which); None: nothing was."""
        generation, unscoped = self._read()
        if generation == self._seen:
            return None
        seen, self._seen = self._seen, generation
        if unscoped != self._unscoped:
            self._unscoped = unscoped
            return list(held)
        written = {name for (name,) in self._db.execute(_WRITTEN_SINCE, (seen,)).fetchall()}
        return [ns for ns in held if self._name(ns) in written]

    def _read(self) -> tuple[int, int]:
        """The generation, and how many of its writes named no namespace."""
        found = dict(self._db.execute(_READ).fetchall())
        generation = int(found["generation"])
        return generation, generation - int(found["scoped_generation"])

    def _name(self, ns: str) -> str:
        return self._values.blind("generation", ns, ns)
