"""Storage growth: cadre's SQLite checkpointer against LangGraph's ``SqliteSaver``.

One graph, a reviewer loop: ``worker`` writes a draft (overwrite), ``reviewer`` appends a note of
about 300 bytes to a list channel (``operator.add``), overwrites its verdict, sums counters into a
dict and loops back to the worker until ``iterations`` notes were written. Each saver runs the
loop for 100 and for 200 iterations on a fresh file; the file is measured after
``PRAGMA wal_checkpoint(TRUNCATE)`` and ``VACUUM`` (``page_count * page_size``). The target:
size(200) / size(100) <= 2.2 for cadre (linear growth gives 2.0; rewriting every channel at
every step, as ``SqliteSaver`` does, gives about 4).

Savers: ``langgraph`` (``SqliteSaver``), ``cadre`` (:class:`CadreSaver`, plaintext) and
``cadre+enc`` (the same, encrypted with a fresh key). The table also gives the time of the run
and of reading the last state back (``get_state``), which the deltas must not make slow.

Run: ``.venv/bin/python bench/storage.py [--iterations 100 200 ...] [--strict] [--keep DIR]``;
it prints a Markdown table, one ratio per pair of consecutive sizes (the target scales with the
pair: 2.2 for a doubling).
"""

from __future__ import annotations

import argparse
import itertools
import operator
import os
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, closing, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from framework.engine.state import merge_sum
from framework.persistence.cipher import BlobCipher
from framework.persistence.keys import Keyring
from framework.persistence.saver import CadreSaver

TARGET_RATIO = 2.2
"""The most size(2N) / size(N) may be for cadre's savers."""

NOTE_WORDS = 40
"""Words per note (about 300 bytes)."""

_WORDS = (
    "plan task worker review evidence source claim answer retry budget memory fact corpus "
    "cite summary verdict confidence revise dispatch finish"
).split()


class LoopState(TypedDict, total=False):
    """The reviewer loop's state: one appending list among overwrite and merge channels."""

    question: str
    draft: str
    notes: Annotated[list[str], operator.add]
    verdict: str
    metrics: Annotated[dict[str, float], merge_sum]
    iteration: int
    iterations: int


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def reviewer_loop() -> StateGraph[Any, Any, Any, Any]:
    """The bench graph: worker -> reviewer -> worker ... until ``iterations`` notes exist."""
    rng = random.Random(7)

    def worker(state: LoopState) -> dict[str, Any]:
        return {"draft": _text(rng, NOTE_WORDS), "metrics": {"worker_calls": 1}}

    def reviewer(state: LoopState) -> dict[str, Any]:
        iteration = state.get("iteration", 0) + 1
        return {
            "notes": [f"note {iteration}: {_text(rng, NOTE_WORDS)}"],
            "verdict": "revise" if iteration < state["iterations"] else "finish",
            "metrics": {"reviews": 1, "tokens": 50.0},
            "iteration": iteration,
        }

    def route(state: LoopState) -> str:
        return END if state["verdict"] == "finish" else "worker"

    graph = StateGraph(LoopState)
    graph.add_node("worker", worker)
    graph.add_node("reviewer", reviewer)
    graph.add_edge(START, "worker")
    graph.add_edge("worker", "reviewer")
    graph.add_conditional_edges("reviewer", route, ["worker", END])
    return graph


def run_loop(app: CompiledStateGraph[Any, Any, Any, Any], iterations: int) -> dict[str, Any]:
    """Run the loop for ``iterations`` on thread ``bench``; the final state."""
    config: Any = {
        "configurable": {"thread_id": "bench"},
        "recursion_limit": 2 * iterations + 10,
    }
    state: dict[str, Any] = app.invoke({"question": "q", "iterations": iterations}, config)
    if len(state["notes"]) != iterations:
        raise RuntimeError(f"the loop wrote {len(state['notes'])} notes, not {iterations}")
    return state


def database_size(path: Path) -> int:
    """Bytes of the database at ``path`` once its WAL is folded in and it is vacuumed."""
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    return int(pages * page_size)


SaverFactory = Callable[[Path], AbstractContextManager[BaseCheckpointSaver[Any]]]


def _langgraph(path: Path) -> AbstractContextManager[BaseCheckpointSaver[Any]]:
    return SqliteSaver.from_conn_string(str(path))


def _cadre(path: Path) -> AbstractContextManager[BaseCheckpointSaver[Any]]:
    return CadreSaver(path)


def _cadre_encrypted(path: Path) -> AbstractContextManager[BaseCheckpointSaver[Any]]:
    keyring = Keyring(primary="bench", keys={"bench": os.urandom(32)})
    return CadreSaver(path, BlobCipher(keyring))


SAVERS: dict[str, SaverFactory] = {
    "langgraph": _langgraph,
    "cadre": _cadre,
    "cadre+enc": _cadre_encrypted,
}


@dataclass(frozen=True)
class Measure:
    """One saver after one run of the loop."""

    saver: str
    iterations: int
    size: int
    run_s: float
    read_ms: float


def measure(name: str, factory: SaverFactory, iterations: int, folder: Path) -> Measure:
    """Run the loop under one saver on a fresh file in ``folder`` and measure the file."""
    path = folder / f"{name}-{iterations}.sqlite"
    with factory(path) as saver:
        app = reviewer_loop().compile(checkpointer=saver)
        started = time.perf_counter()
        run_loop(app, iterations)
        run_s = time.perf_counter() - started
        started = time.perf_counter()
        snapshot = app.get_state({"configurable": {"thread_id": "bench"}})
        read_ms = (time.perf_counter() - started) * 1000
        if len(snapshot.values["notes"]) != iterations:
            raise RuntimeError(f"{name}: the state read back has the wrong notes")
    return Measure(name, iterations, database_size(path), run_s, read_ms)


def _limit(small: int, large: int) -> float:
    """The target for size(large) / size(small): 2.2 for a doubling, in proportion otherwise."""
    return TARGET_RATIO * (large / small) / 2


def _ratios(rows: Sequence[Measure], saver: str, sizes: Sequence[int]) -> list[float]:
    by_n = {m.iterations: m.size for m in rows if m.saver == saver}
    return [by_n[b] / by_n[a] for a, b in itertools.pairwise(sizes)]


def missed(rows: Sequence[Measure], sizes: Sequence[int]) -> list[str]:
    """The cadre savers whose growth between two consecutive sizes misses the target."""
    pairs = list(itertools.pairwise(sizes))
    return [
        saver
        for saver in SAVERS
        if saver != "langgraph"
        and any(
            r > _limit(a, b) for r, (a, b) in zip(_ratios(rows, saver, sizes), pairs, strict=True)
        )
    ]


def _table(rows: Sequence[Measure], sizes: Sequence[int]) -> list[str]:
    pairs = list(itertools.pairwise(sizes))
    head = [
        "saver",
        *(f"size@{n} KiB" for n in sizes),
        *(f"ratio {b}/{a}" for a, b in pairs),
        *(f"run@{n} s" for n in sizes),
        f"read@{sizes[-1]} ms",
        f"target <= {TARGET_RATIO} per doubling",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    failing = missed(rows, sizes)
    for saver in SAVERS:
        by_n = {m.iterations: m for m in rows if m.saver == saver}
        verdict = "-" if saver == "langgraph" else ("MISS" if saver in failing else "PASS")
        cells = [
            saver,
            *(f"{by_n[n].size / 1024:.0f}" for n in sizes),
            *(f"{r:.2f}" for r in _ratios(rows, saver, sizes)),
            *(f"{by_n[n].run_s:.2f}" for n in sizes),
            f"{by_n[sizes[-1]].read_ms:.1f}",
            verdict,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Measure every saver at every size; print the table (exit 1 on a miss with --strict)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--iterations", type=int, nargs="+", default=[100, 200])
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--keep", type=Path, help="write the databases here and keep them")
    args = parser.parse_args(argv)
    sizes = sorted(set(args.iterations))
    if len(sizes) < 2:
        parser.error("give at least two sizes")
    context: AbstractContextManager[Any] = (
        nullcontext(args.keep) if args.keep else tempfile.TemporaryDirectory()
    )
    with context as folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        rows = [
            measure(name, factory, n, Path(folder))
            for n in sizes
            for name, factory in SAVERS.items()
        ]
    print("\n".join(_table(rows, sizes)))
    return 1 if args.strict and missed(rows, sizes) else 0


if __name__ == "__main__":
    sys.exit(main())
