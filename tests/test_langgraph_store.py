"""cadre's store as a LangGraph ``BaseStore``: the same random operations against LangGraph's
``InMemoryStore`` give the same results (the differences are listed in
:mod:`framework.memory.langgraph_store` and checked here for what they are)."""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from langgraph.store.base import BaseStore, InvalidNamespaceError, SearchItem
from langgraph.store.memory import InMemoryStore

from framework.errors import ConfigError
from framework.memory import SemanticStore
from framework.memory.langgraph_store import LangGraphStore
from framework.persistence.cipher import BlobCipher, row_identity
from framework.persistence.keys import Keyring

WORDS = (
    "river bridge ferry harbour engine sail storm anchor lighthouse tide map compass "
    "island cargo captain rope deck mast gull reef"
).split()
DIM = 64
NAMESPACES = [
    ("docs",),
    ("docs", "a"),
    ("docs", "b"),
    ("docs", "a", "x"),
    ("notes", "a"),
    ("notes", "b", "x"),
    ("users", "u1", "prefs"),
]
TOLERANCE = 1e-5


class WordEmbedder:
    """Bags of hashed words, normalised: texts sharing words are near."""

    name = "word-hash-64"
    dim = DIM

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors = np.zeros((len(texts), DIM), dtype=np.float64)
        for row, text in enumerate(texts):
            for word in text.split():
                slot = int(hashlib.sha256(word.encode()).hexdigest()[:8], 16) % DIM
                vectors[row, slot] += 1.0
            norm = np.linalg.norm(vectors[row])
            vectors[row] = vectors[row] / norm if norm else vectors[row]
        return vectors.tolist()


@pytest.fixture(params=["plain", "sealed"])
def cadre(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[LangGraphStore]:
    """cadre's store on a SQLite file, plain or sealed with a keyring."""
    codec = None
    if request.param == "sealed":
        cipher = BlobCipher(Keyring.generate())
        codec = cipher.bind(row_identity("memory", "memory.sqlite"))
    with SemanticStore(tmp_path / "memory.sqlite", embedder=WordEmbedder(), codec=codec) as store:
        yield LangGraphStore(store, index_fields=("text",))


def reference() -> InMemoryStore:
    embed = WordEmbedder().embed
    return InMemoryStore(index={"dims": DIM, "embed": embed, "fields": ["text"]})


def test_random_operations_match_langgraphs_in_memory_store(cadre: LangGraphStore) -> None:
    mem = reference()
    rng = random.Random(20261125)
    for step in range(2500):
        _one_operation(rng, step, mem, cadre)


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))


def _value(rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {
        "n": rng.randint(0, 9),
        "tag": rng.choice(["red", "green", "blue"]),
        "nested": {"level": rng.randint(0, 2), "on": rng.random() < 0.5},
    }
    if rng.random() < 0.9:  # some values have nothing to embed
        value["text"] = _text(rng)
    return value


def _filter(rng: random.Random) -> dict[str, Any] | None:
    choice = rng.randrange(7)
    return [
        None,
        {"tag": rng.choice(["red", "green", "blue"])},
        {"n": {"$gt": rng.randint(0, 9)}},
        {"n": {"$gte": 3, "$lt": 7}},
        {"tag": {"$ne": "red"}, "nested": {"on": True}},
        {"nested": {"level": rng.randint(0, 2)}},
        {"n": {"$lte": rng.randint(0, 9)}, "tag": {"$eq": "green"}},
    ][choice]


def _one_operation(rng: random.Random, step: int, mem: BaseStore, cadre: BaseStore) -> None:
    namespace = rng.choice(NAMESPACES)
    key = f"k{rng.randrange(12)}"
    kind = rng.choices(["put", "delete", "get", "search", "list"], [40, 8, 20, 25, 7])[0]
    where = f"step {step}: {kind} {namespace} {key}"
    if kind == "put":
        value, index = _value(rng), rng.choice([None, None, ["text"], False])
        if index is False or "text" not in value:
            # LangGraph's in-memory store keeps the old vector of an item put again with
            # nothing to embed; cadre drops it. Start both from nothing.
            mem.delete(namespace, key)
            cadre.delete(namespace, key)
        mem.put(namespace, key, value, index=index)
        cadre.put(namespace, key, value, index=index)
    elif kind == "delete":
        mem.delete(namespace, key)
        cadre.delete(namespace, key)
    elif kind == "get":
        expected, got = mem.get(namespace, key), cadre.get(namespace, key)
        assert (got.value if got else None) == (expected.value if expected else None), where
        if got is not None and expected is not None:
            assert (got.namespace, got.key) == (expected.namespace, expected.key), where
    elif kind == "search":
        prefix = namespace[: rng.randint(0, len(namespace))]
        query = _text(rng) if rng.random() < 0.6 else None
        limit, offset = rng.randint(1, 12), rng.choice([0, 0, 1, 3, 8])
        search = {"query": query, "filter": _filter(rng), "limit": limit, "offset": offset}
        _compare_search(mem, cadre, prefix, search, where)
    else:
        _compare_namespaces(rng, mem, cadre, where)


def _compare_search(
    mem: BaseStore, cadre: BaseStore, prefix: tuple[str, ...], search: dict[str, Any], at: str
) -> None:
    where = f"{at}: search {prefix} {search}"
    got = cadre.search(prefix, **search)
    everything = {**search, "limit": 10_000, "offset": 0}
    every_match = mem.search(prefix, **everything)
    matches = {(item.namespace, item.key): item for item in every_match}
    for item in got:  # every item returned is one LangGraph's store finds, with its value
        assert (item.namespace, item.key) in matches, where
        assert item.value == matches[(item.namespace, item.key)].value, where
    scored = [item for item in every_match if item.score is not None]
    unscored = [item for item in every_match if item.score is None]
    limit, offset = search["limit"], search["offset"]
    page_scored = scored[offset : offset + limit]
    got_scored = [item for item in got if item.score is not None]
    # scored items first, best first, the same scores (ties may be ordered either way)
    assert [i.score is not None for i in got] == sorted(
        (i.score is not None for i in got), reverse=True
    ), where
    assert len(got_scored) == len(page_scored), where
    assert np.allclose(
        [i.score for i in got_scored], [i.score for i in page_scored], atol=TOLERANCE
    ), where
    for item in got_scored:
        expected = matches[(item.namespace, item.key)].score
        assert expected is not None and abs(item.score - expected) <= TOLERANCE, where  # type: ignore[operator]
    _assert_clear_winners_kept(got_scored, page_scored, where)
    # then the unscored ones, paged with them (LangGraph's in-memory store fills a page
    # with unscored items from the first, whatever the offset)
    skipped = max(0, offset - len(scored))
    wanted = min(limit - len(got_scored), max(0, len(unscored) - skipped))
    assert len(got) - len(got_scored) == wanted, where


def _assert_clear_winners_kept(
    got: list[SearchItem], expected: list[SearchItem], where: str
) -> None:
    """Items scoring clearly above (and below) a page's edges are the same in both pages."""
    if not expected:
        return
    low, high = expected[-1].score, expected[0].score
    assert low is not None and high is not None
    inner = {
        (i.namespace, i.key)
        for i in expected
        if i.score is not None and low + TOLERANCE < i.score < high - TOLERANCE
    }
    assert inner <= {(i.namespace, i.key) for i in got}, where


def _compare_namespaces(
    rng: random.Random, mem: InMemoryStore, cadre: BaseStore, where: str
) -> None:
    # LangGraph's in-memory store lists every namespace it was ever asked about; cadre lists
    # those that hold an item. Forget the empty ones there first.
    for namespace in [ns for ns, items in mem._data.items() if not items]:
        del mem._data[namespace]
    namespace = rng.choice(NAMESPACES)
    options: dict[str, Any] = {
        "limit": rng.randint(1, 10),
        "offset": rng.choice([0, 0, 1, 2]),
        "max_depth": rng.choice([None, None, 1, 2]),
    }
    condition = rng.randrange(4)
    if condition == 1:
        options["prefix"] = namespace[: rng.randint(1, len(namespace))]
    elif condition == 2:
        options["suffix"] = namespace[-rng.randint(1, len(namespace)) :]
    elif condition == 3:
        options["prefix"] = ("*", *namespace[1:2])
    expected = mem.list_namespaces(**options)
    assert cadre.list_namespaces(**options) == expected, f"{where}: list {options}"


# -- TTL --------------------------------------------------------------------------------------


class Clock:
    """The store's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr("framework.memory._clock.now", clock.time)
    return clock


def test_an_expired_item_is_invisible_at_once_and_the_sweep_deletes_it(
    cadre: LangGraphStore, clock: Clock
) -> None:
    cadre.put(("docs",), "short", {"text": "ferry storm"}, ttl=1)
    cadre.put(("docs",), "kept", {"text": "ferry harbour"})
    clock.now += 59
    assert cadre.get(("docs",), "short", refresh_ttl=False) is not None
    clock.now += 2
    assert cadre.get(("docs",), "short") is None
    assert [i.key for i in cadre.search(("docs",), query="ferry storm")] == ["kept"]
    assert [i.key for i in cadre.search(("docs",))] == ["kept"]
    assert cadre.semantic.keys(("docs",)) == ["kept"]
    assert cadre.semantic.count(("docs",)) == 1
    rows = cadre.semantic._db.execute("SELECT COUNT(*) FROM items WHERE namespace = 'docs'")
    assert rows.fetchone()[0] == 2  # invisible, not yet deleted
    assert cadre.sweep_ttl() == 1
    rows = cadre.semantic._db.execute("SELECT COUNT(*) FROM items WHERE namespace = 'docs'")
    assert rows.fetchone()[0] == 1


def test_a_read_refreshes_the_ttl_unless_asked_not_to(cadre: LangGraphStore, clock: Clock) -> None:
    cadre.put(("docs",), "a", {"text": "tide"}, ttl=1)
    cadre.put(("docs",), "b", {"text": "tide"}, ttl=1)
    clock.now += 50
    assert cadre.get(("docs",), "a") is not None  # refreshed: 60 s from now
    assert cadre.search(("docs",), query="tide", refresh_ttl=False)
    clock.now += 20
    assert cadre.get(("docs",), "a", refresh_ttl=False) is not None
    assert cadre.get(("docs",), "b") is None
    assert cadre.list_namespaces() == [("docs",)]
    clock.now += 60
    assert cadre.list_namespaces() == []


def test_a_refresh_made_by_another_connection_is_seen(tmp_path: Any, clock: Clock) -> None:
    path = tmp_path / "memory.sqlite"
    with (
        SemanticStore(path, embedder=WordEmbedder()) as first,
        SemanticStore(path, embedder=WordEmbedder()) as second,
    ):
        one, two = LangGraphStore(first), LangGraphStore(second)
        one.put(("docs",), "a", {"text": "reef"}, ttl=1)
        assert two.search(("docs",), query="reef")  # second's index is built now
        clock.now += 50
        assert one.get(("docs",), "a") is not None  # refreshed through the first
        clock.now += 30
        assert [i.key for i in two.search(("docs",), query="reef")] == ["a"]


def test_default_ttls_by_store_and_by_namespace(cadre: LangGraphStore, clock: Clock) -> None:
    store = LangGraphStore(
        cadre.semantic,
        ttl={"default_ttl": 10, "refresh_on_read": False},
        namespace_ttl={("sessions",): 1},
    )
    store.put(("sessions", "s1"), "a", {"text": "gull"})
    store.put(("docs",), "b", {"text": "gull"})
    store.put(("sessions", "s1"), "c", {"text": "gull"}, ttl=None)
    clock.now += 120
    assert store.get(("sessions", "s1"), "a") is None
    assert store.get(("sessions", "s1"), "c") is not None
    assert store.get(("docs",), "b") is not None
    clock.now += 600
    assert store.get(("docs",), "b") is None


@pytest.mark.parametrize("ttl", [0, -5, float("nan"), "1"])
def test_a_ttl_that_is_not_a_positive_number_is_refused_and_nothing_written(
    cadre: LangGraphStore, ttl: Any
) -> None:
    with pytest.raises(ConfigError, match="TTL"):
        cadre.put(("docs",), "a", {"text": "x"}, ttl=ttl)
    assert cadre.get(("docs",), "a") is None
    with pytest.raises(ConfigError, match="TTL"):
        LangGraphStore(cadre.semantic, ttl={"default_ttl": 0})


@pytest.mark.parametrize(
    "namespace",
    [("a/b",), ("a.b",), ("",), ("langgraph", "x")],
    ids=["slash", "dot", "empty", "root"],
)
def test_a_namespace_with_reserved_characters_is_refused(
    cadre: LangGraphStore, namespace: tuple[str, ...]
) -> None:
    with pytest.raises(InvalidNamespaceError):
        cadre.put(namespace, "a", {"text": "x"})
    assert cadre.list_namespaces() == []


def test_cadre_items_read_as_values_and_values_as_items(cadre: LangGraphStore) -> None:
    from framework.memory import StoreItem

    semantic = cadre.semantic
    semantic.put(
        ("corpus",), StoreItem(key="p1", text="ferry timetable", metadata={"path": "a.md"})
    )
    item = cadre.get(("corpus",), "p1")
    assert item is not None
    assert item.value == {"text": "ferry timetable", "metadata": {"path": "a.md"}}
    found = cadre.search(("corpus",), query="ferry", filter={"metadata": {"path": "a.md"}})
    assert [i.key for i in found] == ["p1"]
    assert cadre.search(("corpus",), filter={"text": "ferry timetable"})[0].key == "p1"
    cadre.put(("memory",), "m1", {"text": "the ferry leaves at nine", "kind": "fact"})
    assert semantic.get(("memory",), "m1") == StoreItem(
        key="m1",
        text="the ferry leaves at nine",
        metadata={"text": "the ferry leaves at nine", "kind": "fact"},
    )
    assert semantic.search(("memory",), "ferry")[0].key == "m1"


async def test_the_async_interface_gives_the_same_results(cadre: LangGraphStore) -> None:
    await cadre.aput(("docs",), "a", {"text": "anchor rope"})
    await cadre.aput(("docs", "x"), "b", {"text": "anchor"})
    item = await cadre.aget(("docs",), "a")
    assert item is not None and item.value == {"text": "anchor rope"}
    found = await cadre.asearch(("docs",), query="anchor")
    assert [i.key for i in found] == ["b", "a"]
    assert await cadre.alist_namespaces(prefix=("docs",)) == [("docs",), ("docs", "x")]
    await cadre.adelete(("docs",), "a")
    assert await cadre.aget(("docs",), "a") is None


def test_a_value_that_is_not_json_is_refused(cadre: LangGraphStore) -> None:
    with pytest.raises(ConfigError, match="JSON"):
        cadre.put(("docs",), "a", {"when": object()})
    assert cadre.get(("docs",), "a") is None


def test_an_unknown_filter_operator_is_refused(cadre: LangGraphStore) -> None:
    cadre.put(("docs",), "a", {"n": 1})
    with pytest.raises(ConfigError, match=r"\$in"):
        cadre.search(("docs",), filter={"n": {"$in": [1]}})


def test_the_sweeper_thread_sweeps_on_its_interval_until_stopped(
    cadre: LangGraphStore, clock: Clock
) -> None:
    cadre.put(("docs",), "a", {"text": "tide"}, ttl=1)
    clock.now += 120
    swept = threading.Event()
    real = cadre.semantic.sweep

    def sweep(batch: int = 1000) -> int:
        count = real(batch)
        swept.set()
        return count

    cadre.semantic.sweep = sweep  # type: ignore[method-assign]
    cadre.start_ttl_sweeper(sweep_interval_minutes=0.001)  # every 60 ms
    try:
        assert swept.wait(timeout=30)
        with pytest.raises(ConfigError, match="running already"):
            cadre.start_ttl_sweeper()
    finally:
        assert cadre.stop_ttl_sweeper(timeout=30)
    rows = cadre.semantic._db.execute("SELECT COUNT(*) FROM items WHERE namespace = 'docs'")
    assert rows.fetchone()[0] == 0
