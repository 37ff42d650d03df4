"""cadre's SQLite checkpointer stores each channel version once, lists and dicts as deltas:
storage grows linearly, every checkpoint reads back exactly, pruning keeps what is needed."""

from __future__ import annotations

import copy
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.memory import InMemorySaver

from bench.storage import SAVERS, TARGET_RATIO, measure, reviewer_loop, run_loop
from framework.persistence.cipher import BlobCipher
from framework.persistence.keys import Keyring
from framework.persistence.saver import CadreSaver


def config(thread_id: str) -> Any:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


def kinds(path: Path, channel: str) -> list[str]:
    """The stored kind of each version of ``channel``, oldest first."""
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute(
            "SELECT kind FROM cadre_blobs WHERE channel = ? ORDER BY version", (channel,)
        )
        return [row[0] for row in rows]


def test_storage_grows_linearly_where_sqlitesaver_grows_quadratically(tmp_path: Path) -> None:
    sizes: dict[str, list[int]] = {}
    for name in ("langgraph", "cadre+enc"):
        sizes[name] = [measure(name, SAVERS[name], n, tmp_path).size for n in (40, 80)]
    cadre_ratio = sizes["cadre+enc"][1] / sizes["cadre+enc"][0]
    upstream_ratio = sizes["langgraph"][1] / sizes["langgraph"][0]
    assert cadre_ratio <= TARGET_RATIO, sizes
    assert upstream_ratio > 2.8, sizes  # the test can tell quadratic from linear
    assert sizes["cadre+enc"][1] < sizes["langgraph"][1] / 2


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
def test_every_checkpoint_of_a_delta_stored_loop_reads_back_exactly(
    tmp_path: Path, encrypted: bool
) -> None:
    reference = reviewer_loop().compile(checkpointer=InMemorySaver())
    run_loop(reference, 12)
    expected = [s.values for s in reference.get_state_history(config("bench"))]
    cipher = BlobCipher(Keyring(primary="k", keys={"k": bytes(32)})) if encrypted else None
    path = tmp_path / "loop.sqlite"
    with CadreSaver(path, cipher, snapshot_every=3) as saver:
        run_loop(reviewer_loop().compile(checkpointer=saver), 12)
    with CadreSaver(path, cipher, snapshot_every=3) as saver:
        app = reviewer_loop().compile(checkpointer=saver)
        assert [s.values for s in app.get_state_history(config("bench"))] == expected
    notes = kinds(path, "notes")
    assert notes.count("list+") >= 8 and notes.count("full") >= 3
    assert _longest_chain(path, "notes") <= 3  # at most snapshot_every deltas per read
    assert "dict+" in kinds(path, "metrics") or "full" in kinds(path, "metrics")


def _longest_chain(path: Path, channel: str) -> int:
    with closing(sqlite3.connect(path)) as conn:
        bases = dict(
            conn.execute(
                "SELECT version, base_version FROM cadre_blobs WHERE channel = ?", (channel,)
            ).fetchall()
        )
    longest = 0
    for base in bases.values():
        depth, current = 0, base
        while current is not None:
            depth, current = depth + 1, bases[current]
        longest = max(longest, depth)
    return longest


class Steps:
    """Puts checkpoints of a few channels by hand, each a child of the last."""

    def __init__(self, saver: CadreSaver, thread_id: str = "t") -> None:
        self.saver = saver
        self.config: Any = config(thread_id)
        self.checkpoint = empty_checkpoint()
        self.written: list[tuple[Any, dict[str, Any]]] = []

    def put(self, **values: Any) -> None:
        checkpoint = empty_checkpoint()
        versions = dict(self.checkpoint["channel_versions"])
        new_versions = {}
        for channel in values:
            new_versions[channel] = self.saver.get_next_version(versions.get(channel), None)  # type: ignore[arg-type]
        versions.update(new_versions)
        previous = {k: v for k, v in self.checkpoint["channel_values"].items() if k not in values}
        checkpoint["channel_values"] = {**previous, **values}
        checkpoint["channel_versions"] = versions
        self.config = self.saver.put(
            self.config, checkpoint, {"step": len(self.written)}, new_versions
        )
        self.checkpoint = checkpoint
        self.written.append((self.config, copy.deepcopy(checkpoint["channel_values"])))

    def check(self) -> None:
        for stored_config, values in self.written:
            tup = self.saver.get_tuple(stored_config)
            assert tup is not None and tup.checkpoint["channel_values"] == values


def test_bounded_lists_dicts_and_items_changed_in_place(tmp_path: Path) -> None:
    path = tmp_path / "steps.sqlite"
    with CadreSaver(path, snapshot_every=4) as saver:
        steps = Steps(saver)
        window: list[dict[str, int]] = []
        tasks: dict[str, str] = {f"t{i}": "planned" for i in range(6)}
        for i in range(10):
            window = [*window, {"n": i}][-5:]  # a bounded append: the oldest drops out
            tasks = {**tasks, f"t{i % 6}": f"done {i}"}
            if i == 7:
                tasks.pop("t3")
            steps.put(window=window, tasks=tasks, answer=f"answer {i}")
        window[-1]["n"] = 99  # changed in place: must not be taken for the stored item
        steps.put(window=window)
        steps.check()
    assert kinds(path, "window").count("list+") >= 6
    assert kinds(path, "tasks").count("dict+") >= 6
    assert set(kinds(path, "answer")) == {"full"}


def test_delta_whose_base_is_gone_is_stored_whole(tmp_path: Path) -> None:
    path = tmp_path / "gone.sqlite"
    with CadreSaver(path) as saver:
        steps = Steps(saver)
        steps.put(log=["a", "b", "c"])
        steps.put(log=["a", "b", "c", "d"])
        with closing(sqlite3.connect(path)) as conn, conn:  # another process prunes it
            conn.execute("DELETE FROM cadre_blobs WHERE kind = 'list+'")
        steps.put(log=["a", "b", "c", "d", "e"])
        tup = saver.get_tuple(steps.config)
        assert tup is not None and tup.checkpoint["channel_values"]["log"] == list("abcde")
    assert kinds(path, "log") == ["full", "full"]


def test_prune_and_delete_keep_the_values_the_rest_needs(tmp_path: Path) -> None:
    path = tmp_path / "prune.sqlite"
    with CadreSaver(path, snapshot_every=4) as saver:
        app = reviewer_loop().compile(checkpointer=saver)
        final = run_loop(app, 10)
        stored = len(kinds(path, "notes")) + len(kinds(path, "draft"))
        history = list(saver.list(config("bench")))
        middle = [t.config["configurable"]["checkpoint_id"] for t in history[3:-3]]
        saver.delete_checkpoints("bench", "", middle)
        for tup in saver.list(config("bench")):  # the survivors read back whole
            assert tup.checkpoint["channel_values"]
        assert app.get_state(config("bench")).values == final
        saver.prune(["bench"])
        assert len(list(saver.list(config("bench")))) == 1
        assert app.get_state(config("bench")).values == final
        assert kinds(path, "draft") == ["full"]  # one version left: the latest one's
        assert kinds(path, "notes")[0] == "full" and len(kinds(path, "notes")) <= 5  # its chain
        assert len(kinds(path, "notes")) + len(kinds(path, "draft")) < stored
        # the run goes on from the pruned thread
        state = app.invoke({"iterations": 12}, config("bench") | {"recursion_limit": 50})
        assert len(state["notes"]) == 12


def test_what_the_delta_encoder_remembers_is_bounded_in_bytes() -> None:
    """Huge values are not all kept in memory for the next delta: beyond the byte budget the
    least recently stored channels are forgotten (and stored whole next time)."""
    from framework.persistence._deltas import DeltaEncoder
    from framework.persistence.checkpointer import default_serializer

    serde = default_serializer()
    encoder = DeltaEncoder(snapshot_every=8, budget=1_000_000)
    big = ["x" * 300_000]
    for thread in ("a", "b", "c", "d", "e"):
        key = (thread, "", "question")
        encoder.stored(key, encoder.encode(serde, key, "1", big, missing=False))
    grown = [*big, "y"]
    kinds = {
        t: encoder.encode(serde, (t, "", "question"), "2", grown, missing=False).kind
        for t in "abcde"
    }
    assert [t for t, kind in kinds.items() if kind != "full"] == ["c", "d", "e"]
