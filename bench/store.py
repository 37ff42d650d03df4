"""The semantic store under load: search latency, put throughput, the TTL sweep and a purge.

For each size (10k, 50k, 200k items by default) and each backend (SQLite; PostgreSQL with
``--postgres``, a throwaway server from the system's packages), a sealed store is filled with
items whose vectors come from a seeded random embedder of MiniLM's width (384), so what is timed
is the store, not the embedding model. Then:

* **search**: 200 queries through :meth:`SemanticStore.search` (k=5, texts opened) and 200
  through the LangGraph interface (:meth:`LangGraphStore.search`, limit 5), p50 and p99 in ms,
  against the ideal: the same matrix product and top-k in numpy on the same vectors (the floor
  any store searching exactly pays). The first query, which loads the namespace's index, is
  timed apart (``load``).
* **recall@10**: of those 200 queries' 10 best hits, the share exact search (the numpy product
  over the same vectors) finds too; below 1 where search goes through the approximate index
  (namespaces of 100,000 vectors or more; ``--exact`` keeps every search exact). Uniformly random
  vectors have no clusters for that index to find, the hardest case; ``--vectors clustered``
  draws each around one of 2,000 centres, as embeddings of real texts gather by topic.
* **put**: items per second written in batches of 500 (sealing, upsert, index update); **re-put**:
  the same for 5,000 of them written again unchanged (their stored vectors are checked and kept,
  nothing is embedded).
* **sweep**: 50k items put with a TTL that has passed, then one ``sweep()``; seconds.
* **purge**: a scope of 100 threads (real checkpoints of a small graph, run for the scope) and
  10k memory items, erased by :func:`framework.retention.purge.purge`; seconds.

Run: ``.venv/bin/python bench/store.py [--sizes 10000 50000 200000] [--postgres]
[--vectors clustered] [--exact]``; prints Markdown tables. Targets: search p50 <= 20 ms at 50k
items, and at 1,000,000 with recall@10 >= 0.95. ``--native-only`` times puts and
cadre's own search only, which an older checkout can run too (``PYTHONPATH=CHECKOUT``).
``--index-only`` times the namespace's in-memory index alone, and ``--build-wait`` the longest
a search and a put wait while its approximate index is built (both without a database, so an
older checkout runs them too).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

from framework.memory import SemanticStore, StoreItem
from framework.persistence.cipher import BlobCipher, row_identity
from framework.persistence.keys import Keyring

DIM = 384
QUERIES = 200
BATCH = 500
REPUT = 5_000
TARGET_P50_MS = 20.0
TARGET_RECALL = 0.95
CENTRES = 2_000


class RandomEmbedder:
    """Seeded unit vectors: one per text, the same for the same text."""

    name = "random-384"
    dim = DIM

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = []
        for text in texts:
            rng = np.random.default_rng(abs(hash(text)) % (2**32))
            vector = self._vector(rng)
            rows.append(vector / np.linalg.norm(vector))
        return np.stack(rows) if rows else np.zeros((0, DIM), np.float32)

    def _vector(self, rng: np.random.Generator) -> npt.NDArray[np.float32]:
        return rng.standard_normal(DIM).astype(np.float32)


class ClusteredEmbedder(RandomEmbedder):
    """Seeded unit vectors around one of ``CENTRES`` random centres each (noise of 0.6 times
    a centre's length): vectors that gather by topic, as embeddings of real texts do."""

    name = "clustered-384"

    def __init__(self) -> None:
        self.centres = np.random.default_rng(0).standard_normal((CENTRES, DIM)).astype(np.float32)

    def _vector(self, rng: np.random.Generator) -> npt.NDArray[np.float32]:
        noise = rng.standard_normal(DIM).astype(np.float32)
        return self.centres[rng.integers(CENTRES)] + 0.6 * noise


EMBEDDERS = {"random": RandomEmbedder, "clustered": ClusteredEmbedder}


def _codec() -> Any:
    return BlobCipher(Keyring.generate()).bind(row_identity("memory", "bench"))


def _items(count: int, start: int = 0, ttl: float | None = None) -> Iterator[list[StoreItem]]:
    expiring = {"ttl_minutes": ttl} if ttl is not None else {}  # (older stores have no TTL)
    for first in range(start, start + count, BATCH):
        yield [
            StoreItem(
                key=f"item-{i}",
                text=f"passage {i} about topic {i % 97} and detail {i % 13}",
                metadata={"path": f"docs/file-{i % 500}.md", "start_line": i % 300},
                **expiring,
            )
            for i in range(first, min(first + BATCH, start + count))
        ]


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def _timed(call: Callable[[], Any], times: int) -> list[float]:
    samples = []
    for _ in range(times):
        began = time.perf_counter()
        call()
        samples.append((time.perf_counter() - began) * 1000)
    return samples


def bench_search(
    target: str,
    size: int,
    embedder: RandomEmbedder,
    native_only: bool = False,
    exact: bool = False,
) -> dict[str, Any]:
    """Fill a store with ``size`` items; time puts and searches (cadre's search only, with
    ``native_only``, as an older checkout has no LangGraph interface; every search exact with
    ``exact``) and measure recall@10 against exact search."""
    codec = _codec()
    options: dict[str, Any] = {"approximate_from": None} if exact else {}
    with SemanticStore(target, embedder=embedder, codec=codec, **options) as store:
        began = time.perf_counter()
        for batch in _items(size):
            store.put_many(("bench",), batch)
        put_rate = size / (time.perf_counter() - began)
        reput_rate = _reput_rate(store, min(size, REPUT))
    with SemanticStore(target, embedder=embedder, codec=codec, **options) as cold:
        load = _timed(lambda: cold.search(("bench",), "warm up", k=5), 1)[0]
    queries = [f"question {i} about topic {i % 97}" for i in range(QUERIES)]
    with SemanticStore(target, embedder=embedder, codec=codec, **options) as store:
        store.search(("bench",), "warm up", k=5)
        store._index("bench").wait_for_build()  # searched exactly until then
        vectors = embedder.embed(queries)
        native = _timed_each(lambda q: store.search(("bench",), q, k=5), queries)
        langgraph = [float("nan")] if native_only else _langgraph_search(store, queries)
        found = [
            [row for row, _ in store.select(("bench",), None, v[None], 10)[0]] for v in vectors
        ]
        index = store._index("bench")
        matrix, keys = index._matrix[:size].copy(), index._keys
    ideal = _timed_each(lambda v: _ideal(matrix, v), list(vectors))
    recall = [
        len(set(hits) & {keys[row] for row in _ideal(matrix, vector, 10)}) / 10
        for hits, vector in zip(found, vectors, strict=True)
    ]
    return {
        "size": size,
        "put": put_rate,
        "reput": reput_rate,
        "load": load,
        "native": _percentiles(native),
        "langgraph": _percentiles(langgraph),
        "ideal": _percentiles(ideal),
        "recall": float(np.mean(recall)),
    }


def bench_index(size: int, embedder: RandomEmbedder, exact: bool) -> dict[str, Any]:
    """The namespace index alone (no database, no sealing) at ``size`` vectors drawn as
    ``embedder`` draws them: upserts per second in batches (keeping the approximate index up to
    date), the slowest search while filling, the time a new connection's first search takes to
    have the approximate index built, search p50 / p99 against the numpy floor, and
    recall@10."""
    from framework.memory._index import RowFacts, VectorIndex
    from framework.memory.store import APPROXIMATE_FROM

    rng = np.random.default_rng(1)
    queries = _draw(embedder, rng, QUERIES)
    index = VectorIndex(DIM, None if exact else APPROXIMATE_FROM)
    upsert, slowest = 0.0, 0.0
    for first in range(0, size, 10 * BATCH):
        vectors = _draw(embedder, rng, min(10 * BATCH, size - first))
        for part in range(0, len(vectors), BATCH):
            batch = vectors[part : part + BATCH]
            keys = [f"item-{i}" for i in range(first + part, first + part + len(batch))]
            began = time.perf_counter()
            index.upsert(keys, batch, [RowFacts()] * len(batch))
            upsert += time.perf_counter() - began
        slowest = max(slowest, *_timed(lambda: index.search(queries[:1], 10, -np.inf), 1))
    index.wait_for_build()
    index._approximate = None
    began = time.perf_counter()
    index.search(queries[:1], 10, -np.inf)
    index.wait_for_build()
    build = (time.perf_counter() - began) * 1000
    found = []
    samples = []
    for query in queries:
        began = time.perf_counter()
        found.append(index.search(query[None], 10, -np.inf)[0])
        samples.append((time.perf_counter() - began) * 1000)
    matrix = index._matrix[:size]
    exact, ideal = [], []
    for query in queries:
        began = time.perf_counter()
        exact.append({f"item-{row}" for row in _ideal(matrix, query, 10)})
        ideal.append((time.perf_counter() - began) * 1000)
    recall = [
        len({key for key, _ in hits} & best) / 10 for hits, best in zip(found, exact, strict=True)
    ]
    return {
        "upsert": size / upsert,
        "slowest": slowest,
        "build": build,
        "search": _percentiles(samples),
        "ideal": _percentiles(ideal),
        "recall": float(np.mean(recall)),
    }


def bench_build_wait(size: int, embedder: RandomEmbedder) -> dict[str, Any]:
    """The namespace index alone at ``size`` vectors, searched and written by two threads (50 ms
    apart), each call under one lock as the store holds its own, from a new connection's first
    search (which needs the approximate index built) until that index is in use: the longest
    search and upsert (100 vectors) meanwhile, against the median exact search timed before."""
    from framework.memory._index import RowFacts, VectorIndex
    from framework.memory.store import APPROXIMATE_FROM

    rng = np.random.default_rng(1)
    queries = _draw(embedder, rng, QUERIES)
    index = VectorIndex(DIM, APPROXIMATE_FROM)
    for first in range(0, size, 10 * BATCH):
        vectors = _draw(embedder, rng, min(10 * BATCH, size - first))
        keys = [f"item-{i}" for i in range(first, first + len(vectors))]
        index.upsert(keys, vectors, [RowFacts()] * len(vectors))
    every = np.ones(size, dtype=bool)
    exact = statistics.median(_timed(lambda: index._exact(queries[:1], 10, -np.inf, every), 5))
    lock, built = threading.Lock(), threading.Event()
    searches: list[float] = []
    upserts: list[float] = []

    def search() -> None:
        while not built.is_set():
            query = queries[len(searches) % QUERIES][None]
            searches.append(_locked(lock, index.search, query, 10, -np.inf))
            time.sleep(0.05)

    def upsert() -> None:
        while not built.is_set():
            first = size + 100 * len(upserts)
            keys = [f"item-{i}" for i in range(first, first + 100)]
            vectors = _draw(embedder, rng, 100)
            upserts.append(_locked(lock, index.upsert, keys, vectors, [RowFacts()] * 100))
            time.sleep(0.05)

    began = time.perf_counter()
    threads = [threading.Thread(target=search), threading.Thread(target=upsert)]
    for thread in threads:
        thread.start()
    while index._approximate is None:
        time.sleep(0.05)
    build = time.perf_counter() - began
    built.set()
    for thread in threads:
        thread.join()
    return {
        "exact": exact,
        "build": build,
        "searches": len(searches),
        "search": max(searches),
        "upserts": len(upserts),
        "upsert": max(upserts),
    }


def _locked(lock: threading.Lock, call: Callable[..., Any], *args: Any) -> float:
    """Milliseconds ``call(*args)`` took, waiting for ``lock`` included."""
    began = time.perf_counter()
    with lock:
        call(*args)
    return (time.perf_counter() - began) * 1000


def _draw(embedder: RandomEmbedder, rng: np.random.Generator, count: int) -> Any:
    """``count`` unit vectors drawn as ``embedder`` draws one per text (in bulk)."""
    vectors = rng.standard_normal((count, DIM), dtype=np.float32)
    if isinstance(embedder, ClusteredEmbedder):
        vectors = embedder.centres[rng.integers(CENTRES, size=count)] + 0.6 * vectors
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _reput_rate(store: SemanticStore, count: int) -> float:
    """Items per second writing the first ``count`` items again, unchanged."""
    began = time.perf_counter()
    for batch in _items(count):
        store.put_many(("bench",), batch)
    return count / (time.perf_counter() - began)


def _langgraph_search(store: SemanticStore, queries: Sequence[str]) -> list[float]:
    from framework.memory import LangGraphStore

    graph = LangGraphStore(store)
    return _timed_each(lambda q: graph.search(("bench",), query=q, limit=5), queries)


def _timed_each(call: Callable[[Any], Any], inputs: Sequence[Any]) -> list[float]:
    samples = []
    for value in inputs:
        began = time.perf_counter()
        call(value)
        samples.append((time.perf_counter() - began) * 1000)
    return samples


def _ideal(matrix: npt.NDArray[np.float32], vector: npt.NDArray[np.float32], k: int = 5) -> Any:
    scores = matrix @ vector
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top])]


def bench_sweep(target: str, count: int) -> float:
    """Seconds to sweep ``count`` expired items."""
    from framework.memory import _clock

    with SemanticStore(target, embedder=RandomEmbedder(), codec=_codec()) as store:
        for batch in _items(count, ttl=1):
            store.put_many(("expiring",), batch)
        real = _clock.now
        _clock.now = lambda: real() + 120  # type: ignore[assignment]
        try:
            began = time.perf_counter()
            swept = store.sweep()
            seconds = time.perf_counter() - began
        finally:
            _clock.now = real  # type: ignore[assignment]
    assert swept == count, (swept, count)
    return seconds


class _State(TypedDict, total=False):
    question: str
    answer: str


def bench_purge(root: Path, database: str | None, threads: int, items: int) -> float:
    """Seconds to purge a scope of ``threads`` threads and ``items`` memory items."""
    from langgraph.graph import END, START, StateGraph

    from framework.database.home import DataHome
    from framework.retention.purge import DataScope, purge
    from framework.runs.observe import ObserverOptions
    from framework.runs.spec import RunSpec
    from framework.runs.stores import home_checkpointer, home_cipher, home_store

    home = DataHome(root=root, database=database).create()
    cipher = home_cipher(home)
    graph = StateGraph(_State)
    graph.add_node("answer", lambda state: {"answer": f"answer to {state['question']}"})
    graph.add_edge(START, "answer")
    graph.add_edge("answer", END)
    saver = home_checkpointer(home, cipher=cipher)
    app = graph.compile(checkpointer=saver)
    for who in ("alice", "bob"):
        info = RunSpec(team="bench", memory_scope=("user", who), observe=ObserverOptions())
        for n in range(threads):
            config = {"configurable": {"thread_id": f"{who}-{n}"}, "metadata": info.metadata()}
            app.invoke({"question": f"question {n} of {who}"}, config)  # type: ignore[arg-type]
    saver.close()
    with home_store(home, cipher) as store:
        store.embedder = RandomEmbedder()
        for who in ("alice", "bob"):
            for batch in _items(items):
                store.put_many(("research", "user", who, "notes"), batch)
    began = time.perf_counter()
    report = purge(home, DataScope.parse("user:alice"), requested_by="bench")
    seconds = time.perf_counter() - began
    assert report.counts["threads"] == threads and report.counts["memory items"] == items
    return seconds


@contextmanager
def _backends(postgres: bool) -> Iterator[list[tuple[str, Callable[[Path], str]]]]:
    backends: list[tuple[str, Callable[[Path], str]]] = [
        ("SQLite", lambda folder: str(folder / "memory.sqlite"))
    ]
    if not postgres:
        yield backends
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.conftest import new_database
    from tests.postgres_server import find_bin_dir, postgres_server

    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("--postgres: no PostgreSQL server binaries are installed")
    with postgres_server(bin_dir) as server:
        yield [*backends, ("PostgreSQL", lambda _: new_database(server))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 200_000])
    parser.add_argument("--sweep", type=int, default=50_000, help="expired items to sweep")
    parser.add_argument("--threads", type=int, default=100, help="threads of the purged scope")
    parser.add_argument("--items", type=int, default=10_000, help="items of the purged scope")
    parser.add_argument("--postgres", action="store_true", help="also on a throwaway server")
    parser.add_argument("--vectors", choices=sorted(EMBEDDERS), default="random")
    parser.add_argument("--exact", action="store_true", help="never the approximate index")
    parser.add_argument(
        "--native-only",
        action="store_true",
        help="cadre's search and puts only (for a checkout before the LangGraph interface)",
    )
    parser.add_argument(
        "--index-only",
        action="store_true",
        help="the namespace index alone, without a database (sizes a store takes long to fill)",
    )
    parser.add_argument(
        "--build-wait",
        action="store_true",
        help="the longest search and put while the approximate index is built",
    )
    args = parser.parse_args(argv)
    if args.index_only:
        return _index_only(args.sizes, args.vectors, args.exact)
    if args.build_wait:
        return _build_wait(args.sizes, args.vectors)
    print("| backend | items | put items/s | re-put items/s | index load ms | search p50 / p99 ms "
          "| LangGraph search p50 / p99 ms | ideal p50 / p99 ms | p50 / ideal "
          "| recall@10 |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    failed = False
    with tempfile.TemporaryDirectory() as tmp, _backends(args.postgres) as backends:
        rows = []
        for name, target in backends:
            for size in args.sizes:
                folder = Path(tmp, f"{name}-{size}")
                folder.mkdir()
                embedder = EMBEDDERS[args.vectors]()
                r = bench_search(target(folder), size, embedder, args.native_only, args.exact)
                p50, p99 = r["native"]
                print(
                    f"| {name} | {size:,} | {r['put']:,.0f} | {r['reput']:,.0f} | "
                    f"{r['load']:.0f} | {p50:.2f} / {p99:.2f} | "
                    f"{r['langgraph'][0]:.2f} / {r['langgraph'][1]:.2f}"
                    f" | {r['ideal'][0]:.2f} / {r['ideal'][1]:.2f} | {p50 / r['ideal'][0]:.1f}x"
                    f" | {r['recall']:.3f} |"
                )
                failed |= size in (50_000, 1_000_000) and p50 > TARGET_P50_MS
                failed |= size == 1_000_000 and r["recall"] < TARGET_RECALL
            if args.native_only:
                continue
            sweep_folder = Path(tmp, f"{name}-sweep")
            sweep_folder.mkdir()
            purge_folder = Path(tmp, f"{name}-purge")
            rows.append(
                (
                    name,
                    bench_sweep(target(sweep_folder), args.sweep),
                    bench_purge(
                        purge_folder,
                        None if name == "SQLite" else target(purge_folder),
                        args.threads,
                        args.items,
                    ),
                )
            )
        if rows:
            print()
            print(f"| backend | sweep of {args.sweep:,} expired items, s | purge of "
                  f"{args.threads} threads and {args.items:,} items, s |")  # fmt: skip
            print("|---|---|---|")
            for name, sweep, purged in rows:
                print(f"| {name} | {sweep:.2f} | {purged:.2f} |")
    return 1 if failed else 0


def _build_wait(sizes: Sequence[int], vectors: str) -> int:
    print("| vectors | items | exact search ms | build s | searches meanwhile | longest search "
          "ms | / exact | upserts meanwhile | longest upsert ms | / exact |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for size in sizes:
        r = bench_build_wait(size, EMBEDDERS[vectors]())
        print(f"| {vectors} | {size:,} | {r['exact']:.0f} | {r['build']:.1f} | {r['searches']} "
              f"| {r['search']:,.0f} | {r['search'] / r['exact']:.1f}x | {r['upserts']} "
              f"| {r['upsert']:,.0f} | {r['upsert'] / r['exact']:.1f}x |")  # fmt: skip
    return 0


def _index_only(sizes: Sequence[int], vectors: str, exact: bool) -> int:
    print("| vectors | items | index upserts/s | slowest search while filling ms "
          "| new connection's index built ms | search p50 / p99 ms | ideal p50 / p99 ms "
          "| recall@10 |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    failed = False
    for size in sizes:
        r = bench_index(size, EMBEDDERS[vectors](), exact)
        p50, p99 = r["search"]
        ideal = f"{r['ideal'][0]:.2f} / {r['ideal'][1]:.2f}"
        print(f"| {vectors} | {size:,} | {r['upsert']:,.0f} | {r['slowest']:,.0f} | "
              f"{r['build']:,.0f} | {p50:.2f} / "
              f"{p99:.2f} | {ideal} | {r['recall']:.3f} |")  # fmt: skip
        failed |= size == 1_000_000 and (p50 > TARGET_P50_MS or r["recall"] < TARGET_RECALL)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
