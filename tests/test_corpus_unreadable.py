"""Unreadable corpus files: a file that cannot be read (permission denied) or that goes away
(deleted, or replaced by a folder or a FIFO) between the listing and the read is skipped and
listed with why, and the ingest goes on; a folder that cannot be listed is skipped and listed
too; ``cadre extract`` refuses such a file in one line naming it.

Permissions are tested for real where chmod denies reading (not as root), and the same code
paths are tested either way by raising the OSError where the file or folder is opened.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from typer.testing import CliRunner

from framework.cli.app import app
from framework.errors import CorpusError
from framework.memory import Corpus, SemanticStore
from framework.memory.corpus import (
    IngestProgress,
    SkippedFile,
    checked_corpus_files,
    ingest_corpus,
)
from teams.extraction.documents import read_documents
from tests.conftest import SMALL_CORPUS, one_line_error, write_corpus

runner = CliRunner()
DENIED = "permission denied"
ROOT_READS_ALL = "running as root (euid 0): chmod 000 does not deny reading"


class HashEmbedder:
    """A fast stand-in for the model: a vector from each text's hash."""

    name = "hash-8"
    dim = 8

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], np.uint8) for t in texts]
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim) + 1.0
        unit: npt.NDArray[np.float32] = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        return unit


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "docs", SMALL_CORPUS)


@pytest.fixture
def lock() -> Iterator[Callable[[Path], None]]:
    """``lock(path)``: chmod 000 (undone at teardown); skips the test where that does not deny
    reading (as root, which reads any file)."""
    locked: list[tuple[Path, int]] = []

    def chmod_000(path: Path) -> None:
        locked.append((path, stat.S_IMODE(path.stat().st_mode)))
        path.chmod(0)
        if _readable(path):
            pytest.skip(ROOT_READS_ALL if os.geteuid() == 0 else "chmod 000 does not deny reading")

    yield chmod_000
    for path, mode in reversed(locked):
        path.chmod(mode)


def _readable(path: Path) -> bool:
    """Whether ``path`` (a file or a folder) can be read now, even after chmod 000."""
    try:
        if path.is_dir():
            os.listdir(path)
        else:
            path.read_bytes()
    except PermissionError:
        return False
    return True


def fail_open(monkeypatch: pytest.MonkeyPatch, code: int, *targets: Path) -> None:
    """Opening any of ``targets`` raises the OSError of ``code`` (EACCES: PermissionError,
    ENOENT: FileNotFoundError), as it would for a locked or just deleted file."""
    real_open = os.open
    names = {os.fspath(target) for target in targets}

    def opening(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) in names:
            raise OSError(code, os.strerror(code), os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", opening)


def open_instead(monkeypatch: pytest.MonkeyPatch, target: Path, other: Path) -> None:
    """Opening ``target`` opens ``other``: the file was replaced after it was checked."""
    real_open = os.open

    def opening(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        path = other if os.fspath(path) == os.fspath(target) else path
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", opening)


def fail_listing(monkeypatch: pytest.MonkeyPatch, folder: Path, code: int = errno.EACCES) -> None:
    """Listing ``folder`` (``os.scandir``, which ``os.walk`` uses) raises the OSError of
    ``code``, as it does for a folder without read permission."""
    real_scandir = os.scandir

    def scanning(path: Any = ".") -> Any:
        if os.fspath(path) == os.fspath(folder):
            raise OSError(code, os.strerror(code), os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scanning)


def fail_stat(monkeypatch: pytest.MonkeyPatch, target: Path, code: int = errno.EACCES) -> None:
    """``os.stat`` of ``target`` raises the OSError of ``code``, as it does for a file in a
    folder without search permission."""
    real_stat = os.stat

    def stating(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(path) == os.fspath(target):
            raise OSError(code, os.strerror(code), os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stating)


def skipped(report_skipped: tuple[SkippedFile, ...]) -> list[tuple[str, str]]:
    return [(file.path, file.reason) for file in report_skipped]


def indexed_paths(store: SemanticStore) -> set[str]:
    return {passage.path for passage in Corpus(store).search("text", k=100, min_score=-1.0)}


# -- a file that cannot be read -------------------------------------------------------------


def test_a_file_without_read_permission_is_skipped_and_listed(
    docs: Path, lock: Callable[[Path], None]
) -> None:
    (docs / "secret.md").write_text("# Secret\n\nA locked paragraph of text.\n", encoding="utf-8")
    lock(docs / "secret.md")
    with SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store)
        assert skipped(report.skipped) == [("docs/secret.md", DENIED)]
        assert (report.files_seen, report.files_indexed, report.chunks_written) == (4, 3, 3)
        assert "docs/secret.md" not in indexed_paths(store)
    assert [path.name for path in checked_corpus_files(docs)] == [
        "checkpoints.md",
        "retries.md",
        "review.md",
    ]


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (errno.EACCES, DENIED),
        (errno.EPERM, DENIED),
        (errno.ENOENT, "deleted during ingest"),
        (errno.EIO, "input/output error"),
    ],
)
def test_an_oserror_at_the_open_skips_the_file_and_the_ingest_goes_on(
    code: int, reason: str, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fail_open(monkeypatch, code, docs / "retries.md")
    with SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store)
        assert skipped(report.skipped) == [("docs/retries.md", reason)]
        assert (report.files_seen, report.files_indexed, report.chunks_written) == (3, 2, 2)
        assert indexed_paths(store) == {"docs/checkpoints.md", "docs/review.md"}


def test_a_corpus_none_of_whose_files_can_be_read_is_refused_in_one_line(
    docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fail_open(monkeypatch, errno.EACCES, *docs.iterdir())
    with pytest.raises(CorpusError) as refused:
        checked_corpus_files(docs)
    assert str(refused.value) == (
        f"corpus folder {docs} holds no text files (docs/checkpoints.md: {DENIED}; "
        f"docs/retries.md: {DENIED}; docs/review.md: {DENIED})"
    )
    with (
        SemanticStore(":memory:", embedder=HashEmbedder()) as store,
        pytest.raises(CorpusError, match="holds no text files"),
    ):
        ingest_corpus(docs, store)


def test_running_out_of_file_descriptors_stops_the_ingest_in_one_line(
    docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the file's fault: skipping it, and every file after it, would lose the corpus."""
    fail_open(monkeypatch, errno.EMFILE, docs / "retries.md")
    with (
        SemanticStore(":memory:", embedder=HashEmbedder()) as store,
        pytest.raises(CorpusError, match=r"retries\.md: too many open files$"),
    ):
        ingest_corpus(docs, store)


# -- a file that goes away while the corpus is read -----------------------------------------


def _replace(path: Path, how: str) -> None:
    path.unlink()
    if how == "folder":
        path.mkdir()
    elif how == "fifo":
        os.mkfifo(path)


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("deleted", "deleted during ingest"),
        ("folder", "not a regular file: a folder"),
        ("fifo", "not a regular file: a FIFO"),
    ],
)
def test_a_file_that_goes_away_during_the_ingest_is_skipped_and_listed(
    how: str, reason: str, docs: Path
) -> None:
    """Files are read one at a time: a file is replaced after the first one's batch commits."""

    def replace_retries(progress: IngestProgress) -> None:
        if progress.files_done == 1:
            _replace(docs / "retries.md", how)

    with SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store, batch=1, on_progress=replace_retries)
        assert skipped(report.skipped) == [("docs/retries.md", reason)]
        assert (report.files_seen, report.files_indexed) == (3, 2)
        assert indexed_paths(store) == {"docs/checkpoints.md", "docs/review.md"}


def test_a_file_locked_during_the_ingest_is_skipped_and_listed(
    docs: Path, lock: Callable[[Path], None]
) -> None:
    probe = docs.parent / "probe"
    probe.write_bytes(b"")
    lock(probe)  # skips the test where chmod 000 does not deny reading, before the ingest

    def lock_retries(progress: IngestProgress) -> None:
        if progress.files_done == 1:
            lock(docs / "retries.md")

    with SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store, batch=1, on_progress=lock_retries)
        assert skipped(report.skipped) == [("docs/retries.md", DENIED)]
        assert report.files_indexed == 2


@pytest.mark.parametrize(
    ("how", "reason"),
    [("fifo", "not a regular file: a FIFO"), ("folder", "not a regular file: a folder")],
)
def test_a_file_replaced_between_its_check_and_its_open_is_skipped(
    how: str, reason: str, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The open descriptor is checked again: what was opened is not a regular file."""
    other = tmp_path / "other"
    if how == "fifo":
        os.mkfifo(other)
    else:
        other.mkdir()
    open_instead(monkeypatch, docs / "retries.md", other)
    with SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store)
    assert skipped(report.skipped) == [("docs/retries.md", reason)]
    assert report.files_indexed == 2


# -- files indexed before -------------------------------------------------------------------


def test_a_file_indexed_before_that_cannot_be_read_now_is_skipped_and_removed(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "memory.sqlite"
    with SemanticStore(path, embedder=HashEmbedder()) as store:
        assert ingest_corpus(docs, store).files_indexed == 3
    with monkeypatch.context() as patched, SemanticStore(path, embedder=HashEmbedder()) as store:
        fail_open(patched, errno.EACCES, docs / "retries.md")
        report = ingest_corpus(docs, store)
        assert skipped(report.skipped) == [("docs/retries.md", DENIED)]
        assert (report.files_unchanged, report.files_removed) == (2, 1)
        assert indexed_paths(store) == {"docs/checkpoints.md", "docs/review.md"}
    with SemanticStore(path, embedder=HashEmbedder()) as store:  # readable again
        report = ingest_corpus(docs, store)
        assert (report.files_indexed, report.files_unchanged, report.skipped) == (1, 2, ())
        assert "docs/retries.md" in indexed_paths(store)


def test_a_file_deleted_after_it_was_indexed_is_removed_not_listed(
    docs: Path, tmp_path: Path
) -> None:
    path = tmp_path / "memory.sqlite"
    with SemanticStore(path, embedder=HashEmbedder()) as store:
        ingest_corpus(docs, store)
    (docs / "retries.md").unlink()
    with SemanticStore(path, embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store)
        assert (report.files_seen, report.files_removed, report.skipped) == (2, 1, ())
        assert indexed_paths(store) == {"docs/checkpoints.md", "docs/review.md"}


# -- a folder that cannot be listed ---------------------------------------------------------


def _locked_folder(docs: Path) -> Path:
    folder = docs / "locked"
    folder.mkdir()
    (folder / "inside.md").write_text("# Inside\n\nA paragraph of text.\n", encoding="utf-8")
    return folder


def test_a_folder_without_read_permission_is_skipped_and_listed(
    docs: Path, lock: Callable[[Path], None]
) -> None:
    lock(_locked_folder(docs))
    with SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store)
    assert skipped(report.skipped) == [("docs/locked", f"folder not listed ({DENIED})")]
    assert (report.files_seen, report.files_indexed) == (3, 3)


def test_a_folder_that_cannot_be_listed_is_skipped_and_listed(
    docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _locked_folder(docs)
    fail_open(monkeypatch, errno.EACCES, docs / "retries.md")
    fail_listing(monkeypatch, folder)
    with SemanticStore(":memory:", embedder=HashEmbedder()) as store:
        report = ingest_corpus(docs, store)
    assert skipped(report.skipped) == [
        ("docs/locked", f"folder not listed ({DENIED})"),
        ("docs/retries.md", DENIED),
    ]
    assert (report.files_seen, report.files_indexed) == (3, 2)


def test_a_corpus_folder_that_cannot_be_listed_is_refused_in_one_line(
    docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fail_listing(monkeypatch, docs)
    with pytest.raises(CorpusError) as refused:
        checked_corpus_files(docs)
    assert str(refused.value) == f"cannot read corpus folder {docs}: {DENIED}"
    monkeypatch.undo()
    (docs / "sub").mkdir()
    for name in SMALL_CORPUS:
        (docs / name).rename(docs / "sub" / name)
    fail_listing(monkeypatch, docs / "sub")  # no file, but a folder that was not listed
    with pytest.raises(CorpusError) as refused:
        checked_corpus_files(docs)
    assert str(refused.value) == (
        f"corpus folder {docs} holds no text files (docs/sub: folder not listed ({DENIED}))"
    )


# -- the command line -----------------------------------------------------------------------


def test_cadre_run_lists_an_unreadable_file_and_goes_on(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fail_open(monkeypatch, errno.EACCES, docs / "retries.md")
    home = ["--home", str(tmp_path / "home"), "--no-trace"]
    done = runner.invoke(app, ["run", "q", "--corpus", str(docs), "--team", "research", *home])
    assert done.exit_code == 0, done.stderr
    assert done.stderr.splitlines()[:2] == [
        "corpus: 3 files (2 indexed, 0 unchanged), 2 new chunks",
        f"skipped docs/retries.md: {DENIED}",
    ]


def _extract(*paths: Path, home: Path) -> Any:
    return runner.invoke(app, ["extract", *map(str, paths), "--home", str(home)])


def test_cadre_extract_refuses_a_file_without_read_permission_in_one_line(
    docs: Path, tmp_path: Path, lock: Callable[[Path], None]
) -> None:
    lock(docs / "retries.md")
    home = tmp_path / "home"
    for given in (docs / "retries.md", docs):
        line = one_line_error(_extract(given, home=home))
        assert line == f"error: cannot read {docs / 'retries.md'}: {DENIED}"
    assert not home.exists()


@pytest.mark.parametrize(
    ("code", "reason"), [(errno.EACCES, DENIED), (errno.ENOENT, "deleted before it was read")]
)
def test_cadre_extract_refuses_a_file_it_cannot_open_in_one_line(
    code: int, reason: str, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fail_open(monkeypatch, code, docs / "retries.md")
    home = tmp_path / "home"
    for given in (docs / "retries.md", docs):
        line = one_line_error(_extract(given, home=home))
        assert line == f"error: cannot read {docs / 'retries.md'}: {reason}"
    with pytest.raises(CorpusError, match=f"retries.md: {reason}$"):
        read_documents([docs])
    assert not home.exists()


def test_cadre_extract_refuses_a_file_in_a_folder_it_cannot_search_in_one_line(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fail_stat(monkeypatch, docs / "retries.md")
    home = tmp_path / "home"
    line = one_line_error(_extract(docs / "retries.md", home=home))
    assert line == f"error: cannot read {docs / 'retries.md'}: {DENIED}"
    assert not home.exists()


def test_cadre_extract_refuses_a_folder_it_cannot_list_in_one_line(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _locked_folder(docs)
    fail_listing(monkeypatch, folder)
    home = tmp_path / "home"
    for given in (folder, docs):
        line = one_line_error(_extract(given, home=home))
        assert line == f"error: cannot read folder {folder}: {DENIED}"
    assert not home.exists()


def test_cadre_extract_refuses_a_folder_without_read_permission_in_one_line(
    docs: Path, tmp_path: Path, lock: Callable[[Path], None]
) -> None:
    folder = _locked_folder(docs)
    lock(folder)
    home = tmp_path / "home"
    for given in (folder, docs):
        line = one_line_error(_extract(given, home=home))
        assert line == f"error: cannot read folder {folder}: {DENIED}"
    assert not home.exists()
