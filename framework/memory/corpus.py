"""Corpus ingestion and search: text files cut into chunks, embedded into a semantic store.

A corpus is a folder of ``.md``, ``.markdown``, ``.txt`` and ``.rst`` text files.
:func:`ingest_corpus` indexes it incrementally (unchanged files are skipped by content hash;
special files, files over the size limit, files that are not text or cannot be read, and folders
that cannot be listed are skipped and listed)
and in batches (with progress; a killed ingest resumes); :class:`Corpus` answers queries with
:class:`Passage` objects that cite ``path:line``.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from framework.errors import ConfigError, CorpusError
from framework.memory._chunking import Chunk, chunk_document
from framework.memory._ingest import (
    DEFAULT_BATCH,
    INCOMPLETE,
    BatchWriter,
    IngestProgress,
    ProgressCallback,
)
from framework.memory._lexicon import Lexicon, WordForm
from framework.memory._text_files import (
    MAX_FILE_MB_VARIABLE,
    SkippedFile,
    file_size_limit,
    read_document,
    unreadable_reason,
)
from framework.memory.store import (
    Namespace,
    SearchHit,
    SemanticStore,
    SourceRecord,
    namespace_path,
)

__all__ = [
    "CORPUS_NAMESPACE",
    "CORPUS_SUFFIXES",
    "MAX_FILE_MB_VARIABLE",
    "Chunk",
    "Corpus",
    "IngestProgress",
    "IngestReport",
    "Passage",
    "ProgressCallback",
    "SkippedFile",
    "checked_corpus_files",
    "chunk_document",
    "corpus_files",
    "file_size_limit",
    "ingest_corpus",
    "unreadable_reason",
]

CORPUS_NAMESPACE: Namespace = ("corpus",)
"""The namespace a corpus is indexed into unless told otherwise."""

CORPUS_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst"})
"""File suffixes (compared in lower case) that belong to a corpus."""

_LISTED = 3  # skipped files a refusal names


@dataclass(frozen=True, kw_only=True)
class IngestReport:
    """What one :func:`ingest_corpus` run did.

    Attributes:
        files_seen: Corpus files found (by suffix), skipped ones included.
        files_indexed: Files new or changed, whose chunks were (re)written.
        files_unchanged: Text files left as they were indexed.
        files_removed: Files indexed before that are gone, are no longer text, or cannot be
            read now.
        chunks_written: Chunks written (a chunk already stored with the same text keeps its
            vector: only the others are embedded).
        skipped: Files not indexed (not a regular file, over the size limit, not text, cannot
            be read: permission denied, deleted during ingest) and folders not listed, each
            with the reason, by path.
        files_resumed: Of ``files_indexed``, those an interrupted ingest had begun.
    """

    files_seen: int
    files_indexed: int
    files_unchanged: int
    files_removed: int
    chunks_written: int
    skipped: tuple[SkippedFile, ...] = ()
    files_resumed: int = 0


@dataclass(frozen=True, kw_only=True)
class Passage:
    """A corpus chunk found by a search; ``source`` reads ``path:line``."""

    source: str
    path: str
    line: int
    heading: str
    text: str
    score: float
    code: bool = False
    """The passage is (part of) a fenced code block, not prose."""
    outline: str = ""
    """The headings that hold ``heading``, outermost first, joined by ``" > "``."""
    lead: str = ""
    """For a passage cut from a long table after its first rows, the table's head (see
    :attr:`Chunk.lead <framework.memory._chunking.Chunk.lead>`); ``""`` otherwise."""


def corpus_files(root: Path, *, on_error: Callable[[OSError], None] | None = None) -> list[Path]:
    """The corpus files under ``root``, recursively, sorted, skipping hidden files and folders.

    Files are picked by name only (nothing is opened): special files and symbolic link loops
    with a corpus suffix are listed too, and skipped when read. Linked folders are not entered.

    Args:
        root: The folder.
        on_error: Called with the OSError of each folder that cannot be listed (its
            ``filename`` names it: ``root`` itself, or a folder under it), as :func:`os.walk`
            calls its ``onerror``; that folder's files are left out. Ignored when omitted.
    """
    found: list[Path] = []
    for folder, dirnames, filenames in os.walk(root, onerror=on_error):
        dirnames[:] = sorted(name for name in dirnames if not name.startswith("."))
        found.extend(
            Path(folder, name)
            for name in filenames
            if not name.startswith(".") and Path(name).suffix.lower() in CORPUS_SUFFIXES
        )
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


def ingest_corpus(
    root: Path,
    store: SemanticStore,
    namespace: Namespace = CORPUS_NAMESPACE,
    *,
    max_chars: int = 800,
    batch: int = DEFAULT_BATCH,
    max_file_bytes: int | None = None,
    on_progress: ProgressCallback | None = None,
) -> IngestReport:
    """Index the corpus under ``root`` into ``store``, incrementally, in batches.

    Files are named by display path: the root's own name joined with the relative path
    (``docs/guide/intro.md``). Unchanged files (same sha256) are skipped; a changed file's old
    chunks are replaced; chunks of files gone from this root are deleted. A file that is not
    read (see :func:`~framework.memory._text_files.read_document`: not a regular file, over the
    size limit, not text, or it cannot be read: permission denied, deleted during ingest) is
    listed in the report's ``skipped``, as is a folder that cannot be listed; what was indexed
    from them before is deleted. Several roots with different names can share one namespace.

    Files are read one at a time; chunks are embedded and committed ``batch`` at a time, and
    a file is marked complete after its last batch, so a killed ingest, run again, embeds only
    the chunks it had not committed.

    Args:
        root: The corpus folder.
        store: The store to index into.
        namespace: The namespace to index under.
        max_chars: Longest chunk, in characters.
        batch: Chunks embedded and committed per transaction.
        max_file_bytes: Size limit per file; :func:`file_size_limit` (``$CADRE_MAX_FILE_MB``,
            default 10 MB) when omitted.
        on_progress: Called with an :class:`IngestProgress` after every committed batch.

    Raises:
        CorpusError: ``root`` is missing, is not a folder, cannot be listed, or holds no corpus
            files or none that can be read as text; or reading failed for a reason that is not
            a file's own (too many open files).
        ConfigError: ``$CADRE_MAX_FILE_MB`` or ``batch`` is not a positive number.
    """
    root = Path(root)
    prefix, files, skipped = _listed(root)
    limit = _limit(max_file_bytes)
    previous = store.sources(namespace)
    writer = BatchWriter(store, namespace, len(files), batch, on_progress)
    texts: set[str] = set()
    indexed = resumed = 0
    for _, display, read in _read_each(root, prefix, files, limit):
        if isinstance(read, SkippedFile):
            skipped.append(read)
            writer.passed()
            continue
        digest, text = read
        texts.add(display)
        old = previous.get(display)
        if old is not None and old.content_hash == digest:
            writer.passed()
            continue
        chunks = chunk_document(display, text, max_chars)
        record = SourceRecord(
            source=display, content_hash=digest, keys=tuple(chunk.id for chunk in chunks)
        )
        indexed += 1
        resumed += old is not None and old.content_hash == f"{INCOMPLETE}{digest}"
        writer.add(record, chunks, old)
    skipped.sort(key=lambda file: file.path)
    if not texts:
        raise _no_text(root, skipped)
    writer.finish()
    removed = [
        record
        for source, record in sorted(previous.items())
        if source.startswith(f"{prefix}/" if prefix else "") and source not in texts
    ]
    store.delete_many(namespace, [key for record in removed for key in record.keys])
    store.delete_sources(namespace, [record.source for record in removed])
    return IngestReport(
        files_seen=len(files),
        files_indexed=indexed,
        files_unchanged=len(texts) - indexed,
        files_removed=len(removed),
        chunks_written=writer.chunks_written,
        skipped=tuple(skipped),
        files_resumed=resumed,
    )


class Corpus:
    """Semantic search over an ingested corpus.

    Args:
        store: The store the corpus was ingested into.
        namespace: The namespace it was ingested under.
    """

    def __init__(self, store: SemanticStore, namespace: Namespace = CORPUS_NAMESPACE) -> None:
        namespace_path(namespace)
        self.store = store
        self.namespace = namespace
        self._lexicons: dict[WordForm, tuple[object, Lexicon]] = {}
        self._lexicon_lock = threading.Lock()

    def __len__(self) -> int:
        return self.store.count(self.namespace)

    def search(self, query: str, k: int = 5, min_score: float = 0.0) -> list[Passage]:
        """The ``k`` passages most similar to ``query``, best first."""
        return self.search_many([query], k, min_score)[0]

    def search_many(
        self, queries: Sequence[str], k: int = 5, min_score: float = 0.0
    ) -> list[list[Passage]]:
        """:meth:`search` for each query, embedding all queries in one call."""
        ranked = self.store.search_many(self.namespace, queries, k, min_score=min_score)
        return [[_passage(hit) for hit in hits] for hits in ranked]

    def pointed_to(self, query: str, names: Sequence[str], k: int = 5) -> list[Passage]:
        """The ``k`` passages most similar to ``query`` among those one of ``names`` points to,
        best first: the name is in their path, their heading or a heading that holds it (a
        version or a year: "0.33" points to the passages under "0.33.0 (December 14, 2024)").

        A name matches where it stands on its own or as the first part of a longer version
        ("0.33" in "0.33.0", not in "10.33" or "0.331"). Every passage's metadata is read: a
        question that names nothing should not call this.
        """
        if not names:
            return []
        alternatives = "|".join(re.escape(name) for name in names)
        pattern = re.compile(rf"(?<![\w.])(?:{alternatives})(?!\w)")

        def points(key: str, metadata: dict[str, Any], form: str) -> bool:
            return any(pattern.search(str(metadata.get(field, ""))) for field in _POINTERS)

        return self._ranked(query, points, k)

    def rare_holders(
        self,
        query: str,
        words: Sequence[str | tuple[str, ...]],
        *,
        form: WordForm,
        most: int = 3,
        k: int = 5,
    ) -> list[Passage]:
        """The ``k`` passages most similar to ``query`` among those that hold one of ``words``
        found in at most ``most`` passages of the corpus (each word compared in the form
        ``form`` gives it; a tuple of words held where all of them are: "Python 3.9"), best
        first: a rare name of the question ("the code name cipater") points to where its
        answer is, though a search by meaning may rank that passage nowhere. [] for a corpus of
        more than :data:`LEXICON_LIMIT` passages.
        """
        lexicon = self._lexicon(form)
        if lexicon is None:
            return []
        keys: set[str] = set()
        for word in words:
            held = (
                lexicon.holders(word)
                if isinstance(word, str)
                else frozenset.intersection(*map(lexicon.holders, word))
            )
            if len(held) <= most:
                keys |= held
        if not keys:
            return []
        return self._ranked(query, lambda key, metadata, form: key in keys, k)

    def holder_count(self, word: str, form: WordForm) -> int:
        """How many passages hold ``word`` (compared in the form ``form`` gives); 0 for a
        corpus of more than :data:`LEXICON_LIMIT` passages."""
        lexicon = self._lexicon(form)
        return len(lexicon.holders(word)) if lexicon is not None else 0

    def _lexicon(self, form: WordForm) -> Lexicon | None:
        """The corpus's lexicon in ``form``, built on first use and again when the corpus has
        changed (its size, or a file's content hash); None when the corpus is too large to read
        whole."""
        size = len(self)
        if size > LEXICON_LIMIT:
            return None
        sources = self.store.sources(self.namespace).values()
        version = (size, frozenset((record.source, record.content_hash) for record in sources))
        with self._lexicon_lock:
            built = self._lexicons.get(form)
            if built is None or built[0] != version:
                _, rows = self.store.select(self.namespace, None)
                entries = self.store.entries_at(self.namespace, [row for row, _ in rows])
                texts = ((entry.key, entry.text) for entry in entries.values())
                built = self._lexicons[form] = (version, Lexicon(texts, form))
            return built[1]

    def _ranked(
        self, query: str, test: Callable[[str, dict[str, Any], str], bool], k: int
    ) -> list[Passage]:
        """The ``k`` passages that pass ``test(key, metadata, form)`` most similar to
        ``query``, best first."""
        vector = self.store.embed([query])
        ranked, _ = self.store.select(self.namespace, test, vector, k)
        found = self.store.entries_at(self.namespace, [row for row, _ in ranked])
        return [
            _passage(
                SearchHit(key=entry.key, text=entry.text, metadata=entry.metadata, score=score)
            )
            for row, score in ranked
            if (entry := found.get(row)) is not None
        ]


LEXICON_LIMIT = 50_000
"""The most passages a corpus may hold for :meth:`Corpus.rare_holders` to read it whole (once
per :class:`Corpus` and size): a larger corpus is searched by meaning alone."""


_POINTERS = ("path", "heading", "outline")
"""What of a passage a version or a year in a question may name."""


def checked_corpus_files(root: Path, *, max_file_bytes: int | None = None) -> list[Path]:
    """The files under ``root`` that can be indexed: each is checked and read (within the size
    limit) as :func:`ingest_corpus` will, so a corpus it accepts will not be refused later.

    Raises:
        CorpusError: ``root`` is missing, not a folder or cannot be listed, holds no corpus
            files, or none of them is a regular text file within the size limit that can be
            read (each is listed with why, as are folders that cannot be listed).
        ConfigError: ``$CADRE_MAX_FILE_MB`` is not a positive number.
    """
    root = Path(root)
    prefix, files, skipped = _listed(root)
    usable = []
    for path, _, read in _read_each(root, prefix, files, _limit(max_file_bytes)):
        if isinstance(read, SkippedFile):
            skipped.append(read)
        else:
            usable.append(path)
    if not usable:
        raise _no_text(root, sorted(skipped, key=lambda file: file.path))
    return usable


def _listed(root: Path) -> tuple[str, list[Path], list[SkippedFile]]:
    """``(display prefix, corpus files, folders that cannot be listed as skipped files)`` of
    ``root``; CorpusError when there is no folder, it cannot be listed, or holds neither."""
    try:
        is_folder = stat.S_ISDIR(os.stat(root).st_mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise CorpusError(f"corpus folder {root} is a symbolic link loop") from None
        if exc.errno == errno.ENOENT:
            raise CorpusError(
                f"corpus folder {root} does not exist; pass a folder of text files"
            ) from None
        raise CorpusError(f"cannot read corpus folder {root}: {unreadable_reason(exc)}") from None
    if not is_folder:
        raise CorpusError(f"corpus path {root} is not a folder; pass the folder that holds it")
    prefix = root.resolve().name
    errors: list[OSError] = []
    files = corpus_files(root, on_error=errors.append)
    folders = []
    for error in errors:
        if error.filename is None or os.fspath(error.filename) == os.fspath(root):
            raise CorpusError(f"cannot read corpus folder {root}: {unreadable_reason(error)}")
        folder = _display(root, prefix, Path(os.fspath(error.filename)))
        reason = f"folder not listed ({unreadable_reason(error)})"
        folders.append(SkippedFile(path=folder, reason=reason))
    if not files and folders:
        raise _no_text(root, folders)
    if not files:
        suffixes = ", ".join(sorted(CORPUS_SUFFIXES))
        raise CorpusError(f"corpus folder {root} holds no {suffixes} files")
    return prefix, files, folders


def _limit(given: int | None) -> int:
    if given is None:
        return file_size_limit()
    if given < 1:
        raise ConfigError(f"max_file_bytes must be at least 1, got {given}")
    return given


def _read_each(
    root: Path, prefix: str, files: list[Path], limit: int
) -> Iterator[tuple[Path, str, tuple[str, str] | SkippedFile]]:
    """``(path, display path, (sha256, text) or why it is skipped)`` of each file, read one at
    a time: a file that is not text, or cannot be read, is skipped (see
    :func:`~framework.memory._text_files.read_document`).

    Raises:
        CorpusError: Reading failed for a reason that is not the file's own (too many open
            files, out of memory).
    """
    for path in files:
        display = _display(root, prefix, path)
        read = read_document(path, display, limit)
        if isinstance(read, SkippedFile):
            yield path, display, read
        else:
            data, text = read
            yield path, display, (hashlib.sha256(data).hexdigest(), text)


def _display(root: Path, prefix: str, path: Path) -> str:
    """The display path of ``path`` under ``root``: ``prefix``, then the relative path."""
    return f"{prefix}/{path.relative_to(root).as_posix()}".lstrip("/")


def _no_text(root: Path, skipped: list[SkippedFile]) -> CorpusError:
    """The one-line refusal of a corpus none of whose files can be read, naming a few."""
    listed = "; ".join(f"{file.path}: {file.reason}" for file in skipped[:_LISTED])
    more = f"; {len(skipped) - _LISTED} more" if len(skipped) > _LISTED else ""
    return CorpusError(f"corpus folder {root} holds no text files ({listed}{more})")


def _passage(hit: SearchHit) -> Passage:
    path = str(hit.metadata["path"])
    line = int(hit.metadata["start_line"])
    return Passage(
        source=f"{path}:{line}",
        path=path,
        line=line,
        heading=str(hit.metadata.get("heading", "")),
        text=hit.text,
        score=hit.score,
        code=bool(hit.metadata.get("code", False)),
        outline=str(hit.metadata.get("outline", "")),
        lead=str(hit.metadata.get("lead", "")),
    )
