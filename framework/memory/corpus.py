"""Corpus ingestion and search: text files cut into chunks, embedded into a semantic store.

A corpus is a folder of ``.md``, ``.markdown``, ``.txt`` and ``.rst`` text files.
:func:`ingest_corpus` indexes it incrementally (unchanged files are skipped by content hash,
files that are not text are skipped and listed); :class:`Corpus` answers queries with
:class:`Passage` objects that cite ``path:line``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from framework.errors import CorpusError, NotTextError
from framework.memory._chunking import Chunk, chunk_document
from framework.memory._text_files import SkippedFile, read_bytes, text_of
from framework.memory.store import (
    Namespace,
    SearchHit,
    SemanticStore,
    SourceRecord,
    StoreItem,
    namespace_path,
)

__all__ = [
    "CORPUS_NAMESPACE",
    "CORPUS_SUFFIXES",
    "Chunk",
    "Corpus",
    "IngestReport",
    "Passage",
    "SkippedFile",
    "checked_corpus_files",
    "chunk_document",
    "corpus_files",
    "ingest_corpus",
]

CORPUS_NAMESPACE: Namespace = ("corpus",)
"""The namespace a corpus is indexed into unless told otherwise."""

CORPUS_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst"})
"""File suffixes (compared in lower case) that belong to a corpus."""


@dataclass(frozen=True, kw_only=True)
class IngestReport:
    """What one :func:`ingest_corpus` run did.

    Attributes:
        files_seen: Corpus files found (by suffix), skipped ones included.
        files_indexed: Files new or changed, whose chunks were (re)written.
        files_unchanged: Text files left as they were indexed.
        files_removed: Files indexed before that are gone, or are no longer text.
        chunks_written: Chunks embedded and written.
        skipped: Files not indexed because they are not text, each with the reason.
    """

    files_seen: int
    files_indexed: int
    files_unchanged: int
    files_removed: int
    chunks_written: int
    skipped: tuple[SkippedFile, ...] = ()


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


def corpus_files(root: Path) -> list[Path]:
    """The corpus files under ``root``, recursively, sorted, skipping hidden files and folders."""
    found: list[Path] = []
    for folder, dirnames, filenames in os.walk(root):
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
) -> IngestReport:
    """Index the corpus under ``root`` into ``store``, incrementally.

    Files are named by display path: the root's own name joined with the relative path
    (``docs/guide/intro.md``). Unchanged files (same sha256) are skipped; a changed file's old
    chunks are replaced; chunks of files gone from this root are deleted. A file that is not
    text (see :func:`text_of`) is not indexed, and is listed in the report's ``skipped``; what
    was indexed from it before is deleted. Several roots with different names can share one
    namespace. All new chunks are embedded in one batched call.

    Raises:
        CorpusError: ``root`` is missing, is not a folder, holds no corpus files or none that
            is text, or a file cannot be read.
    """
    root = Path(root)
    files = checked_corpus_files(root)
    prefix = root.resolve().name
    texts, skipped = _read_texts(root, prefix, files)
    previous = store.sources(namespace)
    records: list[SourceRecord] = []
    items: list[StoreItem] = []
    stale: list[str] = []
    for display, (digest, text) in texts.items():
        old = previous.get(display)
        if old is not None and old.content_hash == digest:
            continue
        chunks = chunk_document(display, text, max_chars)
        keys = tuple(chunk.id for chunk in chunks)
        items.extend(_item(chunk) for chunk in chunks)
        records.append(SourceRecord(source=display, content_hash=digest, keys=keys))
        if old is not None:
            stale.extend(sorted(set(old.keys) - set(keys)))
    removed = [
        record
        for source, record in sorted(previous.items())
        if source.startswith(f"{prefix}/" if prefix else "") and source not in texts
    ]
    stale.extend(key for record in removed for key in record.keys)
    written = store.put_many(namespace, items)
    store.delete_many(namespace, stale)
    store.put_sources(namespace, records)
    store.delete_sources(namespace, [record.source for record in removed])
    return IngestReport(
        files_seen=len(files),
        files_indexed=len(records),
        files_unchanged=len(texts) - len(records),
        files_removed=len(removed),
        chunks_written=written,
        skipped=tuple(skipped),
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


def checked_corpus_files(root: Path) -> list[Path]:
    """The corpus files under ``root``; CorpusError when there is no usable corpus there."""
    if not root.exists():
        raise CorpusError(f"corpus folder {root} does not exist; pass a folder of text files")
    if not root.is_dir():
        raise CorpusError(f"corpus path {root} is not a folder; pass the folder that holds it")
    files = corpus_files(root)
    if not files:
        suffixes = ", ".join(sorted(CORPUS_SUFFIXES))
        raise CorpusError(f"corpus folder {root} holds no {suffixes} files")
    return files


def _read_texts(
    root: Path, prefix: str, files: list[Path]
) -> tuple[dict[str, tuple[str, str]], list[SkippedFile]]:
    """``{display path: (sha256, text)}`` of the text files, and the files skipped as not text.

    Raises:
        CorpusError: A file cannot be read, or none is text.
    """
    texts: dict[str, tuple[str, str]] = {}
    skipped: list[SkippedFile] = []
    for path in files:
        display = f"{prefix}/{path.relative_to(root).as_posix()}".lstrip("/")
        data = read_bytes(path)
        try:
            texts[display] = (hashlib.sha256(data).hexdigest(), text_of(data))
        except NotTextError as error:
            skipped.append(SkippedFile(path=display, reason=str(error)))
    if not texts:
        listed = "; ".join(f"{file.path}: {file.reason}" for file in skipped)
        raise CorpusError(f"corpus folder {root} holds no text files ({listed})")
    return texts, skipped


def _item(chunk: Chunk) -> StoreItem:
    metadata = {
        "path": chunk.path,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "heading": chunk.heading,
        "code": chunk.code,
    }
    return StoreItem(key=chunk.id, text=chunk.text, metadata=metadata, context=chunk.heading)


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
    )
