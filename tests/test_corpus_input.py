"""Corpus input: only regular files within a size limit are read (a FIFO, a device, a link
loop never hang or read unbounded), encodings are decoded or the file skipped and listed, big
files are ingested in committed batches with progress and resume after a kill, and a refused
run writes nothing."""

from __future__ import annotations

import codecs
import hashlib
import os
import signal
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.errors import ConfigError, CorpusError, NotTextError
from framework.memory import Corpus, SemanticStore, read_text, text_of
from framework.memory.corpus import (
    IngestProgress,
    SkippedFile,
    checked_corpus_files,
    file_size_limit,
    ingest_corpus,
)
from teams.extraction.documents import read_documents
from tests.conftest import SMALL_CORPUS, one_line_error, write_corpus

runner = CliRunner()
FIFO_SKIP = ("docs/pipe.md", "not a regular file: a FIFO")
ZERO_SKIP = ("docs/zero.md", "not a regular file: a character device")
LOOP_SKIP = ("docs/loop.md", "a symbolic link loop (or a chain of links too long to follow)")


class HashEmbedder:
    """A fast stand-in for the model: a vector from each text's hash; counts what it embeds.

    ``fail_after`` embed calls it raises ``KeyboardInterrupt``, as a killed process stops.
    """

    name = "hash-8"
    dim = 8

    def __init__(self, fail_after: int | None = None) -> None:
        self.fail_after = fail_after
        self.texts: list[str] = []
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt
        self.calls += 1
        self.texts.extend(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], np.uint8) for t in texts]
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim) + 1.0
        unit: npt.NDArray[np.float32] = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        return unit


@contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: SIGALRM interrupts a blocked open or an endless read."""

    def expire(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "docs", SMALL_CORPUS)


def sections(count: int, stem: str = "Section") -> str:
    """A Markdown document of ``count`` headed one-line sections: one chunk each."""
    return "".join(
        f"# {stem} {i}\n\nParagraph number {i} of the {stem} text.\n\n" for i in range(count)
    )


def skipped(report_skipped: tuple[SkippedFile, ...]) -> list[tuple[str, str]]:
    return [(file.path, file.reason) for file in report_skipped]


# -- only regular files -------------------------------------------------------------------


def test_fifo_device_and_link_loop_are_skipped_and_listed_without_hanging(docs: Path) -> None:
    os.mkfifo(docs / "pipe.md")
    (docs / "zero.md").symlink_to("/dev/zero")
    (docs / "loop.md").symlink_to("loop.md")
    (docs / "linked.md").symlink_to("review.md")  # a link to a regular file is followed
    with within(20), SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store)
    assert skipped(report.skipped) == [LOOP_SKIP, FIFO_SKIP, ZERO_SKIP]
    assert (report.files_seen, report.files_indexed, report.chunks_written) == (7, 4, 4)


def test_a_broken_link_is_skipped_and_listed(docs: Path) -> None:
    (docs / "gone.md").symlink_to("nowhere.md")
    with SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store)
    assert skipped(report.skipped) == [("docs/gone.md", "a broken symbolic link (to nowhere.md)")]


def test_a_corpus_of_special_files_only_is_refused_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    os.mkfifo(root / "pipe.md")
    (root / "loop.md").symlink_to("loop.md")
    with within(20), pytest.raises(CorpusError) as refused:
        checked_corpus_files(root)
    message = str(refused.value)
    assert message.startswith(f"corpus folder {root} holds no text files (docs/loop.md: a sym")
    assert "docs/pipe.md: not a regular file: a FIFO" in message and "\n" not in message
    for name in ("a.md", "b.md"):
        (root / name).write_bytes(b"\x00")
    with (
        within(20),
        pytest.raises(CorpusError, match=r"docs/loop\.md: a symbolic [^;]*; 1 more\)$"),
    ):
        checked_corpus_files(root)  # a refusal names three files
    (tmp_path / "round").symlink_to("round")
    with pytest.raises(CorpusError, match=r"round is a symbolic link loop$"):
        checked_corpus_files(tmp_path / "round")


def test_extraction_reads_documents_through_the_same_checks(tmp_path: Path, docs: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    (docs / "loop.md").symlink_to("loop.md")
    with within(20):
        for path, kind in [("pipe.md", "a FIFO"), ("zero.md", "a character device")]:
            with pytest.raises(
                NotTextError, match=f"not a text document .not a regular file: {kind}"
            ):
                read_documents([tmp_path / path])
        with pytest.raises(
            NotTextError, match=r"loop\.md is not a text document \(a symbolic link loop"
        ):
            read_documents([docs])
    (docs / "loop.md").unlink()
    assert [document.path for document in read_documents([docs, docs / "review.md"])] == [
        f"{docs.as_posix()}/checkpoints.md",
        f"{docs.as_posix()}/retries.md",
        f"{docs.as_posix()}/review.md",
    ]


def test_cadre_extract_refuses_a_fifo_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    home = tmp_path / "home"
    with within(60):
        done = runner.invoke(app, ["extract", str(tmp_path / "pipe.md"), "--home", str(home)])
    assert "pipe.md is not a text document (not a regular file: a FIFO)" in one_line_error(done)
    assert not home.exists()


# -- the size limit -------------------------------------------------------------------------


def test_files_over_the_size_limit_are_skipped_with_a_one_line_notice(
    docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (docs / "big.md").write_text("x" * 3000 + "\n", encoding="utf-8")
    monkeypatch.setenv("CADRE_MAX_FILE_MB", "0.002")  # 2 KB
    assert file_size_limit() == 2097
    with SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store)
        assert skipped(report.skipped) == [
            (
                "docs/big.md",
                "too large: 2.9 KB, over the 2.0 KB limit per file "
                "(raise $CADRE_MAX_FILE_MB to index it)",
            )
        ]
        monkeypatch.delenv("CADRE_MAX_FILE_MB")
        assert file_size_limit() == 10 * 1024 * 1024
        assert ingest_corpus(docs, store).skipped == ()
        small = ingest_corpus(docs, store, max_file_bytes=115)
        assert [file.path for file in small.skipped] == ["docs/big.md", "docs/retries.md"]
    with pytest.raises(NotTextError, match=r"big\.md is not a text document \(too large: 2\.9 KB"):
        read_text(docs / "big.md", limit=2048)
    for bad in ("0", "-1", "ten", "inf", "nan"):
        with pytest.raises(ConfigError, match=r"^\$CADRE_MAX_FILE_MB must be a positive number"):
            file_size_limit(bad)


# -- encodings ------------------------------------------------------------------------------

PROSE = (
    "Cr\u00e8me br\u00fbl\u00e9e, \u00e0 la fran\u00e7aise: \u201csmart quotes\u201d "
    "\u2014 and \u20ac5."
)
TEXT = f"# Caf\u00e9\n\n{PROSE}\n"


@pytest.mark.parametrize(
    "encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32"]
)
def test_utf8_and_marked_utf16_and_utf32_are_decoded(encoding: str) -> None:
    data = TEXT.encode(encoding)
    marks = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}
    assert text_of(marks.get(encoding, b"") + data) == TEXT


def test_undecodable_and_nul_holding_files_are_skipped_and_no_nul_reaches_a_chunk(
    docs: Path,
) -> None:
    (docs / "utf16.md").write_bytes(TEXT.encode("utf-16"))
    (docs / "utf16-no-mark.md").write_bytes(TEXT.encode("utf-16-le"))
    (docs / "nul-inside.md").write_bytes("# Nul\n\nA \x00 hidden.\n".encode("utf-16"))
    (docs / "latin1.md").write_bytes(TEXT.encode("latin-1", errors="replace"))
    (docs / "broken.md").write_bytes(TEXT.encode() + b"\xc3(\n")
    (docs / "odd-surrogate.md").write_bytes(codecs.BOM_UTF16_LE + b"A\x00\x00\xd8B\x00")
    with SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store)
        texts = [p.text for p in Corpus(store).search("anything", k=50, min_score=-1.0)]
    assert skipped(report.skipped) == [
        ("docs/broken.md", "not UTF-8 text (invalid continuation byte)"),
        ("docs/latin1.md", "not UTF-8 text (invalid continuation byte)"),
        ("docs/nul-inside.md", "binary: it holds NUL bytes"),
        ("docs/odd-surrogate.md", "not UTF-16 text (illegal UTF-16 surrogate)"),
        (
            "docs/utf16-no-mark.md",
            "binary: it holds NUL bytes (UTF-16 without a byte-order mark? save it as UTF-8, "
            "or as UTF-16 with a mark)",
        ),
    ]
    assert PROSE in texts
    assert not any("\x00" in text or "\ufffd" in text for text in texts)


# -- batches, progress and resuming ---------------------------------------------------------


def test_a_big_file_is_committed_in_batches_with_progress(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text(sections(3, "Alpha"), encoding="utf-8")
    (root / "big.md").write_text(sections(25), encoding="utf-8")
    (root / "blob.md").write_bytes(b"\x00\x01")
    embedder = HashEmbedder()
    events: list[IngestProgress] = []
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:

        def seen(progress: IngestProgress) -> None:
            assert store.count(("corpus",)) == len(embedder.texts)  # committed before told
            events.append(progress)

        report = ingest_corpus(root, store, batch=10, on_progress=seen)
    assert (len(embedder.texts), embedder.calls) == (28, 3)
    assert [(e.path, e.chunks_done, e.chunks_total, e.files_done) for e in events] == [
        ("docs/big.md", 7, 25, 1),
        ("docs/big.md", 17, 25, 1),
        ("docs/big.md", 25, 25, 3),
    ]
    assert {e.files_total for e in events} == {3}
    assert (report.files_indexed, report.chunks_written, report.files_resumed) == (2, 28, 0)


def test_a_killed_ingest_resumes_without_embedding_committed_chunks_again(
    tmp_path: Path,
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "big.md").write_text(sections(45), encoding="utf-8")
    (root / "small.md").write_text(sections(2, "Small"), encoding="utf-8")
    path = tmp_path / "memory.sqlite"
    with SemanticStore(path, embedder=HashEmbedder(fail_after=3)) as store:
        with pytest.raises(KeyboardInterrupt):
            ingest_corpus(root, store, batch=10)
        assert store.count(("corpus",)) == 30
    again = HashEmbedder()
    with SemanticStore(path, embedder=again) as store:
        report = ingest_corpus(root, store, batch=10)
        assert len(again.texts) == 47 - 30  # only what was not committed
        assert (report.files_indexed, report.files_resumed) == (2, 1)
        assert ingest_corpus(root, store, batch=10).files_unchanged == 2
        resumed = store.keys(("corpus",))
    with SemanticStore(":memory:", embedder=HashEmbedder()) as clean:
        ingest_corpus(root, clean, batch=10)
        assert resumed == clean.keys(("corpus",))
        assert len(resumed) == 47


def test_what_a_killed_ingest_left_of_a_changed_or_deleted_file_is_removed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "big.md").write_text(sections(30), encoding="utf-8")
    (root / "gone.md").write_text(sections(30, "Gone"), encoding="utf-8")
    path = tmp_path / "memory.sqlite"
    with (
        SemanticStore(path, embedder=HashEmbedder(fail_after=2)) as store,
        pytest.raises(KeyboardInterrupt),
    ):
        ingest_corpus(root, store, batch=10)
    (root / "big.md").write_text(sections(5, "Other"), encoding="utf-8")
    with SemanticStore(path, embedder=HashEmbedder(fail_after=2)) as store:
        with pytest.raises(KeyboardInterrupt):
            ingest_corpus(root, store, batch=10)  # big.md done, half of gone.md committed
        assert store.count(("corpus",)) == 5 + 15  # the old big.md's 20 chunks went with it
    (root / "gone.md").unlink()
    with SemanticStore(path, embedder=HashEmbedder()) as store:
        report = ingest_corpus(root, store, batch=10)
        assert (report.files_unchanged, report.files_removed) == (1, 1)
        paths = {p.path for p in Corpus(store).search("text", k=100, min_score=-1.0)}
        assert paths == {"docs/big.md"}
        assert store.count(("corpus",)) == 5


# -- a refused run writes nothing -----------------------------------------------------------


@pytest.mark.parametrize("corpus", ["missing", "loop", "specials", "binary"])
def test_a_refused_run_writes_nothing(corpus: str, tmp_path: Path) -> None:
    root = tmp_path / "docs"
    if corpus == "loop":
        root.mkdir()
        (root / "loop.md").symlink_to("loop.md")
    elif corpus == "specials":
        root.mkdir()
        os.mkfifo(root / "pipe.md")
        (root / "zero.md").symlink_to("/dev/zero")
    elif corpus == "binary":
        root.mkdir()
        (root / "blob.md").write_bytes(bytes(range(256)))
    home = tmp_path / "home"
    with within(60):
        done = runner.invoke(app, ["run", "q", "--corpus", str(root), "--home", str(home)])
    line = one_line_error(done)
    assert str(root) in line
    assert not home.exists()


def test_cadre_run_prints_progress_and_skip_notices(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (docs / "big.md").write_text(sections(300), encoding="utf-8")
    (docs / "huge.md").write_text("word " * 10000, encoding="utf-8")
    os.mkfifo(docs / "pipe.md")
    monkeypatch.setenv("CADRE_MAX_FILE_MB", "0.03")
    home = ["--home", str(tmp_path / "home"), "--no-trace"]
    with within(300):
        done = runner.invoke(app, ["run", "q", "--corpus", str(docs), "--team", "research", *home])
    assert done.exit_code == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[:3] == [
        "indexing docs/big.md: 256/300 chunks, 0/6 files",
        "indexing docs/review.md: 1/1 chunks, 6/6 files",
        "corpus: 6 files (4 indexed, 0 unchanged), 303 new chunks",
    ]
    assert lines[3:5] == [
        "skipped docs/huge.md: too large: 48.8 KB, over the 30.7 KB limit per file (raise "
        "$CADRE_MAX_FILE_MB to index it)",
        "skipped docs/pipe.md: not a regular file: a FIFO",
    ]
    again = runner.invoke(app, ["run", "q", "--corpus", str(docs), "--team", "research", *home])
    assert again.stderr.splitlines()[0] == "corpus: 6 files (0 indexed, 4 unchanged), 0 new chunks"
