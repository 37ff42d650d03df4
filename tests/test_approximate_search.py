"""Memory search through the approximate index (a small ``approximate_from``), on SQLite and
PostgreSQL: once built it agrees with exact search, keeps to its namespace, honours filters,
deletes, replacements and expiry, and is rebuilt from the rows by a new connection (how it is
built while searches go on: ``test_approximate_build.py``)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from framework.errors import ConfigError
from framework.memory import SemanticStore, StoreItem

DIM = 32
CLUSTERS = 40
ITEMS = 1_200
FROM = 300


class ClusteredEmbedder:
    """Unit vectors near one of ``CLUSTERS`` centres, chosen by the text's ``topic N`` word;
    the same text always gets the same vector."""

    name = "clustered-32"
    dim = DIM

    def __init__(self) -> None:
        self.centres = np.random.default_rng(7).standard_normal((CLUSTERS, DIM))

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            topic = int(text.split("topic ")[1].split()[0]) % CLUSTERS
            noise = np.random.default_rng(seed).standard_normal(DIM)
            vector = self.centres[topic] + 0.4 * noise
            rows.append(vector / np.linalg.norm(vector))
        return np.asarray(rows, dtype=np.float32).reshape(len(rows), DIM)


def _items(prefix: str, count: int = ITEMS) -> list[StoreItem]:
    return [
        StoreItem(
            key=f"{prefix}-{i}",
            text=f"note {i} on topic {i % CLUSTERS} by {prefix}",
            metadata={"group": i % 3, "rare": i % 200 == 0},
        )
        for i in range(count)
    ]


@pytest.fixture
def target(tmp_path: Path, database: str | None) -> str:
    return str(tmp_path / "memory.sqlite") if database is None else database


@pytest.fixture
def embedder() -> ClusteredEmbedder:
    return ClusteredEmbedder()


@pytest.fixture
def store(target: str, embedder: ClusteredEmbedder) -> Iterator[SemanticStore]:
    with SemanticStore(target, embedder=embedder, approximate_from=FROM) as opened:
        opened.put_many(("tenant", "a"), _items("a"))
        opened.put_many(("tenant", "b"), _items("b"))
        for name in ("a", "b"):
            built(opened, ("tenant", name))
        yield opened


def built(store: SemanticStore, namespace: tuple[str, ...]) -> None:
    """Search ``namespace`` once (which starts its approximate index's build) and wait for the
    build to end."""
    store.search(namespace, "a question on topic 1")
    store._index("/".join(namespace)).wait_for_build()


QUERIES = [f"question {n} on topic {n % CLUSTERS}" for n in range(30)]


def _keys(store: SemanticStore, query: str, k: int = 10, **where: object) -> list[str]:
    return [hit.key for hit in store.search(("tenant", "a"), query, k=k, where=where or None)]


def test_it_is_used_and_agrees_with_exact_search(
    store: SemanticStore, target: str, embedder: ClusteredEmbedder
) -> None:
    approximate = [_keys(store, query) for query in QUERIES]
    assert store._index("tenant/a")._approximate is not None
    with SemanticStore(target, embedder=embedder, approximate_from=None) as exact_store:
        exact = [_keys(exact_store, query) for query in QUERIES]
        assert exact_store._index("tenant/a")._approximate is None
    recall = np.mean([len(set(a) & set(e)) / 10 for a, e in zip(approximate, exact, strict=True)])
    assert recall >= 0.9
    assert all(len(keys) == 10 for keys in approximate)


def test_it_keeps_to_its_namespace(store: SemanticStore) -> None:
    for query in QUERIES:
        hits = store.search(("tenant", "a"), query, k=50)
        assert len(hits) == 50 and all(hit.key.startswith("a-") for hit in hits)
        assert all(hit.key.startswith("b-") for hit in store.search(("tenant", "b"), query, k=50))


def test_filters_are_exact_and_a_rare_match_is_still_found(store: SemanticStore) -> None:
    for query in QUERIES[:10]:
        hits = store.search(("tenant", "a"), query, k=10, where={"group": 2})
        assert len(hits) == 10 and all(hit.metadata["group"] == 2 for hit in hits)
    rare = store.search(("tenant", "a"), QUERIES[0], k=10, where={"rare": True})
    assert sorted(hit.key for hit in rare) == sorted(f"a-{i}" for i in range(0, ITEMS, 200))


def test_deleted_and_replaced_items_leave_the_index(store: SemanticStore) -> None:
    query = "note 5 on topic 5 by a"
    assert _keys(store, query, k=1) == ["a-5"]
    store.delete_many(("tenant", "a"), ["a-5"])
    assert "a-5" not in _keys(store, query, k=50)
    store.put(("tenant", "a"), StoreItem(key="a-6", text=query))
    assert _keys(store, query, k=1) == ["a-6"]
    store.put(("tenant", "a"), StoreItem(key="a-6", text="note 6 on topic 17 by a"))
    assert "a-6" not in _keys(store, query, k=20)
    doomed = [f"a-{i}" for i in range(ITEMS) if i % CLUSTERS == 9]
    store.delete_many(("tenant", "a"), doomed)
    for query in QUERIES:
        keys = _keys(store, query, k=20)
        assert len(set(keys)) == 20 and not set(keys) & set(doomed)


def test_expired_items_are_left_out(store: SemanticStore, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "note 11 on topic 11 by a"
    store.put(("tenant", "a"), StoreItem(key="a-11", text=query, ttl_minutes=1))
    assert _keys(store, query, k=1) == ["a-11"]
    later = time.time() + 120
    monkeypatch.setattr("framework.memory._clock.now", lambda: later)
    keys = _keys(store, query, k=20)
    assert len(keys) == 20 and "a-11" not in keys


def test_a_new_connection_rebuilds_it_from_the_rows(
    store: SemanticStore, target: str, embedder: ClusteredEmbedder
) -> None:
    store.delete_many(("tenant", "a"), ["a-3"])
    before = [_keys(store, query) for query in QUERIES]
    with SemanticStore(target, embedder=embedder, approximate_from=FROM) as reopened:
        built(reopened, ("tenant", "a"))
        assert [_keys(reopened, query) for query in QUERIES] == before
        reopened.put(("tenant", "a"), StoreItem(key="new", text="note 3 on topic 3 by a"))
    assert _keys(store, "note 3 on topic 3 by a", k=1) == ["new"]


def test_a_threshold_below_one_is_refused(target: str, embedder: ClusteredEmbedder) -> None:
    with pytest.raises(ConfigError, match="approximate_from must be at least 1"):
        SemanticStore(target, embedder=embedder, approximate_from=0)
