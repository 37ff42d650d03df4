"""Pending writes of one ``put_writes`` call sealed as one bundle in an encrypted database: one
cipher blob per call, exact keep-the-first semantics per (task, index), and every way of
altering a bundle's rows refused."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from framework.errors import TamperError
from framework.persistence.cipher import MAGIC, BlobCipher
from framework.persistence.keys import Keyring
from framework.persistence.saver import CadreSaver, key_usage, reencrypt_all

CHECKPOINT_ID = "1ef00000-0000-6000-8000-000000000001"


def _cipher(*ids: str, keys: dict[str, bytes] | None = None) -> BlobCipher:
    keys = keys or {key_id: os.urandom(32) for key_id in ids}
    return BlobCipher(Keyring(primary=ids[0], keys=keys))


def _config(thread: str) -> Any:
    return {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}


def _saved(saver: CadreSaver, thread: str) -> Any:
    checkpoint = {
        "v": 4,
        "id": CHECKPOINT_ID,
        "ts": "2026-11-22T00:00:00+00:00",
        "channel_values": {},
        "channel_versions": {},
        "versions_seen": {},
    }
    return saver.put(_config(thread), checkpoint, {"source": "loop", "step": 1, "parents": {}}, {})


def _rows(path: Path) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute(
            "SELECT thread_id, task_id, idx, channel, value FROM cadre_writes ORDER BY 1, 2, 3"
        ).fetchall()


def _alter(path: Path, sql: str) -> None:
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(sql)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[tuple[Path, BlobCipher]]:
    path = tmp_path / "checkpoints.sqlite"
    cipher = _cipher("k1")
    with CadreSaver(path, cipher) as saver:
        saved = _saved(saver, "t")
        saver.put_writes(saved, [("result", {"n": 1}), ("branch:to:next", None)], "task-a")
        saver.put_writes(saved, [("result", {"n": 2}), ("branch:to:next", None)], "task-b")
    yield path, cipher


def _pending(path: Path, cipher: BlobCipher) -> list[tuple[str, str, Any]]:
    with CadreSaver(path, cipher) as saver:
        loaded = saver.get_tuple(_config("t"))
        assert loaded is not None
        return list(loaded.pending_writes or [])


def test_a_call_of_several_writes_is_sealed_once(db: tuple[Path, BlobCipher]) -> None:
    path, cipher = db
    sealed = [row for row in _rows(path) if row[4].startswith(MAGIC)]
    assert [(row[1], row[2]) for row in sealed] == [("task-a", 0), ("task-b", 0)]
    assert len(_rows(path)) == 4
    assert _pending(path, cipher) == [
        ("task-a", "result", {"n": 1}),
        ("task-a", "branch:to:next", None),
        ("task-b", "result", {"n": 2}),
        ("task-b", "branch:to:next", None),
    ]
    with CadreSaver(path, cipher) as saver:
        assert key_usage(saver) == {"k1": 4}  # the checkpoint, its manifest and two bundles


ALTERATIONS = {
    "a member row deleted": "DELETE FROM cadre_writes WHERE task_id = 'task-b' AND idx = 1",
    "a member marker moved to another task": (
        "UPDATE cadre_writes SET value = (SELECT value FROM cadre_writes WHERE "
        "task_id = 'task-a' AND idx = 1) WHERE task_id = 'task-b' AND idx = 1"
    ),
    "a member's channel renamed": (
        "UPDATE cadre_writes SET channel = 'elsewhere' WHERE task_id = 'task-b' AND idx = 1"
    ),
    "the head deleted": "DELETE FROM cadre_writes WHERE task_id = 'task-b' AND idx = 0",
    "a marker in the head's row": (
        "UPDATE cadre_writes SET value = (SELECT value FROM cadre_writes WHERE "
        "task_id = 'task-b' AND idx = 1) WHERE task_id = 'task-b' AND idx = 0"
    ),
}


@pytest.mark.parametrize("alteration", list(ALTERATIONS))
def test_altered_bundles_are_tamper(db: tuple[Path, BlobCipher], alteration: str) -> None:
    path, cipher = db
    _alter(path, ALTERATIONS[alteration])
    with pytest.raises(TamperError):
        _pending(path, cipher)


def test_a_later_call_keeps_what_was_stored_and_adds_the_rest(
    db: tuple[Path, BlobCipher],
) -> None:
    path, cipher = db
    with CadreSaver(path, cipher) as saver:
        saved = {"configurable": {**_config("t")["configurable"], "checkpoint_id": CHECKPOINT_ID}}
        saver.put_writes(saved, [("result", {"n": 9}), ("extra", 7), ("more", 8)], "task-a")
    assert _pending(path, cipher)[:4] == [
        ("task-a", "result", {"n": 1}),
        ("task-a", "branch:to:next", None),
        ("task-a", "more", 8),
        ("task-b", "result", {"n": 2}),
    ]


async def test_the_async_path_bundles_and_commits_together(tmp_path: Path) -> None:
    path = tmp_path / "checkpoints.sqlite"
    cipher = _cipher("k1")
    with CadreSaver(path, cipher) as saver:
        saved = _saved(saver, "t")
        for task in ("x", "y"):
            await saver.aput_writes(saved, [("result", task), ("branch:to:next", None)], task)
        assert sum(row[4].startswith(MAGIC) for row in _rows(path)) == 2
    assert [value for _, _, value in _pending(path, cipher)] == ["x", None, "y", None]


def test_bundles_survive_copying_and_reencryption(db: tuple[Path, BlobCipher]) -> None:
    path, old = db
    with CadreSaver(path, old) as saver:
        saver.copy_thread("t", "copy")
    keys = {"k2": os.urandom(32), **old.keyring.keys}
    with CadreSaver(path, _cipher("k2", "k1", keys=keys)) as saver:
        assert reencrypt_all(saver) == 8  # two threads of four blobs
        assert key_usage(saver) == {"k2": 8}
    with CadreSaver(path, _cipher("k2", keys={"k2": keys["k2"]})) as saver:
        copied = saver.get_tuple(_config("copy"))
        assert copied is not None
        pending = [value for _, _, value in copied.pending_writes or []]
        assert pending == [{"n": 1}, None, {"n": 2}, None]
