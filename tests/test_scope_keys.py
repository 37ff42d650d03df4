"""Data keys per scope: a scope's memory is sealed under its own key, kept in a key store apart
and wrapped by the keyring's; rotation rewraps it; a purge destroys it, so a copy of the rows
made before (a backup of the file, rows put back) cannot be opened afterwards."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from framework.database.home import KEYS_DATABASE_VARIABLE, resolve_home
from framework.errors import ConfigError, CryptoError
from framework.memory import SemanticStore, StoreItem
from framework.memory._scope_keys import scope_of
from framework.persistence.cipher import BlobCipher, key_id_of, row_identity
from framework.persistence.data_keys import DataKeys
from framework.persistence.keys import Keyring, retire, rotate
from tests.conftest import new_database
from tests.postgres_server import find_bin_dir
from tests.test_langgraph_store import WordEmbedder

ALICE = ("research", "user", "alice", "evidence")
BOB = ("research", "user", "bob", "evidence")
CORPUS = ("corpus",)


Where = tuple[str, str]
"""The store's database, and its key store's."""


def _open(target: Where, keyring: Keyring) -> SemanticStore:
    cipher = BlobCipher(keyring)
    codec = cipher.bind(row_identity("memory", "memory"))
    keys = DataKeys(target[1], cipher)
    return SemanticStore(target[0], embedder=WordEmbedder(), codec=codec, data_keys=keys)


@pytest.fixture
def target(database: str | None, tmp_path: Path) -> Iterator[Where]:
    if database is not None:
        yield database, database
    else:
        yield str(tmp_path / "memory.sqlite"), str(tmp_path / "data-keys.sqlite")


def _raw(store: SemanticStore, namespace: tuple[str, ...]) -> list[tuple[Any, ...]]:
    rows = store._db.execute(
        "SELECT * FROM items WHERE namespace = ?", ("/".join(namespace),)
    ).fetchall()
    return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in rows]


def test_namespaces_belong_to_the_first_scope_they_name() -> None:
    assert scope_of(ALICE) == "user:alice"
    assert scope_of(("tenant", "acme", "user", "bob")) == "tenant:acme"
    assert scope_of(("users", "alice")) is None and scope_of(CORPUS) is None
    assert scope_of(("memory", "user")) is None  # a kind needs a name after it


def test_a_scopes_values_are_sealed_under_its_key_and_survive_rotation(target: Where) -> None:
    keyring = Keyring.generate()
    with _open(target, keyring) as store:
        store.put(ALICE, StoreItem(key="a", text="the ferry leaves at dawn"))
        store.put(BOB, StoreItem(key="b", text="the bees are in the east meadow"))
        store.put(CORPUS, StoreItem(key="c", text="a shared passage"))
        alice = {key_id_of(v) for row in _raw(store, ALICE) for v in row[2:4]}
        bob = {key_id_of(v) for row in _raw(store, BOB) for v in row[2:4]}
        assert len(alice) == len(bob) == 1 and alice != bob
        assert next(iter(alice)).startswith("scope-")
        old = keyring.primary
        assert {key_id_of(v) for row in _raw(store, CORPUS) for v in row[2:4]} == {old}
        assert {key_id_of(blob) for blob in store.sealed_values()} == {old}  # keys wrapped
    rotated = rotate(keyring)
    new = rotated.primary
    with _open(target, rotated) as store:
        rewritten = store.reseal(stale=lambda blob: key_id_of(blob) != new)
        assert rewritten > 0
        assert {key_id_of(blob) for blob in store.sealed_values()} == {new}
        assert store.reseal(stale=lambda blob: key_id_of(blob) != new) == 0
    with _open(target, retire(rotated, old)) as store:
        item = store.get(ALICE, "a")
        assert item is not None and item.text == "the ferry leaves at dawn"


def test_a_copy_of_a_purged_scopes_rows_cannot_be_opened(target: Where) -> None:
    keyring = Keyring.generate()
    with _open(target, keyring) as store:
        store.put(ALICE, StoreItem(key="a", text="the ferry leaves at dawn"))
        store.put(BOB, StoreItem(key="b", text="the bees are in the east meadow"))
        backup = _raw(store, ALICE)
        assert store.erase("user:alice", ()) == 1
        assert store.get(ALICE, "a") is None
        marks = ", ".join("?" * len(backup[0]))
        store._db.executemany(f"INSERT INTO items VALUES ({marks})", backup)  # restored
        store._indexes.clear()
    with _open(target, keyring) as store:
        with pytest.raises(CryptoError, match="destroyed when its scope or thread was erased"):
            store.get(ALICE, "a")
        bob = store.get(BOB, "b")
        assert bob is not None and bob.text == "the bees are in the east meadow"
        store.put(ALICE, StoreItem(key="new", text="a new start"))  # a new key for the scope
        fresh = store.get(ALICE, "new")
        assert fresh is not None and fresh.text == "a new start"


def test_a_backup_of_the_store_file_is_unreadable_for_a_purged_scope(tmp_path: Path) -> None:
    target = (str(tmp_path / "memory.sqlite"), str(tmp_path / "data-keys.sqlite"))
    keyring = Keyring.generate()
    with _open(target, keyring) as store:
        store.put(ALICE, StoreItem(key="a", text="the ferry leaves at dawn"))
        store.put(BOB, StoreItem(key="b", text="the bees are in the east meadow"))
    backup = Path(target[0]).read_bytes()  # the whole file, as a backup takes it
    with _open(target, keyring) as store:
        store.erase("user:alice", ())
        store.compact()
    Path(target[0]).write_bytes(backup)  # restored over the purged file
    with _open(target, keyring) as store:
        with pytest.raises(CryptoError, match="destroyed"):
            store.get(ALICE, "a")
        bob = store.get(BOB, "b")
        assert bob is not None and bob.text == "the bees are in the east meadow"


def test_a_key_store_in_its_own_database_is_not_in_a_dump_of_the_data(
    postgres_server_url: str, postgres_url: str
) -> None:
    keys_url = new_database(postgres_server_url)
    target = (postgres_url, keys_url)  # the data in one database, the data keys in another
    keyring = Keyring.generate()
    with _open(target, keyring) as store:
        store.put(ALICE, StoreItem(key="a", text="the ferry leaves at dawn"))
        store.put(BOB, StoreItem(key="b", text="the bees are in the east meadow"))
        backup = _raw(store, ALICE)
    bin_dir = find_bin_dir()
    assert bin_dir is not None
    dump = subprocess.run(
        [str(bin_dir / "pg_dump"), postgres_url], check=True, capture_output=True
    ).stdout
    assert b"data_keys" not in dump and b"cadre_data_keys" not in dump  # a backup of the data
    with _open(target, keyring) as store:
        store.erase("user:alice", ())
        marks = ", ".join("?" * len(backup[0]))
        store._db.executemany(f"INSERT INTO items VALUES ({marks})", backup)  # restored
    with _open(target, keyring) as store:
        with pytest.raises(CryptoError, match="destroyed"):
            store.get(ALICE, "a")
        bob = store.get(BOB, "b")
        assert bob is not None and bob.text == "the bees are in the east meadow"


def test_the_key_database_must_be_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEYS_DATABASE_VARIABLE, "/tmp/keys.sqlite")
    with pytest.raises(ConfigError, match="CADRE_KEYS_DB takes a postgresql://"):
        resolve_home()
