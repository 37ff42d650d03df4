"""The in-memory vector index behind :class:`~framework.memory.store.SemanticStore` search."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Matrix", "VectorIndex"]

Matrix = npt.NDArray[np.float32]


class VectorIndex:
    """One namespace's vectors and metadata in memory, in a growable matrix."""

    def __init__(self, dim: int) -> None:
        self._matrix: Matrix = np.zeros((0, dim), dtype=np.float32)
        self._keys: list[str] = []
        self._metadata: list[dict[str, Any]] = []
        self._rows: dict[str, int] = {}

    @property
    def size(self) -> int:
        """Number of rows."""
        return len(self._keys)

    def upsert(
        self, keys: Sequence[str], vectors: Matrix, metadata: Sequence[dict[str, Any]]
    ) -> None:
        """Replace the rows of known keys and append the rest (amortised growth)."""
        fresh = [i for i, key in enumerate(keys) if key not in self._rows]
        for i, key in enumerate(keys):
            row = self._rows.get(key)
            if row is not None:
                self._matrix[row] = vectors[i]
                self._metadata[row] = metadata[i]
        if not fresh:
            return
        start, end = self.size, self.size + len(fresh)
        if end > len(self._matrix):
            grown = np.zeros(
                (max(end, 2 * len(self._matrix), 64), self._matrix.shape[1]), np.float32
            )
            grown[:start] = self._matrix[:start]
            self._matrix = grown
        self._matrix[start:end] = vectors[fresh]
        for row, i in enumerate(fresh, start):
            self._rows[keys[i]] = row
            self._keys.append(keys[i])
            self._metadata.append(metadata[i])

    def delete(self, keys: Iterable[str]) -> None:
        """Drop the rows of ``keys`` (unknown keys are ignored), keeping the others in order."""
        gone = [self._rows[key] for key in keys if key in self._rows]
        if not gone:
            return
        mask = np.ones(self.size, dtype=bool)
        mask[gone] = False
        keep = np.flatnonzero(mask)
        self._matrix[: len(keep)] = self._matrix[keep]
        self._keys = [self._keys[row] for row in keep.tolist()]
        self._metadata = [self._metadata[row] for row in keep.tolist()]
        self._rows = {key: row for row, key in enumerate(self._keys)}

    def search(
        self, queries: Matrix, k: int, min_score: float, where: Mapping[str, Any] | None
    ) -> list[list[tuple[str, float, dict[str, Any]]]]:
        """Per query, ``(key, score, metadata)`` of the best ``k`` rows, best first."""
        if self.size == 0:
            return [[] for _ in range(len(queries))]
        scores = queries @ self._matrix[: self.size].T
        if where:
            allowed = np.fromiter((_matches(m, where) for m in self._metadata), bool, self.size)
            scores[:, ~allowed] = -np.inf
        k = min(k, self.size)
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        results = []
        for row_scores, candidates in zip(scores, top, strict=True):
            best = candidates[np.argsort(-row_scores[candidates], kind="stable")]
            results.append(
                [
                    (self._keys[r], float(row_scores[r]), self._metadata[r])
                    for r in best
                    if row_scores[r] >= min_score
                ]
            )
        return results


def _matches(metadata: Mapping[str, Any], where: Mapping[str, Any]) -> bool:
    return all(key in metadata and metadata[key] == value for key, value in where.items())
