"""cadre's checkpointer and semantic store on a real PostgreSQL server: encryption bound to each
row, the metadata allowlist, rotation, thread holds, the store's sealed values, and the data
home's ``--db`` / ``$CADRE_DB`` (the conformance suite: ``test_saver_conformance.py``)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from framework.database._postgres import PostgresDatabase
from framework.database.home import DataHome, resolve_home
from framework.errors import ConfigError, TamperError, ThreadBusyError
from framework.memory import MiniLMEmbedder, SemanticStore, StoreItem
from framework.persistence.cipher import BlobCipher, row_identity
from framework.persistence.keys import Keyring
from framework.persistence.saver import CadreSaver, key_usage, reencrypt_all

SECRET = "the-launch-code-is-swordfish"


def _cipher(*ids: str) -> BlobCipher:
    keys = {key_id: os.urandom(32) for key_id in ids}
    return BlobCipher(Keyring(primary=ids[0], keys=keys))


def _config(thread: str, checkpoint_id: str | None = None) -> Any:
    configurable: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ""}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def _checkpoint(checkpoint_id: str, values: dict[str, Any]) -> Any:
    return {
        "v": 4,
        "id": checkpoint_id,
        "ts": "2026-11-22T00:00:00+00:00",
        "channel_values": values,
        "channel_versions": dict.fromkeys(values, "00000000000000000000000000000001.0"),
        "versions_seen": {},
    }


def _rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql).fetchall()


@pytest.fixture
def saver(postgres_url: str) -> Iterator[CadreSaver]:
    with CadreSaver(postgres_url, _cipher("k1")) as opened:
        yield opened


def test_values_and_configurable_never_reach_the_database_in_plaintext(
    saver: CadreSaver, postgres_url: str
) -> None:
    config = _config("t1")
    config["configurable"]["api_token"] = SECRET
    saved = saver.put(
        config,
        _checkpoint("1ef00000-0000-6000-8000-000000000001", {"question": SECRET}),
        {"source": "input", "step": -1, "parents": {}, "note": SECRET},  # type: ignore[typeddict-unknown-key]
        {"question": "00000000000000000000000000000001.0"},
    )
    saver.put_writes(saved, [("answer", SECRET)], "task-1")
    dump = repr(
        _rows(postgres_url, "SELECT * FROM cadre_checkpoints.cadre_checkpoints")
        + _rows(postgres_url, "SELECT * FROM cadre_checkpoints.cadre_blobs")
        + _rows(postgres_url, "SELECT * FROM cadre_checkpoints.cadre_writes")
    )
    assert SECRET not in dump
    assert b"swordfish".hex() not in dump
    (metadata,) = _rows(postgres_url, "SELECT metadata FROM cadre_checkpoints.cadre_checkpoints")
    assert metadata == ('{"parents":{},"source":"input","step":-1}',)
    loaded = saver.get_tuple(_config("t1"))
    assert loaded is not None
    assert loaded.checkpoint["channel_values"] == {"question": SECRET}
    assert loaded.metadata["note"] == SECRET  # type: ignore[typeddict-item]
    assert loaded.pending_writes == [("task-1", "answer", SECRET)]


def test_a_blob_moved_to_another_thread_is_refused(saver: CadreSaver, postgres_url: str) -> None:
    for thread in ("t1", "t2"):
        saver.put(
            _config(thread),
            _checkpoint(f"1ef00000-0000-6000-8000-00000000000{thread[1]}", {"x": thread}),
            {"source": "input", "step": -1, "parents": {}},
            {"x": "00000000000000000000000000000001.0"},
        )
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE cadre_checkpoints.cadre_blobs SET value = (SELECT value FROM "
            "cadre_checkpoints.cadre_blobs WHERE thread_id = 't1') WHERE thread_id = 't2'"
        )
    with pytest.raises(TamperError):
        saver.get_tuple(_config("t2"))
    assert saver.get_tuple(_config("t1")) is not None


def test_opening_an_encrypted_database_without_keys_is_refused(
    saver: CadreSaver, postgres_url: str
) -> None:
    with pytest.raises(ConfigError, match="is encrypted"):
        CadreSaver(postgres_url)


def test_rotation_and_reencryption_leave_threads_readable_under_the_new_key(
    postgres_url: str,
) -> None:
    old = _cipher("k1")
    with CadreSaver(postgres_url, old) as first:
        for n in range(3):
            first.put(
                _config(f"t{n}"),
                _checkpoint(f"1ef00000-0000-6000-8000-00000000000{n}", {"x": n}),
                {"source": "input", "step": -1, "parents": {}},
                {"x": "00000000000000000000000000000001.0"},
            )
    new_key = os.urandom(32)
    rotated = BlobCipher(Keyring(primary="k2", keys={"k2": new_key, "k1": old.keyring.keys["k1"]}))
    with CadreSaver(postgres_url, rotated) as second:
        assert reencrypt_all(second, batch=2) == 9  # a body, a value and a manifest each
        assert key_usage(second) == {"k2": 9}
    alone = BlobCipher(Keyring(primary="k2", keys={"k2": new_key}))
    with CadreSaver(postgres_url, alone) as third:
        assert [third.get_tuple(_config(f"t{n}")) is not None for n in range(3)] == [True] * 3


def test_a_thread_is_held_by_one_saver_at_a_time(saver: CadreSaver, postgres_url: str) -> None:
    with CadreSaver(postgres_url, saver.cipher) as other:
        with saver.hold_thread("t1"):
            with pytest.raises(ThreadBusyError, match="thread t1 is busy"), other.hold_thread("t1"):
                pass
            with other.hold_thread("t2"):
                pass
        with other.hold_thread("t1"):
            pass


def test_the_semantic_store_seals_its_values_on_postgres(
    postgres_url: str, embedder: MiniLMEmbedder
) -> None:
    codec = _cipher("k1").bind(row_identity("memory", "memory.sqlite"))
    with SemanticStore(postgres_url, embedder=embedder, codec=codec) as store:
        store.put_many(
            ("corpus",),
            [
                StoreItem(key="a", text=f"Checkpoints are encrypted. {SECRET}", metadata={"n": 1}),
                StoreItem(key="b", text="Workers retry timeouts three times.", metadata={"n": 2}),
            ],
        )
        hits = store.search(("corpus",), "how are checkpoints protected", k=1)
        assert [hit.key for hit in hits] == ["a"]
        assert store.count(("corpus",)) == 2
    assert SECRET not in repr(_rows(postgres_url, "SELECT * FROM cadre_memory.items"))
    with SemanticStore(postgres_url, embedder=embedder, codec=codec) as reopened:
        item = reopened.get(("corpus",), "a")
        assert item is not None and SECRET in item.text
        assert reopened.delete_many(("corpus",), ["a", "missing"]) == 1


def test_a_second_store_sees_the_first_ones_writes(
    postgres_url: str, embedder: MiniLMEmbedder
) -> None:
    with (
        SemanticStore(postgres_url, embedder=embedder) as first,
        SemanticStore(postgres_url, embedder=embedder) as second,
    ):
        first.put(("n",), StoreItem(key="a", text="The planner splits questions."))
        assert [hit.key for hit in second.search(("n",), "planner", k=3)] == ["a"]
        first.put(("n",), StoreItem(key="b", text="The reviewer loops until confident."))
        assert {hit.key for hit in second.search(("n",), "reviewer", k=3)} == {"a", "b"}


def test_the_data_home_takes_its_database_from_cadre_db(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, postgres_url: str
) -> None:
    monkeypatch.setenv("CADRE_DB", postgres_url)
    home = resolve_home(tmp_path / "home")
    assert home == DataHome(root=tmp_path / "home", database=postgres_url)
    assert home.checkpoint_target == postgres_url
    monkeypatch.setenv("CADRE_DB", "mysql://db.example/cadre")
    with pytest.raises(ConfigError, match="postgresql://"):
        resolve_home(tmp_path / "home")


def test_psycopg_repeating_a_failed_batch_s_error_is_not_printed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """When a batch fails while its rows are still being sent, psycopg raises the error and logs
    it again as its pipeline ends (``pipeline aborted``): only the raised one is told."""
    assert PostgresDatabase  # its module installs the filter
    psycopg_log, pipeline = logging.getLogger("psycopg"), "<psycopg.Pipeline>"
    psycopg_log.warning("error ignored terminating %r: %s", pipeline, "pipeline aborted")
    psycopg_log.warning("error ignored exiting %r: %s", pipeline, "uncollected results")
    assert [record.getMessage() for record in caplog.records if record.name == "psycopg"] == [
        "error ignored exiting '<psycopg.Pipeline>': uncollected results"
    ]


def test_an_unreachable_server_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot connect to postgresql://cadre:\*\*\*@"):
        CadreSaver("postgresql://cadre:hunter2@127.0.0.1:1/none")


_FIRST_USE = """
import sys, time
from pathlib import Path
from framework.memory.store import SemanticStore
from framework.persistence._schema import open_checkpoints

url, start = sys.argv[1], Path(sys.argv[2])
while not start.exists():
    time.sleep(0.005)
open_checkpoints(url, encrypted=True).close()
SemanticStore(url).close()
"""


def test_processes_opening_a_fresh_database_at_once_all_start(
    postgres_url: str, tmp_path: Path
) -> None:
    start = tmp_path / "go"
    starters = [
        subprocess.Popen(
            [sys.executable, "-c", _FIRST_USE, postgres_url, str(start)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    start.touch()  # all of them were started and are waiting for it: they create at once
    failures = []
    for starter in starters:
        _, err = starter.communicate(timeout=120)
        if starter.returncode != 0:
            failures.append(err.strip().splitlines()[-1:])
    assert not failures
