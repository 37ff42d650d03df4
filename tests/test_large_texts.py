"""Large texts are stored once per thread: a reviewer's long plan travels through the plan,
the tasks, the Sends, the review request, the decision and the audit trail, and its text is
stored about once; chunks are sealed, checked and collected."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from framework.engine.builder import TeamSettings, build_team, compile_team
from framework.engine.records import Plan, Task
from framework.errors import IncompleteCheckpointError, TamperError
from framework.persistence import _chunks
from framework.persistence.cipher import BlobCipher
from framework.persistence.keys import Keyring
from framework.persistence.saver import CadreSaver
from framework.review import Decision, decide, pending
from tests.roles import make_roles

WORDS = (
    "checkpoint worker review plan seal key thread answer source corpus budget policy tool "
    "memory span retry table model query row branch fork cache limit index chunk"
).split()
TASKS = 64
TEXT = 4000


def _text(seed: int) -> str:
    rng = random.Random(seed)
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < TEXT - 20:
        words.append(rng.choice(WORDS) + str(rng.randint(0, 999)))
    return " ".join(words)[: TEXT - 1] + "."


@pytest.fixture
def target(tmp_path: Path, database: str | None) -> str:
    return database or str(tmp_path / "checkpoints.sqlite")


@pytest.fixture
def saver(target: str) -> Iterator[CadreSaver]:
    cipher = BlobCipher(Keyring(primary="k1", keys={"k1": os.urandom(32)}))
    with CadreSaver(target, cipher) as opened:
        yield opened


def _edited_run(saver: CadreSaver, thread: str = "big") -> int:
    """A run whose plan a reviewer replaces by 64 tasks of 4000 characters; the characters."""
    app = compile_team(
        build_team(make_roles(), TeamSettings(review=frozenset({"plan"}))), checkpointer=saver
    )
    app.invoke({"question": "q"}, {"configurable": {"thread_id": thread}})
    [request] = pending(app, thread)
    tasks = [Task(id=f"t{i}", description=_text(i)) for i in range(TASKS)]
    edit = Decision(
        kind="edit_plan", plan=Plan(goal="q", tasks=tasks), request_id=request.id, reviewer="ann"
    )
    final = decide(app, thread, [edit])
    assert final.state["worker_results"]["t0"].status == "ok"
    return sum(len(task.description) for task in tasks)


def _stored(saver: CadreSaver, thread: str = "big") -> int:
    from framework.retention._rows import row_sizes

    return row_sizes(saver, thread)[thread]


def test_a_long_edited_plan_is_stored_about_once(saver: CadreSaver) -> None:
    text = _edited_run(saver)
    stored = _stored(saver)
    # every copy of a text (plan, tasks, Sends, request, decision, audit, results that quote
    # it) was stored whole: 26x the text; now each distinct text once, and the rest references
    assert stored < 5 * text, (stored, text)
    with saver.lock:
        (chunks,) = saver.db.execute("SELECT count(*) FROM cadre_chunks").fetchone()
    assert chunks > TASKS


def test_without_chunks_the_same_run_stores_many_copies(
    saver: CadreSaver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The measure above is meaningful: with chunking off, the text is stored over and over."""
    monkeypatch.setattr(_chunks, "MIN_CHUNKED", 1 << 40)
    text = _edited_run(saver)
    assert _stored(saver) > 20 * text


def test_a_deleted_chunk_is_named(saver: CadreSaver) -> None:
    _edited_run(saver)
    with saver.lock, saver.db.write_transaction():
        (digest,) = saver.db.execute("SELECT digest FROM cadre_chunks LIMIT 1").fetchone()
        saver.db.execute("DELETE FROM cadre_chunks WHERE digest = ?", (digest,))
    with pytest.raises(IncompleteCheckpointError, match=rf"chunk {digest} is missing"):
        for _ in saver.list({"configurable": {"thread_id": "big"}}):
            pass


def test_a_chunk_swapped_with_another_fails_to_open(saver: CadreSaver) -> None:
    _edited_run(saver)
    with saver.lock, saver.db.write_transaction():
        first, second = saver.db.execute("SELECT digest FROM cadre_chunks LIMIT 2").fetchall()
        saver.db.execute(
            "UPDATE cadre_chunks SET value = (SELECT value FROM cadre_chunks WHERE digest = ?) "
            "WHERE digest = ?",
            (second[0], first[0]),
        )
    with pytest.raises(TamperError, match="chunk row"):
        for _ in saver.list({"configurable": {"thread_id": "big"}}):
            pass


def test_pruning_collects_chunks_nothing_names(saver: CadreSaver) -> None:
    _edited_run(saver)
    before = _count(saver)
    saver.prune(["big"])
    after = _count(saver)
    assert 0 < after < before
    [latest] = saver.list({"configurable": {"thread_id": "big"}})
    assert len(latest.checkpoint["channel_values"]["tasks"]) == TASKS
    saver.delete_thread("big")
    assert _count(saver) == 0


def test_a_copied_thread_reads_its_large_values(saver: CadreSaver) -> None:
    _edited_run(saver)
    saver.copy_thread("big", "copy")
    copied = saver.get_tuple({"configurable": {"thread_id": "copy"}})
    original = saver.get_tuple({"configurable": {"thread_id": "big"}})
    assert copied is not None and original is not None
    assert copied.checkpoint["channel_values"] == original.checkpoint["channel_values"]


def _count(saver: CadreSaver) -> Any:
    with saver.lock:
        return saver.db.execute("SELECT count(*) FROM cadre_chunks").fetchone()[0]


@pytest.mark.parametrize("seed", range(20))
def test_chunks_always_join_back_whatever_the_bytes(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice([1, 100, 5000, 70_000])
    data = bytes(rng.choice([0xDA, 0xDB, 0x00, 0xFF, rng.randrange(256)]) for _ in range(size))
    pieces = _chunks.split(data)
    assert b"".join(pieces) == data
    assert all(0 < len(piece) <= _chunks.MAX_CHUNK for piece in pieces)


def test_the_same_long_string_is_the_same_chunks_wherever_it_sits() -> None:
    from framework.persistence.checkpointer import default_serializer

    serde = default_serializer()
    text = _text(7)
    inside_a_plan = serde.dumps_typed(Plan(goal="g", tasks=[Task(id="a", description=text)]))
    inside_a_dict = serde.dumps_typed({"x": [1, 2, 3], "y": Task(id="zz", description=text)})
    shared = set(_chunks.split(inside_a_plan[1])) & set(_chunks.split(inside_a_dict[1]))
    assert sum(len(piece) for piece in shared) >= len(text)


def test_cut_points_do_not_depend_on_the_block_they_are_found_in() -> None:
    """Cut points are found a block at a time (scratch bounded by the block, not the value):
    a value over several blocks is cut exactly where one pass over it would cut."""
    import numpy as np

    data = random.Random(3).randbytes(3 * _chunks._BLOCK + 777)
    values = _chunks._gear()[np.frombuffer(data, dtype=np.uint8)].astype(np.int64)
    sums = np.cumsum(values)
    window = sums[_chunks._WINDOW :] - sums[: -_chunks._WINDOW]
    whole = np.flatnonzero((window & (_chunks.AVERAGE_CHUNK - 1)) == 0) + _chunks._WINDOW + 1
    assert _chunks._rolling_cuts(data) == whole.tolist()
