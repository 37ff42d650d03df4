"""Building a namespace's approximate index on a thread of its own, while its searches go on.

The build copies the namespace's vectors a chunk at a time, each under the index's lock held
for that copy alone, and trains and fills the new index outside it; the rows written meanwhile
are counted as they are written and put right in the new index before it is swapped in, the
last of them under the lock, so the index swapped in holds every row as it is then. A failed
build is logged once and tried again :data:`RETRY_AFTER` seconds later at the earliest.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

import numpy as np
import numpy.typing as npt

from framework.memory import _clock
from framework.memory._ann import ApproximateIndex, training_sample

__all__ = ["RETRY_AFTER", "BackgroundBuilder", "BuildSource"]

logger = logging.getLogger("cadre.memory")

RETRY_AFTER = 300.0
"""Seconds after a failed build before a search starts another."""
_COPIED = 4_096
"""Vectors copied per hold of the lock (6 MB at width 384)."""
_LAST = 1_024
"""The most rows written during a build that are put right under the lock at its end (more are
put right outside it first, as many times as it takes)."""

Ids = npt.NDArray[np.int64]


class BuildSource(Protocol):
    """The namespace index a build reads (see :class:`~framework.memory._index.VectorIndex`)."""

    @property
    def guard(self) -> threading.RLock:
        """Held while its rows are written, and by the build while it copies or swaps."""
        ...

    def indexed_ids(self) -> Ids:
        """The ids of the rows with a vector."""
        ...

    def vectors_of(self, ids: Ids) -> tuple[npt.NDArray[np.float32], Ids]:
        """Copies of the vectors of those of ``ids`` still there with a vector, and their ids."""
        ...

    def track_changes(self, on: bool) -> None:
        """Start (or stop) counting the ids of the rows written."""
        ...

    def take_changes(self) -> Ids:
        """The ids of the rows written since the last call, sorted."""
        ...

    def install(self, index: ApproximateIndex) -> None:
        """Search through ``index`` from now on."""
        ...


class BackgroundBuilder:
    """One namespace index's builds, run one at a time on a daemon thread.

    Args:
        slot: Held by a running build; shared by every index of one namespace, so an index
            dropped and loaded again does not build beside its predecessor's build.
    """

    def __init__(self, slot: threading.Lock) -> None:
        self._slot = slot
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._failed_at: float | None = None

    def start(self, source: BuildSource) -> None:
        """Build an index of ``source``'s vectors in the background, unless one is being
        built, this builder is stopped, or a build failed less than :data:`RETRY_AFTER`
        seconds ago."""
        if self._stopped.is_set() or (self._thread is not None and self._thread.is_alive()):
            return
        if self._failed_at is not None and _clock.now() < self._failed_at + RETRY_AFTER:
            return
        if not self._slot.acquire(blocking=False):
            return
        self._thread = threading.Thread(
            target=self._run, args=(source,), name="cadre-ann-build", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """End a running build at its next chunk without swapping it in; start no more."""
        self._stopped.set()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for a running build to end (at most ``timeout`` seconds)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self, source: BuildSource) -> None:
        size = 0
        try:
            with source.guard:
                ids = source.indexed_ids()
                size = len(ids)
                source.track_changes(True)
            sample = ids[training_sample(size)]
            copies = range(0, len(sample), _COPIED)
            parts = [_copied(source, sample[at : at + _COPIED])[0] for at in copies]
            self._build(source, ids, ApproximateIndex(np.concatenate(parts), size))
            self._failed_at = None
        except Exception as exc:  # any failure leaves search exact, logged once
            self._failed_at = _clock.now()
            logger.warning(
                "approximate index of %d vectors not built (%s: %s); search goes on without it, "
                "retried in %.0f s",
                size,
                type(exc).__name__,
                " ".join(str(exc).split()),
                RETRY_AFTER,
            )
        finally:
            with source.guard:
                source.track_changes(False)
            self._slot.release()

    def _build(self, source: BuildSource, ids: Ids, index: ApproximateIndex) -> None:
        for start in range(0, len(ids), _COPIED):
            if self._stopped.is_set():
                return
            index.add(*_copied(source, ids[start : start + _COPIED]))
        while not self._stopped.is_set():
            with source.guard:
                changed = source.take_changes()
                vectors, present = source.vectors_of(changed)
                if len(changed) <= _LAST:
                    index.remove(changed)
                    index.add(vectors, present)
                    source.install(index)
                    return
            index.remove(changed)
            index.add(vectors, present)


def _copied(source: BuildSource, ids: Ids) -> tuple[npt.NDArray[np.float32], Ids]:
    """:meth:`BuildSource.vectors_of`, under the lock."""
    with source.guard:
        return source.vectors_of(ids)
