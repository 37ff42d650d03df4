"""Semantic memory: embeddings, the SQLite semantic store, chunking and corpus search.

The real all-MiniLM-L6-v2 model is used throughout, loaded once for the module.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from framework.errors import ConfigError, CorpusError, NotTextError
from framework.memory import (
    Chunk,
    Corpus,
    MiniLMEmbedder,
    SemanticStore,
    StoreItem,
    chunk_document,
    corpus_files,
    default_embedder,
    ingest_corpus,
    read_text,
    text_of,
)
from framework.memory.embeddings import MINILM_DIM, MINILM_NAME

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

CATS = (
    "Domestic cats are small carnivorous mammals. They purr when content, groom their fur "
    "with rough tongues and sleep for most of the day."
)
ASTRONOMY = (
    "Astronomers use telescopes to observe distant galaxies, nebulae and the light of stars "
    "that exploded billions of years ago."
)
COOKING = (
    "To bake bread, knead flour, water, yeast and salt into a dough, let it rise for an hour, "
    "then put it in a hot oven until the crust is golden."
)


class CountingEmbedder:
    """The real model, counting how many embed calls and texts reach it."""

    name = MINILM_NAME

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.calls: list[int] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls.append(len(texts))
        return self.inner.embed(texts)


class TinyEmbedder:
    """An 8-wide embedder, only to build a store of another width."""

    name = "tiny"
    dim = 8

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.full((len(texts), self.dim), 8**-0.5, dtype=np.float32)


@pytest.fixture(scope="module")
def model() -> MiniLMEmbedder:
    embedder = default_embedder()
    embedder.embed(["warm up"])
    return embedder


@pytest.fixture
def counting(model: MiniLMEmbedder) -> CountingEmbedder:
    return CountingEmbedder(model)


@pytest.fixture
def store(tmp_path: Path, counting: CountingEmbedder) -> Iterator[SemanticStore]:
    with SemanticStore(tmp_path / "mem" / "store.sqlite", embedder=counting) as opened:
        yield opened


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def assert_located(document: str, chunk: Chunk) -> None:
    """The chunk's text stands in the document exactly at its start and end lines."""
    lines = document.replace("\r\n", "\n").split("\n")
    span = "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
    text_lines = chunk.text.split("\n")
    assert chunk.text in span
    assert chunk.end_line - chunk.start_line == len(text_lines) - 1
    assert text_lines[0] in lines[chunk.start_line - 1]
    assert text_lines[-1] in lines[chunk.end_line - 1]


# --- embeddings ----------------------------------------------------------------------------


def test_embeddings_are_normalised_float32_rows(model: MiniLMEmbedder) -> None:
    vectors = model.embed(["a cat sleeps", "a galaxy far away", "bread in the oven"])
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, MINILM_DIM)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_input_does_not_load_the_model() -> None:
    fresh = MiniLMEmbedder()
    assert fresh.embed([]).shape == (0, MINILM_DIM)
    assert not fresh.loaded


def test_default_embedder_is_one_instance(model: MiniLMEmbedder) -> None:
    assert default_embedder() is model
    assert model.loaded


def test_embedder_rejects_a_bare_string_and_bad_batch_size(model: MiniLMEmbedder) -> None:
    with pytest.raises(ConfigError, match="sequence of strings"):
        model.embed("one text")
    with pytest.raises(ConfigError, match="batch_size"):
        MiniLMEmbedder(batch_size=0)


# --- chunking ------------------------------------------------------------------------------

GUIDE = """\
Preface line one.
Preface line two.

# Getting started

Install the package.

Run the command.
It prints a greeting.

## Configuration ##

Settings live in a file.

Setext title
------------

Under the setext title.
"""


def test_chunk_line_numbers_and_headings_are_exact() -> None:
    chunks = chunk_document("docs/guide.md", GUIDE)
    assert [(c.start_line, c.end_line, c.heading, c.text) for c in chunks] == [
        (1, 2, "", "Preface line one.\nPreface line two."),
        (
            6,
            9,
            "Getting started",
            "Install the package.\n\nRun the command.\nIt prints a greeting.",
        ),
        (13, 13, "Configuration", "Settings live in a file."),
        (18, 18, "Setext title", "Under the setext title."),
    ]
    assert all(c.path == "docs/guide.md" for c in chunks)


def test_small_max_chars_keeps_paragraphs_apart() -> None:
    chunks = chunk_document("docs/guide.md", GUIDE, max_chars=40)
    started = [(c.start_line, c.end_line, c.heading) for c in chunks]
    assert started == [
        (1, 2, ""),
        (6, 6, "Getting started"),
        (8, 9, "Getting started"),
        (13, 13, "Configuration"),
        (18, 18, "Setext title"),
    ]
    assert chunks[1].text == "Install the package."


def test_restructuredtext_titles() -> None:
    text = "~~~~~\nTitle\n~~~~~\n\nIntro text.\n\nSection\n~~~~~~~\n\nBody here.\n"
    chunks = chunk_document("docs/a.rst", text)
    assert [(c.start_line, c.heading, c.text) for c in chunks] == [
        (5, "Title", "Intro text."),
        (10, "Section", "Body here."),
    ]


def test_an_attribute_list_is_no_part_of_a_title() -> None:
    markdown = "## Android {: #android}\n\nBuilds run.\n\n## Sets {a, b}\n\nMore.\n"
    headings = [c.heading for c in chunk_document("docs/a.md", markdown)]
    assert headings == ["Android", "Sets {a, b}"]


def test_long_paragraph_splits_on_sentences_with_exact_lines() -> None:
    sentences = [f"Sentence {i} talks about item number {i}." for i in range(40)]
    body = "\n".join(" ".join(sentences[i : i + 4]) for i in range(0, 40, 4))
    document = f"# Long\n\n{body}\n"
    chunks = chunk_document("x.md", document, max_chars=200)
    assert len(chunks) > 5
    for chunk in chunks:
        assert chunk.text
        assert len(chunk.text) <= 200
        assert chunk.text.startswith("Sentence ")
        assert chunk.text.endswith(".")
        assert chunk.heading == "Long"
        assert_located(document, chunk)
    assert chunks[0].start_line == 3
    assert chunks[-1].end_line == 12
    assert " ".join(c.text.replace("\n", " ") for c in chunks) == " ".join(sentences)


def test_a_long_list_is_cut_between_its_items_each_kept_whole() -> None:
    items = [
        f"- Item {i} changes the parser. It no longer needs a trailing line.\n"
        f"  Clients {i} omit it, so requests from them failed."
        for i in range(8)
    ]
    document = "# Changes\n\n" + "\n".join(items) + "\n"
    chunks = chunk_document("x.rst", document, max_chars=300)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.text.startswith("- Item ")
        assert chunk.text.endswith("failed.")
        assert_located(document, chunk)


def test_an_unbreakable_run_is_cut_hard_and_never_empty() -> None:
    document = "word " * 10 + "x" * 130 + "\n"
    chunks = chunk_document("x.txt", document, max_chars=50)
    assert all(0 < len(c.text) <= 50 for c in chunks)
    assert "".join(c.text for c in chunks).replace(" ", "") == ("word" * 10 + "x" * 130)


def test_fences_front_matter_crlf_and_blank_documents() -> None:
    document = (
        "---\ntitle: Doc\n---\n# Code\n\n```python\n# not a heading\n\nx = 1\n```\n\nAfter.\n"
    )
    chunks = chunk_document("c.md", document)
    assert [(c.start_line, c.end_line, c.heading) for c in chunks] == [(6, 12, "Code")]
    assert "# not a heading" in chunks[0].text
    crlf = chunk_document("w.txt", "first\r\n\r\nsecond para\r\n")
    assert [(c.start_line, c.text) for c in crlf] == [(1, "first\n\nsecond para")]
    assert chunk_document("e.md", "") == []
    assert chunk_document("e.md", "\n\n   \n# Only a heading\n") == []


def test_a_colon_fence_is_a_block_of_prose_not_a_heading_underline() -> None:
    document = (
        "# Pumps\n\nPumps run at night.\n\n"
        ":::{versionchanged} 2.1 Pumps may run by day.\n:::\n\n"
        ":::{note}\nQuiet pumps suit night shifts.\n:::\n"
    )
    chunks = chunk_document("p.md", document)
    assert {c.heading for c in chunks} == {"Pumps"}
    assert [(c.start_line, c.end_line, c.code) for c in chunks] == [(3, 10, False)]


def test_a_front_matter_title_version_and_date_hold_the_documents_headings() -> None:
    document = (
        "---\ntitle: 'Quay notes'\nversion: 1.10\ntags: [a]\n---\nOpening.\n\n# Berths\n\nText.\n"
    )
    chunks = chunk_document("q.md", document)
    assert [(c.outline, c.heading) for c in chunks] == [
        ("", "Quay notes, version 1.10"),
        ("Quay notes, version 1.10", "Berths"),
    ]
    assert chunk_document("p.md", "---\ntags: [a]\n---\n# Berths\n\nText.\n")[0].outline == ""
    dated = chunk_document(
        "d.md", "---\nupdated: 2021-03-04\ntitle: Quay\n---\n# Berths\n\nText.\n"
    )
    assert dated[0].outline == "Quay (2021-03-04)"


def test_chunk_ids_are_stable_and_distinct() -> None:
    first = chunk_document("docs/guide.md", GUIDE, max_chars=25)
    again = chunk_document("docs/guide.md", GUIDE, max_chars=25)
    moved = chunk_document("docs/other.md", GUIDE, max_chars=25)
    assert [c.id for c in first] == [c.id for c in again]
    assert len({c.id for c in first} | {c.id for c in moved}) == 2 * len(first)
    with pytest.raises(ConfigError, match="max_chars"):
        chunk_document("x.md", "text", max_chars=0)


# --- store ---------------------------------------------------------------------------------


def test_put_get_keys_count_delete(store: SemanticStore) -> None:
    items = [
        StoreItem(key="cats", text=CATS, metadata={"topic": "animals"}),
        StoreItem(key="stars", text=ASTRONOMY, metadata={"topic": "science"}),
        StoreItem(key="bread", text=COOKING, metadata={"topic": "food"}),
    ]
    assert store.put_many(("facts",), items) == 3
    assert store.count(("facts",)) == 3
    assert store.keys(("facts",)) == ["bread", "cats", "stars"]
    assert store.get(("facts",), "cats") == items[0]
    assert store.get(("facts",), "dogs") is None
    assert store.get(("other",), "cats") is None
    assert store.delete_many(("facts",), ["cats", "nope"]) == 1
    assert store.keys(("facts",)) == ["bread", "stars"]
    assert "cats" not in {hit.key for hit in store.search(("facts",), "kitten", k=3)}


def test_search_ranks_paraphrase_first(store: SemanticStore, counting: CountingEmbedder) -> None:
    store.put_many(
        ("kb",),
        [
            StoreItem(key="cats", text=CATS),
            StoreItem(key="stars", text=ASTRONOMY),
            StoreItem(key="bread", text=COOKING),
        ],
    )
    assert counting.calls == [3]
    hits = store.search(("kb",), "Which pets like to nap and lick their coat?", k=3, min_score=-1)
    assert hits[0].key == "cats"
    assert hits[0].text == CATS
    assert hits[0].score > hits[1].score >= hits[2].score
    assert 0.0 < hits[0].score <= 1.0
    assert len(store.search(("kb",), "pets", k=1)) == 1
    assert store.search(("kb",), "pets", min_score=0.99) == []
    batch = store.search_many(("kb",), ["observing the night sky", "making a loaf"], k=1)
    assert [[hit.key for hit in hits] for hits in batch] == [["stars"], ["bread"]]
    assert counting.calls == [3, 1, 1, 1, 2]


def test_metadata_filter_is_exact(store: SemanticStore) -> None:
    store.put_many(
        ("kb",),
        [
            StoreItem(key="cats", text=CATS, metadata={"lang": "en", "n": 1}),
            StoreItem(key="stars", text=ASTRONOMY, metadata={"lang": "fr"}),
        ],
    )
    hits = store.search(("kb",), "cats sleeping", k=5, where={"lang": "fr"})
    assert [hit.key for hit in hits] == ["stars"]
    assert store.search(("kb",), "cats", where={"lang": "en", "n": 2}) == []
    assert store.search(("kb",), "cats", where={"missing": None}) == []


def test_unchanged_text_keeps_its_vector(store: SemanticStore, counting: CountingEmbedder) -> None:
    store.put_many(("kb",), [StoreItem(key="a", text=CATS), StoreItem(key="b", text=COOKING)])
    store.put_many(
        ("kb",),
        [
            StoreItem(key="a", text=CATS, metadata={"seen": True}),
            StoreItem(key="b", text=ASTRONOMY),
        ],
    )
    assert counting.calls == [2, 1]
    assert store.get(("kb",), "a") == StoreItem(key="a", text=CATS, metadata={"seen": True})
    assert store.search(("kb",), "telescopes", k=1)[0].key == "b"


def test_cache_follows_writes(store: SemanticStore) -> None:
    assert store.search(("kb",), "anything") == []
    store.put(("kb",), StoreItem(key="cats", text=CATS))
    assert [h.key for h in store.search(("kb",), "felines")] == ["cats"]
    store.put(("kb",), StoreItem(key="bread", text=COOKING))
    store.put(("kb",), StoreItem(key="cats", text=ASTRONOMY))
    assert store.search(("kb",), "felines purring", k=2)[0].key == "bread"
    assert store.search(("kb",), "galaxies", k=1)[0].key == "cats"
    store.delete_many(("kb",), ["cats"])
    assert [h.key for h in store.search(("kb",), "galaxies", k=5, min_score=-1)] == ["bread"]


def test_persistence_and_other_connections(tmp_path: Path, model: MiniLMEmbedder) -> None:
    path = tmp_path / "s.sqlite"
    with SemanticStore(path, embedder=model) as first:
        first.put(("kb", "user-1"), StoreItem(key="cats", text=CATS, metadata={"x": [1, 2]}))
        assert first.search(("kb", "user-1"), "kittens")[0].key == "cats"
        with SemanticStore(path, embedder=model) as second:
            second.put(("kb", "user-1"), StoreItem(key="bread", text=COOKING))
        assert first.search(("kb", "user-1"), "baking a loaf", k=1)[0].key == "bread"
    with SemanticStore(path) as reopened:
        assert reopened.count(("kb", "user-1")) == 2
        assert reopened.get(("kb", "user-1"), "cats") == StoreItem(
            key="cats", text=CATS, metadata={"x": [1, 2]}
        )
        assert reopened.search(("kb", "user-1"), "kittens", k=1)[0].key == "cats"
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_codec_is_applied_to_text_and_metadata(tmp_path: Path, model: MiniLMEmbedder) -> None:
    class Reverse:
        def encode(self, data: bytes) -> bytes:
            return data[::-1]

        def decode(self, data: bytes) -> bytes:
            return data[::-1]

    path = tmp_path / "coded.sqlite"
    with SemanticStore(path, embedder=model, codec=Reverse()) as coded:
        coded.put(("kb",), StoreItem(key="cats", text=CATS, metadata={"secret": "tabby"}))
        assert coded.get(("kb",), "cats") == StoreItem(
            key="cats", text=CATS, metadata={"secret": "tabby"}
        )
        assert coded.search(("kb",), "felines")[0].metadata == {"secret": "tabby"}
    text, metadata = sqlite3.connect(path).execute("SELECT text, metadata FROM items").fetchone()
    assert text == CATS.encode()[::-1]
    assert b"tabby" not in metadata
    assert b"ybbat" in metadata


def test_namespace_and_argument_validation(store: SemanticStore) -> None:
    for bad in [(), ("a", ""), ("a/b",), "kb", ("kb", 1)]:
        with pytest.raises(ConfigError, match="namespace"):
            store.count(bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="non-empty string key"):
        store.put(("kb",), StoreItem(key="", text="x"))
    with pytest.raises(ConfigError, match="JSON"):
        store.put(("kb",), StoreItem(key="k", text="x", metadata={"when": object()}))
    with pytest.raises(ConfigError, match="k must be"):
        store.search(("kb",), "x", k=0)
    with pytest.raises(ConfigError, match="sequence of queries"):
        store.search_many(("kb",), "x")
    assert store.count(("kb",)) == 0


def test_dim_and_model_mismatch(tmp_path: Path, model: MiniLMEmbedder) -> None:
    path = tmp_path / "tiny.sqlite"
    SemanticStore(path, embedder=TinyEmbedder()).close()
    with pytest.raises(ConfigError, match=r"8-dimensional.*384-dimensional"):
        SemanticStore(path, embedder=model)
    other = tmp_path / "minilm.sqlite"
    SemanticStore(other, embedder=model).close()

    class Renamed(CountingEmbedder):
        name = "another-model"

    with pytest.raises(ConfigError, match="another-model"):
        SemanticStore(other, embedder=Renamed(model))
    not_sqlite = tmp_path / "notes.sqlite"
    not_sqlite.write_text("not a database " * 100)
    with pytest.raises(ConfigError, match="cannot open"):
        SemanticStore(not_sqlite, embedder=model)


def test_threads_share_one_store(store: SemanticStore) -> None:
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(5):
                store.put(("kb",), StoreItem(key=f"{worker}-{i}", text=f"{CATS} {worker} {i}"))
                assert store.search(("kb",), "cats", k=3)
        except BaseException as exc:  # collected and re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.count(("kb",)) == 30
    assert len(store.search(("kb",), "cats", k=50)) == 30


def test_memory_store_path(model: MiniLMEmbedder) -> None:
    with SemanticStore(":memory:", embedder=model) as memory:
        memory.put(("kb",), StoreItem(key="cats", text=CATS))
        assert memory.count(("kb",)) == 1


# --- corpus --------------------------------------------------------------------------------


@pytest.fixture
def corpus_root(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    write(root, "animals/cats.md", f"# Cats\n\n{CATS}\n")
    write(root, "space.txt", f"Astronomy\n=========\n\n{ASTRONOMY}\n")
    write(root, "kitchen/bread.rst", f"Baking\n------\n\n{COOKING}\n")
    write(root, ".hidden/secret.md", "# Secret\n\nNot indexed.\n")
    write(root, "notes.py", "print('not a corpus file')\n")
    return root


def test_corpus_files_are_sorted_and_skip_hidden(corpus_root: Path) -> None:
    found = [p.relative_to(corpus_root).as_posix() for p in corpus_files(corpus_root)]
    assert found == ["animals/cats.md", "kitchen/bread.rst", "space.txt"]


def test_ingest_and_search(
    corpus_root: Path, store: SemanticStore, counting: CountingEmbedder
) -> None:
    report = ingest_corpus(corpus_root, store)
    assert (report.files_seen, report.files_indexed, report.files_unchanged) == (3, 3, 0)
    assert (report.files_removed, report.chunks_written) == (0, 3)
    assert counting.calls == [3]
    corpus = Corpus(store)
    assert len(corpus) == 3
    passages = corpus.search("How should I make a loaf of homemade bread?", k=3)
    best = passages[0]
    assert (best.source, best.path, best.line, best.heading) == (
        "docs/kitchen/bread.rst:4",
        "docs/kitchen/bread.rst",
        4,
        "Baking",
    )
    assert best.text == COOKING
    assert best.score > passages[1].score
    sky, pets = corpus.search_many(["looking at far-away stars", "furry animals napping"], k=1)
    assert [p.source for p in sky + pets] == ["docs/space.txt:4", "docs/animals/cats.md:3"]


def test_reingest_skips_unchanged_updates_changed_removes_deleted(
    corpus_root: Path, store: SemanticStore, counting: CountingEmbedder
) -> None:
    ingest_corpus(corpus_root, store)
    again = ingest_corpus(corpus_root, store)
    assert (again.files_indexed, again.files_unchanged, again.chunks_written) == (0, 3, 0)
    assert counting.calls == [3]

    write(
        corpus_root, "animals/cats.md", f"# Cats\n\n{CATS}\n\n# Dogs\n\nDogs bark at the mailman.\n"
    )
    (corpus_root / "space.txt").unlink()
    write(corpus_root, "new/tea.md", "Brew green tea at 80 degrees for two minutes.\n")
    report = ingest_corpus(corpus_root, store)
    assert (report.files_seen, report.files_indexed, report.files_unchanged) == (3, 2, 1)
    assert (report.files_removed, report.chunks_written) == (1, 3)
    assert counting.calls == [3, 2]  # the unchanged cat paragraph kept its vector
    corpus = Corpus(store)
    assert len(corpus) == 4
    sources = {p.source for p in corpus.search("anything at all", k=10, min_score=-1.0)}
    assert sources == {
        "docs/animals/cats.md:3",
        "docs/animals/cats.md:7",
        "docs/kitchen/bread.rst:4",
        "docs/new/tea.md:1",
    }
    assert corpus.search("why do dogs bark", k=1)[0].heading == "Dogs"


def test_binary_and_undecodable_files_are_skipped_and_listed(
    corpus_root: Path, store: SemanticStore, counting: CountingEmbedder
) -> None:
    noise = bytes(range(256)) * 40
    (corpus_root / "animals/photo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00" + noise)
    (corpus_root / "latin1.txt").write_bytes("Caf\u00e9 cr\u00e8me au lait.\n".encode("latin-1"))
    (corpus_root / "bell.md").write_bytes(b"# Bell\n\n" + b"\x07\x1b[0m\x7f\x02 " * 40)
    (corpus_root / "bom.md").write_bytes(b"\xef\xbb\xbfTabs\tand form feeds\x0c are text.\n")
    report = ingest_corpus(corpus_root, store)
    assert [(s.path, s.reason) for s in report.skipped] == [
        ("docs/animals/photo.md", "binary: it holds NUL bytes"),
        ("docs/bell.md", "binary: 120 of its 328 characters are control codes"),
        ("docs/latin1.txt", "not UTF-8 text (invalid continuation byte)"),
    ]
    assert (report.files_seen, report.files_indexed, report.files_unchanged) == (7, 4, 0)
    assert (report.files_removed, report.chunks_written) == (0, 4)
    paths = {p.path for p in Corpus(store).search("anything", k=10, min_score=-1.0)}
    assert paths == {
        "docs/animals/cats.md",
        "docs/bom.md",
        "docs/kitchen/bread.rst",
        "docs/space.txt",
    }

    (corpus_root / "space.txt").write_bytes(b"\x00\x01\x02")  # indexed before, binary now
    again = ingest_corpus(corpus_root, store)
    assert [s.path for s in again.skipped] == [
        "docs/animals/photo.md",
        "docs/bell.md",
        "docs/latin1.txt",
        "docs/space.txt",
    ]
    assert (again.files_indexed, again.files_unchanged, again.files_removed) == (0, 3, 1)
    assert len(Corpus(store)) == 3


def test_a_binary_document_is_refused_by_name(tmp_path: Path) -> None:
    binary = tmp_path / "blob.md"
    binary.write_bytes(b"\x00" * 64)
    with pytest.raises(NotTextError, match=r"blob\.md is not a text document \(binary: it holds"):
        read_text(binary)
    assert text_of("\ufeffplain text\n".encode()) == "plain text\n"


def test_roots_with_other_names_share_a_namespace(
    tmp_path: Path, corpus_root: Path, store: SemanticStore
) -> None:
    other = tmp_path / "extra"
    write(other, "tea.md", "Brew green tea at 80 degrees.\n")
    ingest_corpus(corpus_root, store)
    report = ingest_corpus(other, store)
    assert report.files_removed == 0
    assert len(Corpus(store)) == 4
    assert Corpus(store).search("green tea", k=1)[0].source == "extra/tea.md:1"


def test_corpus_errors(tmp_path: Path, store: SemanticStore) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(CorpusError, match="nowhere does not exist"):
        ingest_corpus(missing, store)
    a_file = write(tmp_path, "single.md", "# One\n")
    with pytest.raises(CorpusError, match=r"single\.md is not a folder"):
        ingest_corpus(a_file, store)
    empty = tmp_path / "empty"
    write(empty, "image.png", "not text")
    write(empty, ".git/readme.md", "hidden")
    with pytest.raises(CorpusError, match=r"empty holds no \.markdown, \.md, \.rst, \.txt files"):
        ingest_corpus(empty, store)
    write(tmp_path / "blobs", "a.md", "\x00")
    with pytest.raises(CorpusError, match=r"blobs holds no text files \(blobs/a\.md: binary: it"):
        ingest_corpus(tmp_path / "blobs", store)
    with pytest.raises(ConfigError, match="namespace"):
        Corpus(store, namespace=("",))
