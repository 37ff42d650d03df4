"""Writing a corpus's chunks in batches: each batch embedded and committed on its own, a file
marked complete only once all its chunks are in, so a killed ingest resumes where it stopped.

Before a file's first chunks are committed its source record is written as *incomplete*
(:data:`INCOMPLETE` before its content hash) and lists its old and new chunk keys; the record
gets the real hash, and the old keys that went are deleted, after its last batch. A rerun
reindexes an incomplete file: the chunks already committed keep their vectors (the store only
embeds texts whose content hash it does not hold), and every key the record lists that the file
no longer has is deleted, so a kill leaves no orphan chunk behind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from framework.errors import ConfigError
from framework.memory._chunking import Chunk
from framework.memory.store import Namespace, SemanticStore, SourceRecord, StoreItem

__all__ = ["DEFAULT_BATCH", "INCOMPLETE", "BatchWriter", "IngestProgress", "ProgressCallback"]

DEFAULT_BATCH = 256
"""Chunks embedded and committed per transaction."""

INCOMPLETE = "incomplete:"
"""Prefix of the content hash of a source whose chunks are not all committed yet."""


@dataclass(frozen=True, kw_only=True)
class IngestProgress:
    """Where an ingest stands after a batch was committed.

    Attributes:
        path: Display path of the file the batch ended in.
        chunks_done: Chunks of that file committed so far.
        chunks_total: Chunks of that file.
        files_done: Corpus files finished (indexed, unchanged or skipped) so far.
        files_total: Corpus files found.
    """

    path: str
    chunks_done: int
    chunks_total: int
    files_done: int
    files_total: int


ProgressCallback = Callable[[IngestProgress], None]
"""Called after every committed batch."""


@dataclass
class _File:
    """A file being written: its final record, the keys to delete at the end, its count."""

    record: SourceRecord
    listed: tuple[str, ...]  # keys of the incomplete record: old and new
    stale: list[str]
    done: int = 0
    marked: bool = False


@dataclass
class BatchWriter:
    """Embeds and commits the chunks of changed files, ``batch`` at a time.

    Args:
        store: The store to write into.
        namespace: The corpus namespace.
        files_total: Corpus files found (for progress).
        batch: Chunks per transaction.
        on_progress: Called after every committed batch.
    """

    store: SemanticStore
    namespace: Namespace
    files_total: int
    batch: int = DEFAULT_BATCH
    on_progress: ProgressCallback | None = None
    chunks_written: int = field(default=0, init=False)
    """Chunks written so far."""
    files_done: int = field(default=0, init=False)
    """Files finished so far: complete, unchanged or skipped."""
    _queue: list[tuple[_File, StoreItem]] = field(default_factory=list, init=False, repr=False)
    _finished: list[_File] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.batch < 1:
            raise ConfigError(f"batch must be at least 1, got {self.batch}")

    def passed(self) -> None:
        """Count a file that needs no writing (unchanged or skipped)."""
        self.files_done += 1

    def add(self, record: SourceRecord, chunks: list[Chunk], old: SourceRecord | None) -> None:
        """Queue a changed file's chunks (``record`` is what it is complete at); full batches
        are committed as they fill."""
        new = set(record.keys)
        before = old.keys if old is not None else ()
        listed = tuple(dict.fromkeys((*before, *record.keys)))
        file = _File(record, listed, stale=[key for key in listed if key not in new])
        if not chunks:
            self._finished.append(file)
        self._queue.extend((file, _item(chunk)) for chunk in chunks)
        while len(self._queue) >= self.batch:
            self._commit(self._queue[: self.batch])
            del self._queue[: self.batch]

    def finish(self) -> None:
        """Commit what is left and mark the last files complete."""
        self._commit(self._queue)
        self._queue = []

    def _commit(self, entries: list[tuple[_File, StoreItem]]) -> None:
        """Mark the batch's files incomplete, write its chunks, then complete finished files."""
        store, namespace = self.store, self.namespace
        files = list({id(file): file for file, _ in entries}.values())
        unmarked = [file for file in files if not file.marked]
        if unmarked:
            store.put_sources(namespace, [_incomplete(file) for file in unmarked])
            for file in unmarked:
                file.marked = True
        self.chunks_written += store.put_many(namespace, [item for _, item in entries])
        for file, _ in entries:
            file.done += 1
        self._finished.extend(f for f in files if f.done == len(f.record.keys))
        if self._finished:
            store.delete_many(namespace, [key for f in self._finished for key in f.stale])
            store.put_sources(namespace, [f.record for f in self._finished])
            self.files_done += len(self._finished)
            self._finished = []
        if entries and self.on_progress is not None:
            last = entries[-1][0]
            self.on_progress(
                IngestProgress(
                    path=last.record.source,
                    chunks_done=last.done,
                    chunks_total=len(last.record.keys),
                    files_done=self.files_done,
                    files_total=self.files_total,
                )
            )


def _incomplete(file: _File) -> SourceRecord:
    record = file.record
    return SourceRecord(
        source=record.source, content_hash=f"{INCOMPLETE}{record.content_hash}", keys=file.listed
    )


def _item(chunk: Chunk) -> StoreItem:
    metadata = {
        "path": chunk.path,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "heading": chunk.heading,
        "code": chunk.code,
        "outline": chunk.outline,
        **({"lead": chunk.lead} if chunk.lead else {}),
    }
    return StoreItem(key=chunk.id, text=chunk.text, metadata=metadata, context=chunk.heading)
