"""The in-memory vector index behind :class:`~framework.memory.store.SemanticStore` search."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from framework.memory._ann import ApproximateIndex
from framework.memory._ann_build import BackgroundBuilder

__all__ = ["Matrix", "RowFacts", "VectorIndex"]

Matrix = npt.NDArray[np.float32]

_NEVER = np.inf


@dataclass(frozen=True)
class RowFacts:
    """What search needs to know of a row besides its vector and metadata."""

    form: str = "text"
    """``text`` (a cadre item) or ``value`` (a LangGraph value)."""
    indexed: bool = True
    """Whether the vector takes part in search (an item with nothing to embed has none)."""
    updated_at: float = 0.0
    expires_at: float | None = None
    """When it expires (seconds since the epoch); None: never."""


class VectorIndex:
    """One namespace's vectors and row facts in memory, in growable arrays, by stored key.

    Item keys and metadata are sealed in a sealed store, so they are opened only when needed:
    for the hits of a search, or for every row once a filter reads them (:meth:`unopened`,
    :meth:`fill`); a row written through the index has them at once.

    Expiry times here are never later than the database's: a refresh (which only moves them
    later) may have happened in another process, so rows found expired here are checked there
    (:meth:`expired_keys`, :meth:`set_expiry`) before a search leaves them out.

    Search is exact (a matrix product) until the rows with a vector reach ``approximate_from``;
    from then on an :class:`ApproximateIndex` of them serves searches of more than
    ``approximate_from`` allowed rows (a query it finds fewer than ``k`` allowed hits for is
    answered exactly). It is built in the background (:mod:`~framework.memory._ann_build`),
    started by the first search and again once the rows have doubled; meanwhile search goes on
    exactly, or through the previous index, which every write keeps up to date in place. Its
    ids are the rows' stable ids, so it only ever holds this namespace's vectors.

    Its methods are called by one thread at a time (the store holds its lock); writes also
    hold :attr:`guard`, which the build takes to copy vectors.

    Args:
        dim: The vectors' width.
        approximate_from: Rows with a vector from which search is approximate (None: never).
        build_slot: Held while its approximate index is built; shared by the indexes of one
            namespace (a lock of its own when omitted).
    """

    def __init__(
        self,
        dim: int,
        approximate_from: int | None = None,
        build_slot: threading.Lock | None = None,
    ) -> None:
        self._matrix: Matrix = np.zeros((0, dim), dtype=np.float32)
        self._updated = np.zeros(0, dtype=np.float64)
        self._expires = np.zeros(0, dtype=np.float64)
        self._indexed = np.zeros(0, dtype=bool)
        self._ids = np.zeros(0, dtype=np.int64)
        self._row_of_id = np.zeros(0, dtype=np.int64)
        self._approximate_from = approximate_from
        self._approximate: ApproximateIndex | None = None
        self._builder = BackgroundBuilder(build_slot or threading.Lock())
        self._guard = threading.RLock()
        self._changed: set[int] | None = None
        self._keys: list[str] = []
        self._names: list[str | None] = []
        self._metadata: list[dict[str, Any] | None] = []
        self._forms: list[str] = []
        self._rows: dict[str, int] = {}

    @property
    def size(self) -> int:
        """Number of rows."""
        return len(self._keys)

    @property
    def guard(self) -> threading.RLock:
        """Held while rows are written, and by a build while it copies vectors or swaps."""
        return self._guard

    def close(self) -> None:
        """Stop a build of its approximate index (the index is no longer used)."""
        self._builder.stop()

    def wait_for_build(self, timeout: float | None = None) -> None:
        """Wait for a build of its approximate index to end (at most ``timeout`` seconds)."""
        self._builder.wait(timeout)

    def upsert(
        self,
        keys: Sequence[str],
        vectors: Matrix,
        facts: Sequence[RowFacts],
        opened: Sequence[tuple[str, dict[str, Any]] | None] | None = None,
    ) -> None:
        """Replace the rows of known stored keys and append the rest (amortised growth).

        Args:
            keys: The stored keys.
            vectors: One per key.
            facts: One per key.
            opened: The item key and metadata of each (None: not opened yet).
        """
        with self._guard:
            self._upsert(keys, vectors, facts, opened)

    def _upsert(
        self,
        keys: Sequence[str],
        vectors: Matrix,
        facts: Sequence[RowFacts],
        opened: Sequence[tuple[str, dict[str, Any]] | None] | None,
    ) -> None:
        names = opened if opened is not None else [None] * len(keys)
        fresh = [i for i, key in enumerate(keys) if key not in self._rows]
        start = self.size
        if fresh:
            self._grow(start + len(fresh))
            first_id = len(self._row_of_id)
            self._row_of_id = np.concatenate(
                [self._row_of_id, np.arange(start, start + len(fresh), dtype=np.int64)]
            )
            self._ids[start : start + len(fresh)] = np.arange(first_id, first_id + len(fresh))
            for row, i in enumerate(fresh, start):
                self._rows[keys[i]] = row
                self._keys.append(keys[i])
                self._names.append(None)
                self._metadata.append(None)
                self._forms.append("")
        for i, key in enumerate(keys):
            row = self._rows[key]
            fact = facts[i]
            self._matrix[row] = vectors[i]
            name = names[i]
            self._names[row], self._metadata[row] = name if name is not None else (None, None)
            self._forms[row] = fact.form
            self._indexed[row] = fact.indexed
            self._updated[row] = fact.updated_at
            self._expires[row] = _NEVER if fact.expires_at is None else fact.expires_at
        rows = np.array([self._rows[key] for key in keys], dtype=np.int64)
        self._written(self._ids[rows])
        if self._approximate is not None:
            self._approximate.remove(self._ids[rows])
            rows = rows[self._indexed[rows]]
            self._approximate.add(self._matrix[rows], self._ids[rows])

    def delete(self, keys: Iterable[str]) -> None:
        """Drop the rows of ``keys`` (unknown keys are ignored), keeping the others in order."""
        with self._guard:
            self._delete([self._rows[key] for key in keys if key in self._rows])

    def _delete(self, gone: list[int]) -> None:
        if not gone:
            return
        self._written(self._ids[gone])
        if self._approximate is not None:
            self._approximate.remove(self._ids[gone])
        self._row_of_id[self._ids[gone]] = -1
        mask = np.ones(self.size, dtype=bool)
        mask[gone] = False
        keep = np.flatnonzero(mask)
        for array in (self._matrix, self._updated, self._expires, self._indexed, self._ids):
            array[: len(keep)] = array[keep]
        self._row_of_id[self._ids[: len(keep)]] = np.arange(len(keep))
        rows = keep.tolist()
        self._keys = [self._keys[row] for row in rows]
        self._names = [self._names[row] for row in rows]
        self._metadata = [self._metadata[row] for row in rows]
        self._forms = [self._forms[row] for row in rows]
        self._rows = {key: row for row, key in enumerate(self._keys)}

    def _written(self, ids: npt.NDArray[np.int64]) -> None:
        """Count rows written while a build runs (it puts them right before it swaps)."""
        if self._changed is not None:
            self._changed.update(ids.tolist())

    # -- for a build (see BuildSource) -----------------------------------------------------

    def indexed_ids(self) -> npt.NDArray[np.int64]:
        """The ids of the rows with a vector."""
        return self._ids[: self.size][self._indexed[: self.size]].copy()

    def vectors_of(self, ids: npt.NDArray[np.int64]) -> tuple[Matrix, npt.NDArray[np.int64]]:
        """Copies of the vectors of those of ``ids`` still here with a vector, and their ids."""
        rows = self._row_of_id[ids]
        present = rows >= 0
        present[present] = self._indexed[rows[present]]
        return self._matrix[rows[present]], ids[present]

    def track_changes(self, on: bool) -> None:
        """Start (or stop) counting the ids of the rows written."""
        self._changed = set() if on else None

    def take_changes(self) -> npt.NDArray[np.int64]:
        """The ids of the rows written since the last call, sorted."""
        changed = np.array(sorted(self._changed or ()), dtype=np.int64)
        if self._changed is not None:
            self._changed = set()
        return changed

    def install(self, index: ApproximateIndex) -> None:
        """Search through ``index`` from now on."""
        self._approximate = index

    # -- reading ---------------------------------------------------------------------------

    def unopened(self) -> list[str]:
        """Stored keys whose item key and metadata are not opened yet."""
        return [key for key, meta in zip(self._keys, self._metadata, strict=True) if meta is None]

    def fill(self, opened: Mapping[str, tuple[str, dict[str, Any]]]) -> None:
        """Take opened item keys and metadata, by stored key."""
        for stored, (name, metadata) in opened.items():
            row = self._rows.get(stored)
            if row is not None:
                self._names[row], self._metadata[row] = name, metadata

    def expired_keys(self, now: float) -> list[str]:
        """Stored keys whose expiry here has passed (to be checked against the database)."""
        return [self._keys[row] for row in np.flatnonzero(self._expires[: self.size] <= now)]

    def set_expiry(self, expiry: Mapping[str, float | None]) -> None:
        """Take later expiry times (a refresh, here or in another process)."""
        for key, expires_at in expiry.items():
            row = self._rows.get(key)
            if row is not None:
                self._expires[row] = _NEVER if expires_at is None else expires_at

    def live(self, now: float) -> npt.NDArray[np.bool_]:
        """Which rows have not expired."""
        alive: npt.NDArray[np.bool_] = self._expires[: self.size] > now
        return alive

    def where(self, test: Callable[[str, dict[str, Any], str], bool]) -> npt.NDArray[np.bool_]:
        """Which rows pass ``test(item key, metadata, form)``; a row not opened yet (see
        :meth:`unopened`, :meth:`fill`) passes none."""
        rows = zip(self._names, self._metadata, self._forms, strict=True)
        passed = [
            name is not None and meta is not None and test(name, meta, form)
            for name, meta, form in rows
        ]
        return np.array(passed, dtype=bool)

    def matching(self, allowed: npt.NDArray[np.bool_]) -> list[tuple[str, float]]:
        """``(stored key, updated_at)`` of the allowed rows, most recently updated first."""
        rows = np.flatnonzero(allowed)
        order = rows[np.argsort(-self._updated[rows], kind="stable")]
        return [(self._keys[r], float(self._updated[r])) for r in order.tolist()]

    def unscored(self, allowed: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """The allowed rows that take no part in scoring (no vector)."""
        result: npt.NDArray[np.bool_] = allowed & ~self._indexed[: self.size]
        return result

    def search(
        self,
        queries: Matrix,
        k: int,
        min_score: float,
        where: Mapping[str, Any] | None = None,
        allowed: npt.NDArray[np.bool_] | None = None,
    ) -> list[list[tuple[str, float]]]:
        """Per query, ``(stored key, score)`` of the best ``k`` allowed rows with a vector,
        best first.

        Args:
            queries: One embedded query per row.
            k: At most this many hits per query.
            min_score: Leave out hits scoring less.
            where: Keep only rows whose metadata has exactly these key/value pairs (every row
                opened first).
            allowed: Keep only these rows (live ones, a filter's matches).
        """
        if self.size == 0:
            return [[] for _ in range(len(queries))]
        mask = self._indexed[: self.size].copy()
        if allowed is not None:
            mask &= allowed
        if where:
            mask &= self.where(lambda _, metadata, __: _matches(metadata, where))
        candidates = int(np.count_nonzero(mask))
        approximate = self._approximate_index(candidates)
        if approximate is None:
            return self._exact(queries, k, min_score, mask)
        filtered = not np.array_equal(mask, self._indexed[: self.size])
        scores, ids = approximate.search(
            queries, k, self._ids[: self.size][mask] if filtered else None
        )
        results = []
        for query, row_scores, row_ids in zip(queries, scores, ids, strict=True):
            found = row_ids >= 0
            if np.count_nonzero(found) < min(k, candidates):
                results.extend(self._exact(query[None], k, min_score, mask))
                continue
            rows = self._row_of_id[row_ids[found]].tolist()
            results.append(
                [
                    (self._keys[row], score)
                    for row, score in zip(rows, row_scores[found].tolist(), strict=True)
                    if score >= min_score
                ]
            )
        return results

    def _approximate_index(self, allowed: int) -> ApproximateIndex | None:
        """The approximate index when a search of ``allowed`` rows should use it (a build is
        started when there is none or the rows have doubled since); None: search exactly."""
        if self._approximate_from is None:
            return None
        vectors = int(np.count_nonzero(self._indexed[: self.size]))
        if vectors < self._approximate_from:
            self._approximate = None
            return None
        approximate = self._approximate
        if approximate is None or vectors >= 2 * approximate.trained_on:
            self._builder.start(self)
        if approximate is None or allowed <= self._approximate_from:
            return None
        return approximate

    def _exact(
        self, queries: Matrix, k: int, min_score: float, mask: npt.NDArray[np.bool_]
    ) -> list[list[tuple[str, float]]]:
        """Per query, the best ``k`` rows of ``mask`` by a matrix product, best first (over
        those rows alone when they are few)."""
        rows = np.flatnonzero(mask)
        if len(rows) == 0:
            return [[] for _ in range(len(queries))]
        if 4 * len(rows) < self.size:
            scores = queries @ self._matrix[rows].T
        else:
            scores = (queries @ self._matrix[: self.size].T)[:, rows]
        k = min(k, len(rows))
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        results = []
        for row_scores, candidates in zip(scores, top, strict=True):
            best = candidates[np.argsort(-row_scores[candidates], kind="stable")]
            results.append(
                [
                    (self._keys[rows[c]], float(row_scores[c]))
                    for c in best.tolist()
                    if row_scores[c] >= min_score
                ]
            )
        return results

    def _grow(self, end: int) -> None:
        """Room for ``end`` rows in every array."""
        if end <= len(self._matrix):
            return
        capacity = max(end, 2 * len(self._matrix), 64)
        start = self.size
        matrix = np.zeros((capacity, self._matrix.shape[1]), np.float32)
        matrix[:start] = self._matrix[:start]
        self._matrix = matrix
        for name in ("_updated", "_expires", "_indexed", "_ids"):
            old = getattr(self, name)
            grown = np.zeros(capacity, dtype=old.dtype)
            grown[:start] = old[:start]
            setattr(self, name, grown)


def _matches(metadata: Mapping[str, Any], where: Mapping[str, Any]) -> bool:
    return all(key in metadata and metadata[key] == value for key, value in where.items())
