"""Corpus ingestion and search: text files cut into chunks, embedded into a semantic store.

A corpus is a folder of ``.md``, ``.markdown``, ``.txt`` and ``.rst`` files. :func:`ingest_corpus`
indexes it incrementally (unchanged files are skipped by content hash); :class:`Corpus` answers
queries with :class:`Passage` objects that cite ``path:line``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from framework.errors import CorpusError
from framework.memory._chunking import Chunk, chunk_document
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
    """What one :func:`ingest_corpus` run did."""

    files_seen: int
    files_indexed: int
    files_unchanged: int
    files_removed: int
    chunks_written: int


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
    chunks are replaced; chunks of files gone from this root are deleted. Several roots with
    different names can share one namespace. All new chunks are embedded in one batched call.

    Raises:
        CorpusError: ``root`` is missing, is not a folder, holds no corpus files, or a file
            cannot be read.
    """
    root = Path(root)
    files = checked_corpus_files(root)
    prefix = root.resolve().name
    previous = store.sources(namespace)
    seen: set[str] = set()
    records: list[SourceRecord] = []
    items: list[StoreItem] = []
    stale: list[str] = []
    for path in files:
        display = f"{prefix}/{path.relative_to(root).as_posix()}".lstrip("/")
        seen.add(display)
        data = _read(path)
        digest = hashlib.sha256(data).hexdigest()
        old = previous.get(display)
        if old is not None and old.content_hash == digest:
            continue
        chunks = chunk_document(display, data.decode("utf-8-sig", errors="replace"), max_chars)
        keys = tuple(chunk.id for chunk in chunks)
        items.extend(_item(chunk) for chunk in chunks)
        records.append(SourceRecord(source=display, content_hash=digest, keys=keys))
        if old is not None:
            stale.extend(sorted(set(old.keys) - set(keys)))
    removed = [
        record
        for source, record in sorted(previous.items())
        if source.startswith(f"{prefix}/" if prefix else "") and source not in seen
    ]
    stale.extend(key for record in removed for key in record.keys)
    written = store.put_many(namespace, items)
    store.delete_many(namespace, stale)
    store.put_sources(namespace, records)
    store.delete_sources(namespace, [record.source for record in removed])
    return IngestReport(
        files_seen=len(files),
        files_indexed=len(records),
        files_unchanged=len(files) - len(records),
        files_removed=len(removed),
        chunks_written=written,
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


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"cannot read corpus file {path}: {exc.strerror or exc}") from exc


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
