"""The approximate index built in the background while searches and writes go on (a small
``approximate_from``, on SQLite and PostgreSQL): searches meanwhile are exact, or go through the
previous index kept up to date; writes are seen at once and by the index swapped in; a failed
build is logged once and tried again later; a namespace has one build at a time; another
connection's write drops the indexes of the namespaces it wrote, not the others."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from framework.memory import SemanticStore, StoreItem
from framework.memory._ann import ApproximateIndex
from framework.memory._ann_build import RETRY_AFTER
from framework.memory._index import Matrix
from framework.memory._tables import BUMP_GENERATION
from tests.test_approximate_search import CLUSTERS, FROM, ITEMS, QUERIES, ClusteredEmbedder, _items

A = ("tenant", "a")
B = ("tenant", "b")


class HeldBuilds:
    """Stands in for :class:`ApproximateIndex` in builds: each waits for ``release`` before it
    trains (and fails the build if it never comes), or raises when ``failing``."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0
        self.failing = False
        self._entered = threading.Semaphore(0)

    def __call__(self, sample: Matrix, size: int) -> ApproximateIndex:
        self.started += 1
        self._entered.release()
        if self.failing:
            raise RuntimeError("faiss ran out\n  of memory")
        assert self.release.wait(60), "the build was never released"
        return ApproximateIndex(sample, size)

    def entered(self) -> None:
        """Wait for a build to reach the training."""
        assert self._entered.acquire(timeout=60), "no build started"


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldBuilds]:
    builds = HeldBuilds()
    monkeypatch.setattr("framework.memory._ann_build.ApproximateIndex", builds)
    monkeypatch.setattr("framework.memory._ann_build._COPIED", 100)  # several copies
    monkeypatch.setattr("framework.memory._ann_build._LAST", 100)  # writes put right twice
    yield builds
    builds.release.set()


@pytest.fixture
def target(tmp_path: Path, database: str | None) -> str:
    return str(tmp_path / "memory.sqlite") if database is None else database


@pytest.fixture
def store(target: str) -> Iterator[SemanticStore]:
    with SemanticStore(target, embedder=ClusteredEmbedder(), approximate_from=FROM) as opened:
        opened.put_many(A, _items("a"))
        yield opened


@pytest.fixture
def exact(target: str) -> Iterator[SemanticStore]:
    """Another connection to the same rows, searching exactly."""
    with SemanticStore(target, embedder=ClusteredEmbedder(), approximate_from=None) as opened:
        yield opened


def _keys(store: SemanticStore, query: str, k: int = 10) -> list[str]:
    return [hit.key for hit in store.search(A, query, k=k)]


def _recall(store: SemanticStore, exact: SemanticStore) -> float:
    found = [set(_keys(store, query)) & set(_keys(exact, query)) for query in QUERIES]
    return float(np.mean([len(both) / 10 for both in found]))


def _trained_on(store: SemanticStore) -> int | None:
    """How many vectors the approximate index in use was built for (None: none in use)."""
    approximate = store._index("tenant/a")._approximate
    return None if approximate is None else approximate.trained_on


def _note(key: str, topic: int) -> StoreItem:
    return StoreItem(key=key, text=f"fresh note {key} on topic {topic}")


def test_searches_during_the_first_build_are_exact_and_see_writes(
    store: SemanticStore, exact: SemanticStore, held: HeldBuilds
) -> None:
    _keys(store, QUERIES[0])
    held.entered()
    index = store._index("tenant/a")
    assert held.started == 1 and index._approximate is None
    assert [_keys(store, query) for query in QUERIES] == [_keys(exact, query) for query in QUERIES]
    store.put_many(A, [_note(f"new-{i}", i) for i in range(250)])
    store.delete_many(A, ["a-5"])
    assert _keys(store, "fresh note new-7 on topic 7", k=1) == ["new-7"]
    assert [_keys(store, query) for query in QUERIES] == [_keys(exact, query) for query in QUERIES]
    assert held.started == 1
    held.release.set()
    index.wait_for_build()
    assert _trained_on(store) == ITEMS
    assert _recall(store, exact) >= 0.9
    assert _keys(store, "fresh note new-7 on topic 7", k=1) == ["new-7"]
    assert "a-5" not in _keys(store, "note 5 on topic 5 by a", k=50)


def test_a_rebuild_searches_through_the_previous_index_kept_up_to_date(
    store: SemanticStore, exact: SemanticStore, held: HeldBuilds
) -> None:
    held.release.set()
    _keys(store, QUERIES[0])
    held.entered()
    index = store._index("tenant/a")
    index.wait_for_build()
    previous = index._approximate
    held.release.clear()
    store.put_many(A, _items("c"))
    _keys(store, QUERIES[0])
    held.entered()
    assert held.started == 2 and index._approximate is previous
    doomed = [f"a-{i}" for i in range(ITEMS) if i % CLUSTERS == 9]
    store.delete_many(A, doomed)
    store.put_many(A, [_note(f"new-{i}", i) for i in range(250)])
    for _ in range(2):  # before the swap, then after it
        assert _recall(store, exact) >= 0.9
        assert _keys(store, "fresh note new-7 on topic 7", k=1) == ["new-7"]
        for query in QUERIES:
            assert not set(_keys(store, query, k=20)) & set(doomed)
        held.release.set()
        index.wait_for_build()
    assert index._approximate is not previous and _trained_on(store) == 2 * ITEMS


def test_a_failed_build_is_logged_once_and_tried_again_later(
    store: SemanticStore,
    exact: SemanticStore,
    held: HeldBuilds,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held.failing = True
    with caplog.at_level(logging.WARNING, logger="cadre.memory"):
        _keys(store, QUERIES[0])
        index = store._index("tenant/a")
        index.wait_for_build()
        assert [_keys(store, q) for q in QUERIES] == [_keys(exact, q) for q in QUERIES]
    assert held.started == 1 and index._approximate is None
    (record,) = [r for r in caplog.records if r.name == "cadre.memory"]
    assert "not built (RuntimeError: faiss ran out of memory)" in record.getMessage()
    assert "\n" not in record.getMessage()
    later = time.time() + RETRY_AFTER + 1
    monkeypatch.setattr("framework.memory._clock.now", lambda: later)
    held.failing = False
    held.release.set()
    _keys(store, QUERIES[0])
    index.wait_for_build()
    assert held.started == 2 and index._approximate is not None


def test_a_namespace_loaded_again_waits_for_the_build_it_replaced(
    store: SemanticStore, exact: SemanticStore, held: HeldBuilds, target: str
) -> None:
    _keys(store, QUERIES[0])
    held.entered()
    replaced = store._index("tenant/a")
    with SemanticStore(target, embedder=ClusteredEmbedder(), approximate_from=FROM) as other:
        other.put(A, _note("elsewhere", 3))
    assert _keys(store, "fresh note elsewhere on topic 3", k=1) == ["elsewhere"]
    assert [_keys(store, q) for q in QUERIES] == [_keys(exact, q) for q in QUERIES]
    assert held.started == 1 and store._index("tenant/a") is not replaced
    held.release.set()
    replaced.wait_for_build()
    assert replaced._approximate is None
    _keys(store, QUERIES[0])
    store._index("tenant/a").wait_for_build()
    assert held.started == 2 and store._index("tenant/a")._approximate is not None


def test_another_connection_s_write_drops_only_the_namespaces_it_wrote(
    store: SemanticStore, held: HeldBuilds, target: str
) -> None:
    held.release.set()
    store.put_many(B, _items("b"))
    for namespace in (A, B):
        store.search(namespace, QUERIES[0])
        store._index("/".join(namespace)).wait_for_build()
    kept, dropped = store._index("tenant/a"), store._index("tenant/b")
    with SemanticStore(target, embedder=ClusteredEmbedder(), approximate_from=FROM) as other:
        other.put(B, _note("elsewhere", 3))
    hits = store.search(B, "fresh note elsewhere on topic 3", k=1)
    assert [hit.key for hit in hits] == ["elsewhere"]
    assert store._index("tenant/b") is not dropped
    assert store._index("tenant/a") is kept and kept._approximate is not None
    with SemanticStore(target, embedder=ClusteredEmbedder(), approximate_from=FROM) as other:
        other.delete_many(A, ["a-5"])
    assert "a-5" not in _keys(store, "note 5 on topic 5 by a", k=50)
    kept = store._index("tenant/a")
    older = SemanticStore(target, embedder=ClusteredEmbedder(), approximate_from=None)
    with older, older._transaction() as db:  # as a writer that names no namespace counts it
        db.execute(BUMP_GENERATION)
    assert store._index("tenant/a") is not kept
