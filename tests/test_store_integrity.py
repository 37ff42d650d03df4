"""The sealed semantic store, on SQLite and PostgreSQL: every value bound to its row (a value
moved to another row, column or namespace is refused, naming the row), keys, source records
and content hashes keyed (nothing on disk confirms a guessed text), the upgrade of stores that
schema 1 wrote, and key rotation of everything sealed."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg
import pytest

from framework.errors import PlaintextBlobError, TamperError
from framework.memory import (
    EvidenceRecord,
    ResearchMemory,
    SemanticStore,
    SourceRecord,
    StoreItem,
    evidence_id,
)
from framework.memory.store import SCHEMA_VERSION
from framework.persistence.cipher import BlobCipher, key_id_of, row_identity
from framework.persistence.keys import Keyring, retire, rotate

CORPUS = ("corpus",)
BEES = "Bees make honey from the nectar they gather."
FERRIES = "Ferries cross the bay every hour from the north pier."
FILE = b"# Bees\n\nBees make honey from the nectar they gather.\n"
STORE_NAME = "memory.sqlite"


class CountingEmbedder:
    """Deterministic 8-dimensional unit vectors; counts the texts it embedded."""

    dim = 8
    name = "counting"

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.embedded += len(texts)
        rows = [list(text.encode().ljust(8, b"_")[:8]) for text in texts]
        vectors: npt.NDArray[np.float32] = np.asarray(rows, dtype=np.float32) + 1.0
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors


@dataclass
class Target:
    """Where a store lives, with a raw connection to tamper with it."""

    location: str | Path
    postgres: bool

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._connect() as conn:
            found = conn.execute(self._sql(sql), params).fetchall()
        return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in found]

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self._connect() as conn:
            conn.execute(self._sql(sql), params)

    def dump(self) -> str:
        """Every row of the store's tables, as text."""
        return repr([self.rows(f"SELECT * FROM {t}") for t in ("items", "sources", "meta")])

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.postgres else sql

    def _connect(self) -> Any:
        if self.postgres:
            options = "-c search_path=cadre_memory"
            return psycopg.connect(str(self.location), autocommit=True, options=options)
        return _Committing(sqlite3.connect(self.location))


class _Committing:
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def __enter__(self) -> Any:
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.commit()
        self.conn.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Target:
    if request.param == "sqlite":
        return Target(tmp_path / STORE_NAME, postgres=False)
    return Target(request.getfixturevalue("postgres_url"), postgres=True)


@pytest.fixture
def cipher() -> BlobCipher:
    return BlobCipher(Keyring(primary="k1", keys={"k1": os.urandom(32)}))


def _open(
    target: Target, cipher: BlobCipher, embedder: CountingEmbedder | None = None
) -> SemanticStore:
    codec = cipher.bind(row_identity("memory", STORE_NAME))
    return SemanticStore(target.location, embedder=embedder or CountingEmbedder(), codec=codec)


@pytest.fixture
def filled(target: Target, cipher: BlobCipher) -> Iterator[Target]:
    """The target, holding two corpus sentences and a research memory's evidence."""
    with _open(target, cipher) as store:
        store.put_many(
            CORPUS,
            [
                StoreItem(key="bees.md:3", text=BEES, metadata={"path": "bees.md"}),
                StoreItem(key="ferries.md:3", text=FERRIES, metadata={"path": "ferries.md"}),
            ],
        )
        ResearchMemory(store).store_evidence([EvidenceRecord(text=BEES, source="bees.md:3")])
    yield target


def _stored(target: Target, namespace: str, column: str) -> list[tuple[str, bytes]]:
    return target.rows(
        f"SELECT key, {column} FROM items WHERE namespace = ? ORDER BY key", (namespace,)
    )


# -- every value bound to its row ------------------------------------------------------------


def test_texts_swapped_between_rows_are_refused_naming_the_row(
    filled: Target, cipher: BlobCipher
) -> None:
    (first, first_text), (second, second_text) = _stored(filled, "corpus", "text")
    update = "UPDATE items SET text = ? WHERE namespace = 'corpus' AND key = ?"
    filled.run(update, (second_text, first))
    filled.run(update, (first_text, second))
    with _open(filled, cipher) as store:
        with pytest.raises(TamperError, match=r"text of item 'bees\.md:3' in namespace 'corpus'"):
            store.get(CORPUS, "bees.md:3")
        with pytest.raises(TamperError, match="namespace 'corpus'"):
            store.search(CORPUS, "Where do bees get nectar?", k=1)


def test_a_value_moved_to_another_column_or_namespace_is_refused(
    filled: Target, cipher: BlobCipher
) -> None:
    [(_, evidence_text)] = _stored(filled, "research/default/evidence", "text")
    filled.run("UPDATE items SET text = metadata WHERE namespace = 'corpus'")
    with _open(filled, cipher) as store, pytest.raises(TamperError, match="text of item"):
        store.get(CORPUS, "bees.md:3")
    moved = "UPDATE items SET text = ? WHERE namespace = 'corpus'"
    filled.run(moved, (evidence_text,))  # the same sentence, from another namespace
    with _open(filled, cipher) as store, pytest.raises(TamperError, match="'corpus'"):
        store.get(CORPUS, "bees.md:3")


def test_plaintext_or_an_altered_byte_is_refused_naming_the_row(
    filled: Target, cipher: BlobCipher
) -> None:
    update = "UPDATE items SET text = ? WHERE namespace = 'corpus' AND key = ?"
    for key, text in _stored(filled, "corpus", "text"):
        filled.run(update, (text[:-1] + bytes([text[-1] ^ 1]), key))
    with _open(filled, cipher) as store, pytest.raises(TamperError, match=r"'bees\.md:3'"):
        store.get(CORPUS, "bees.md:3")
    for key, _ in _stored(filled, "corpus", "text"):
        filled.run(update, (BEES.encode(), key))
    with _open(filled, cipher) as store, pytest.raises(PlaintextBlobError, match="'corpus'"):
        store.search(CORPUS, "bees", k=2)


def test_the_values_of_another_store_do_not_open(filled: Target, cipher: BlobCipher) -> None:
    codec = cipher.bind(row_identity("memory", "other.sqlite"))
    with (
        SemanticStore(filled.location, embedder=CountingEmbedder(), codec=codec) as store,
        pytest.raises(TamperError),
    ):
        store.get(CORPUS, "bees.md:3")


# -- nothing on disk confirms a guess --------------------------------------------------------


def test_keys_sources_and_hashes_reveal_no_content(target: Target, cipher: BlobCipher) -> None:
    file_hash = hashlib.sha256(FILE).hexdigest()
    with _open(target, cipher) as store:
        store.put_many(CORPUS, [StoreItem(key="docs/bees.md#0", text=BEES)])
        record = SourceRecord(
            source="docs/bees.md", content_hash=file_hash, keys=("docs/bees.md#0",)
        )
        store.put_sources(CORPUS, [record])
        memory = ResearchMemory(store, scope=("apollo",))
        [stored] = memory.store_evidence([EvidenceRecord(text=BEES, source="docs/bees.md:3")])
        assert stored == evidence_id("docs/bees.md:3", BEES)  # ids stay as they were
        assert memory.evidence([stored])[0].text == BEES
        assert store.sources(CORPUS) == {"docs/bees.md": record}
        assert store.keys(CORPUS) == ["docs/bees.md#0"]
    on_disk = target.dump()
    for leak in (hashlib.sha256(BEES.encode()).hexdigest(), file_hash, stored, "bees.md", "Bees"):
        assert leak not in on_disk


def test_unchanged_texts_keep_their_vectors_across_opens_and_key_rotation(
    target: Target, cipher: BlobCipher
) -> None:
    embedder = CountingEmbedder()
    items = [StoreItem(key="a", text=BEES), StoreItem(key="b", text=FERRIES)]
    with _open(target, cipher, embedder) as store:
        store.put_many(CORPUS, items)
        store.put_many(CORPUS, items)
        assert embedder.embedded == 2
    rotated = BlobCipher(rotate(cipher.keyring))
    with _open(target, rotated, embedder) as store:
        store.put_many(CORPUS, [*items, StoreItem(key="c", text="Owls hunt at night.")])
        assert embedder.embedded == 3
        store.put(CORPUS, StoreItem(key="a", text=BEES, context="Bees"))
        assert embedder.embedded == 4  # what is embedded changed


def test_reencryption_reseals_every_value_and_the_old_key_can_go(
    target: Target, cipher: BlobCipher
) -> None:
    record = SourceRecord(source="bees.md", content_hash="abc", keys=("a",))
    with _open(target, cipher) as store:
        store.put_many(CORPUS, [StoreItem(key="a", text=BEES), StoreItem(key="b", text=FERRIES)])
        store.put_sources(CORPUS, [record])
    rotated = BlobCipher(rotate(cipher.keyring))
    new = rotated.primary_key_id
    with _open(target, rotated) as store:
        blobs = list(store.sealed_values())
        assert {key_id_of(blob) for blob in blobs} == {"k1"}
        # text, metadata and provenance of two items, the digest key's two, the record's two
        assert store.reseal(stale=lambda blob: key_id_of(blob) != new) == len(blobs) == 10
        assert {key_id_of(blob) for blob in store.sealed_values()} == {new}
        assert store.reseal(stale=lambda blob: key_id_of(blob) != new) == 0
    with _open(target, BlobCipher(retire(rotated.keyring, "k1"))) as store:
        item = store.get(CORPUS, "a")
        assert item is not None and item.text == BEES
        assert store.sources(CORPUS) == {"bees.md": record}


# -- stores written by schema 1 --------------------------------------------------------------


def _schema_1_store(target: Target, cipher: BlobCipher, embedder: CountingEmbedder) -> None:
    """What store schema 1 wrote: values bound to the store only, keys and hashes as given."""
    with SemanticStore(target.location, embedder=embedder):
        pass  # the tables
    target.run("UPDATE meta SET value = '1' WHERE name = 'schema_version'")
    legacy = cipher.bind(row_identity("memory", STORE_NAME))
    for key, text in (("bees.md:3", BEES), ("ferries.md:3", FERRIES)):
        target.run(
            "INSERT INTO items (namespace, key, text, metadata, vector, content_hash, "
            "schema_version, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, 0.0)",
            (
                "corpus",
                key,
                legacy.encode(text.encode()),
                legacy.encode(json.dumps({"path": key[:-2]}).encode()),
                embedder.embed([text])[0].tobytes(),
                hashlib.sha256(text.encode()).hexdigest(),
            ),
        )
    target.run(
        "INSERT INTO sources VALUES ('corpus', 'bees.md', ?, ?, 0.0)",
        (hashlib.sha256(FILE).hexdigest(), json.dumps(["bees.md:3"])),
    )


def test_a_store_of_schema_1_is_upgraded_when_opened_with_its_cipher(
    target: Target, cipher: BlobCipher
) -> None:
    embedder = CountingEmbedder()
    _schema_1_store(target, cipher, embedder)
    embedder.embedded = 0
    with _open(target, cipher, embedder) as store:
        item = store.get(CORPUS, "bees.md:3")
        assert item == StoreItem(key="bees.md:3", text=BEES, metadata={"path": "bees.md"})
        assert store.keys(CORPUS) == ["bees.md:3", "ferries.md:3"]
        assert store.sources(CORPUS)["bees.md"].content_hash == hashlib.sha256(FILE).hexdigest()
        store.put(CORPUS, StoreItem(key="bees.md:3", text=BEES, metadata={"path": "bees.md"}))
        assert embedder.embedded == 0  # its content hash was carried over, keyed
        assert store.search(CORPUS, FERRIES, k=1)[0].key == "ferries.md:3"
    version = target.rows("SELECT value FROM meta WHERE name = 'schema_version'")
    assert version == [(str(SCHEMA_VERSION),)]
    on_disk = target.dump()
    assert "bees.md" not in on_disk and hashlib.sha256(BEES.encode()).hexdigest() not in on_disk
    (first, _), (_, second_text) = _stored(target, "corpus", "text")
    target.run("UPDATE items SET text = ? WHERE key = ?", (second_text, first))
    with _open(target, cipher) as store, pytest.raises(TamperError):
        store.search(CORPUS, BEES, k=2)


def test_a_store_of_schema_1_with_an_altered_value_is_not_opened(
    target: Target, cipher: BlobCipher
) -> None:
    _schema_1_store(target, cipher, CountingEmbedder())
    [(key, text)] = target.rows("SELECT key, text FROM items WHERE key = 'bees.md:3'")
    target.run("UPDATE items SET text = ? WHERE key = ?", (text[:-1] + bytes([text[-1] ^ 1]), key))
    with pytest.raises(TamperError, match=r"'bees\.md:3' in namespace 'corpus'"):
        _open(target, cipher)
    assert target.rows("SELECT value FROM meta WHERE name = 'schema_version'") == [("1",)]
