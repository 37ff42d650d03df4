"""The approximate index behind a large namespace's search: faiss's inverted file (IVF-Flat,
inner product), held in memory and built from the namespace's vectors, so it is rebuilt from the
rows whenever the in-memory index is (nothing of it is persisted).

The vectors are clustered (k-means on a sample) into about ``sqrt(n)`` lists; a search scans
the ``nprobe`` lists whose centroids are nearest the query, exactly, so its recall depends on how
clustered the vectors are (real embeddings are; uniformly random ones are not, and need most
lists scanned). Items are added and removed by a stable integer id in place, without retraining,
so an index is trained on a sample first and then filled in parts.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["ApproximateIndex", "training_sample"]

_POINTS_PER_LIST = 40
"""Training sample size per list (faiss warns under 39)."""
_PROBED_SHARE = 25
"""One list in this many is scanned per query (at least ``_MIN_PROBES``)."""
_MIN_PROBES = 8


def training_sample(size: int) -> npt.NDArray[np.int64]:
    """Which of ``size`` vectors (by position, sorted) an index of them is trained on."""
    sample = np.random.default_rng(0).choice(
        size, min(size, _lists(size) * _POINTS_PER_LIST), replace=False
    )
    return np.sort(sample)


def _lists(size: int) -> int:
    return max(1, min(size // _POINTS_PER_LIST, round(math.sqrt(size))))


class ApproximateIndex:
    """An IVF-Flat index over unit vectors, by int64 id, trained for ``size`` vectors on the
    sample of them :func:`training_sample` picks; it starts empty.

    Args:
        sample: The training vectors.
        size: How many vectors it is meant to hold (sets the number of lists).
    """

    def __init__(self, sample: npt.NDArray[np.float32], size: int) -> None:
        import faiss  # noqa: PLC0415 - loaded for the first namespace this large only

        self._faiss: Any = faiss  # its stubs miss the keyword and array forms used here
        self.trained_on = size
        lists = _lists(size)
        dim = sample.shape[1]
        self._index: Any = faiss.IndexIVFFlat(
            faiss.IndexFlatIP(dim), dim, lists, faiss.METRIC_INNER_PRODUCT
        )
        self._index.train(np.ascontiguousarray(sample))
        self._index.set_direct_map_type(self._faiss.DirectMap.Hashtable)
        self._probes = min(lists, max(_MIN_PROBES, lists // _PROBED_SHARE))

    def add(self, vectors: npt.NDArray[np.float32], ids: npt.NDArray[np.int64]) -> None:
        """Add vectors under ids not in the index."""
        if len(ids):
            self._index.add_with_ids(np.ascontiguousarray(vectors), ids)

    def remove(self, ids: npt.NDArray[np.int64]) -> None:
        """Remove the vectors of ``ids`` (ids not in the index are ignored)."""
        if len(ids):
            self._index.remove_ids(ids)

    def search(
        self, queries: npt.NDArray[np.float32], k: int, allowed: npt.NDArray[np.int64] | None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """Scores and ids of about the best ``k`` vectors per query (id -1: none found), among
        the ids in ``allowed`` when given."""
        params: Any = self._faiss.SearchParametersIVF(nprobe=self._probes)
        if allowed is not None:
            bits = np.zeros(int(allowed.max(initial=-1)) + 1, dtype=bool)
            bits[allowed] = True
            params.sel = self._faiss.IDSelectorBitmap(np.packbits(bits, bitorder="little"))
        scores, ids = self._index.search(np.ascontiguousarray(queries), k, params=params)
        return scores, ids
