"""Vectors bound to their rows in the home's sealed semantic store, on SQLite and PostgreSQL: a
vector swapped with another row's (the content hash unchanged, so nothing is embedded again) is
refused when it ranks a hit or would be kept on a rewrite, naming the row, never answered with;
an untampered store searches as before, and rows written before vectors were bound still read.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from framework.database.home import DataHome
from framework.errors import TamperError
from framework.memory import (
    Corpus,
    LangGraphStore,
    MiniLMEmbedder,
    SemanticStore,
    StoreItem,
    ingest_corpus,
)
from framework.memory._values import StoreValues
from framework.persistence.cipher import row_identity
from framework.runs.stores import home_cipher
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.test_store_integrity import CountingEmbedder

RETRIES = "How many times do workers retry a timeout?"
CHECKPOINTS = "How are checkpoints encrypted at rest?"
NOTES = ("notes",)


NOTE_ITEMS = [
    StoreItem(key="bees", text="Bees make honey"),
    StoreItem(key="ferry", text="Ferries cross the bay"),
]


class Home:
    """A data home on SQLite or PostgreSQL, with raw access to its store's rows."""

    def __init__(self, root: Path, database: str | None) -> None:
        self.home = DataHome(root=root, database=database).create()
        self.cipher = home_cipher(self.home)

    def open(self, embedder: Any) -> SemanticStore:
        """The home's sealed store (as ``home_store`` opens it) on ``embedder``."""
        codec = self.cipher.bind(row_identity("memory", self.home.memory.name))
        return SemanticStore(self.home.memory_target, embedder=embedder, codec=codec)

    def vectors(self, namespace: str) -> dict[str, bytes]:
        """The stored key and vector of every row of ``namespace``."""
        sql = "SELECT key, vector FROM items WHERE namespace = ?"
        return {key: bytes(vector) for key, vector in self._rows(sql, (namespace,))}

    def swap(self, namespace: str, first: str, second: str) -> None:
        """Swap the vector columns of two rows, and nothing else."""
        vectors = self.vectors(namespace)
        update = "UPDATE items SET vector = ? WHERE namespace = ? AND key = ?"
        self._rows(update, (vectors[second], namespace, first))
        self._rows(update, (vectors[first], namespace, second))

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        if self.home.database is not None:
            options = "-c search_path=cadre_memory"
            with psycopg.connect(self.home.database, autocommit=True, options=options) as conn:
                cursor = conn.execute(sql.replace("?", "%s"), params)
                return cursor.fetchall() if cursor.description else []
        conn = sqlite3.connect(self.home.memory)
        try:
            found = conn.execute(sql, params).fetchall()
            conn.commit()
            return found
        finally:
            conn.close()


@pytest.fixture
def home(tmp_path: Path, database: str | None) -> Home:
    return Home(tmp_path / "home", database)


@pytest.fixture
def corpus_home(home: Home, tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Home]:
    """The home, :data:`SMALL_CORPUS` ingested into its store."""
    root = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    with home.open(embedder) as store:
        ingest_corpus(root, store)
    yield home


def _best_row(home: Home, embedder: MiniLMEmbedder, question: str) -> str:
    """The stored key of the corpus row whose stored vector is closest to ``question``."""
    rows = home.vectors("corpus")
    query = embedder.embed([question])[0]
    return max(rows, key=lambda key: float(np.frombuffer(rows[key], np.float32) @ query))


def test_vectors_swapped_between_rows_are_refused_naming_the_row(
    corpus_home: Home, embedder: MiniLMEmbedder
) -> None:
    with corpus_home.open(embedder) as store:
        [checkpoints] = store.search(("corpus",), CHECKPOINTS, k=1)
        [retries] = store.search(("corpus",), RETRIES, k=1)
    assert "checkpointed" in checkpoints.text and "retry" in retries.text
    corpus_home.swap(
        "corpus",
        _best_row(corpus_home, embedder, RETRIES),
        _best_row(corpus_home, embedder, CHECKPOINTS),
    )
    named = rf"vector of item {re.escape(repr(checkpoints.key))} in namespace 'corpus'"
    with corpus_home.open(embedder) as store:
        with pytest.raises(TamperError, match=named):
            store.search(("corpus",), RETRIES, k=1)  # the checkpoints row ranks on its vector
        with pytest.raises(TamperError, match="swapped with another row"):
            Corpus(store).search(RETRIES, k=3)
        with pytest.raises(TamperError, match=named):
            LangGraphStore(store).search(("corpus",), query=RETRIES, limit=1)


def test_an_untampered_store_searches_as_before(
    corpus_home: Home, embedder: MiniLMEmbedder
) -> None:
    with corpus_home.open(embedder) as store:
        hits = store.search_many(("corpus",), [RETRIES, CHECKPOINTS], k=3)
        assert [len(found) for found in hits] == [3, 3]
        assert "retry" in hits[0][0].text and "checkpointed" in hits[1][0].text
        assert all(hit.score > 0 for found in hits for hit in found)
        passages = Corpus(store).search(RETRIES, k=1)
        assert passages[0].source.startswith("docs/retries.md")


def test_a_swapped_vector_is_not_kept_when_its_text_is_written_again(home: Home) -> None:
    embedder = CountingEmbedder()
    with home.open(embedder) as store:
        store.put_many(NOTES, NOTE_ITEMS)
    home.swap("notes", *sorted(home.vectors("notes")))
    with home.open(embedder) as store, pytest.raises(TamperError, match="namespace 'notes'"):
        store.put_many(NOTES, NOTE_ITEMS)  # unchanged texts would keep the stored vectors
    assert embedder.embedded == 2


def test_unchanged_texts_keep_their_bound_vectors(home: Home) -> None:
    embedder = CountingEmbedder()
    with home.open(embedder) as store:
        store.put_many(NOTES, NOTE_ITEMS)
    with home.open(embedder) as store:
        store.put_many(NOTES, NOTE_ITEMS)
        assert embedder.embedded == 2
        hits = store.search(NOTES, "Bees make honey", k=2)
        assert [hit.key for hit in hits] == ["bees", "ferry"]


def test_rows_written_before_vectors_were_bound_read_and_are_bound_when_written(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = CountingEmbedder()
    unbound = StoreValues.metadata_blob
    with monkeypatch.context() as patch:  # as cadre wrote them before store schema 4
        patch.setattr(
            StoreValues,
            "metadata_blob",
            lambda self, ns, stored, item, vector=None: unbound(self, ns, stored, item),
        )
        with home.open(embedder) as store:
            store.put_many(NOTES, NOTE_ITEMS)
    with home.open(embedder) as store:
        assert store.search(NOTES, "Bees make honey", k=1)[0].key == "bees"
        before = embedder.embedded
        store.put_many(NOTES, NOTE_ITEMS)  # an old row's vector is embedded again, then bound
        assert embedder.embedded == before + 2
    home.swap("notes", *sorted(home.vectors("notes")))
    with home.open(embedder) as store, pytest.raises(TamperError, match="vector of item"):
        store.search(NOTES, "Bees make honey", k=1)
