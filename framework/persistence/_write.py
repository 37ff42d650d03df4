"""Writing checkpoints: the sealed checkpoint row, its channel values (deltas where they fit),
and tasks' pending writes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    get_serializable_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from framework.database import Database
from framework.persistence import _manifests
from framework.persistence._bundles import Member, member_marker, new_call_id, pack
from framework.persistence._chunks import Chunker, ChunkRow
from framework.persistence._deltas import DeltaEncoder, StoredValue
from framework.persistence._read import thread_and_namespace
from framework.persistence._rows import (
    TABLES,
    RowCodec,
    blob_ad,
    checkpoint_ad,
    split_metadata,
    upsert_into,
    write_ad,
)

__all__ = ["SealedCheckpoint", "WriteRows", "Writer"]

Typed = tuple[str, bytes]


@dataclass(frozen=True, slots=True)
class SealedCheckpoint:
    """A ``cadre_checkpoints`` row ready to insert."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_id: str | None
    metadata: str
    body: bytes

    @property
    def config(self) -> RunnableConfig:
        """The config naming this checkpoint."""
        return {
            "configurable": {
                "thread_id": self.thread_id,
                "checkpoint_ns": self.checkpoint_ns,
                "checkpoint_id": self.checkpoint_id,
            }
        }


_CHECKPOINTS, _BLOBS, _WRITES, *_ = TABLES
_PUT_CHECKPOINT = upsert_into(_CHECKPOINTS, replace=True)
_PUT_BLOB = upsert_into(_BLOBS, replace=False)
_REPLACE_WRITE = upsert_into(_WRITES, replace=True)
_KEEP_WRITE = upsert_into(_WRITES, replace=False)


class Writer:
    """Seals and inserts rows on one database; :meth:`put` and :meth:`commit_writes` run under
    the saver's lock.

    Args:
        db: The database.
        codec: Seals blobs.
        deltas: Decides how channel values are stored, and remembers what was.
    """

    def __init__(self, db: Database, codec: RowCodec, deltas: DeltaEncoder) -> None:
        self.db = db
        self.codec = codec
        self.deltas = deltas
        self.chunker = Chunker(db, codec)

    def seal_checkpoint(
        self,
        serde: SerializerProtocol,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
    ) -> SealedCheckpoint:
        """The checkpoint's row: allowlisted metadata in plaintext, the rest sealed in the body
        with the checkpoint itself (without its channel values) and the promise of a manifest
        (see ``_manifests``)."""
        thread_id, checkpoint_ns = thread_and_namespace(config)
        parent_id = config["configurable"].get("checkpoint_id")
        saved = {k: v for k, v in checkpoint.items() if k != "channel_values"}
        public, private = split_metadata(get_serializable_checkpoint_metadata(config, metadata))
        ad = checkpoint_ad(thread_id, checkpoint_ns, checkpoint["id"], parent_id, public)
        sealed = {"checkpoint": saved, "metadata": private, "manifest": True}
        body = self.codec.seal(serde.dumps_typed(sealed), ad)
        return SealedCheckpoint(thread_id, checkpoint_ns, checkpoint["id"], parent_id, public, body)

    def put(
        self,
        serde: SerializerProtocol,
        row: SealedCheckpoint,
        values: Mapping[str, Any],
        new_versions: ChannelVersions,
    ) -> None:
        """Insert the checkpoint and the values of the channels in ``new_versions``, in one
        transaction; then remember what was stored (call under the lock)."""
        thread_id, checkpoint_ns = row.thread_id, row.checkpoint_ns
        planned = {
            channel: self.deltas.encode(
                serde,
                (thread_id, checkpoint_ns, channel),
                str(version),
                values.get(channel),
                missing=channel not in values,
            )
            for channel, version in new_versions.items()
        }
        with self.db.write_transaction():
            kept = self._put_values(serde, row, new_versions, values, planned)
            self.db.execute(
                _PUT_CHECKPOINT,
                (
                    thread_id,
                    checkpoint_ns,
                    row.checkpoint_id,
                    row.parent_id,
                    row.metadata,
                    row.body,
                ),
            )
            key = (thread_id, checkpoint_ns, row.checkpoint_id)
            _manifests.create(self.db, self.codec, key, row.parent_id)
        for channel, value in planned.items():
            key = (thread_id, checkpoint_ns, channel)
            if channel in kept:
                self.deltas.forget(key)
            else:
                self.deltas.stored(key, value)

    def _put_values(
        self,
        serde: SerializerProtocol,
        row: SealedCheckpoint,
        new_versions: ChannelVersions,
        values: Mapping[str, Any],
        planned: dict[str, StoredValue],
    ) -> set[str]:
        """Insert the planned values (a delta whose base is gone is stored whole instead);
        the channels whose version was already stored, and kept as it was."""
        kept: set[str] = set()
        for channel, planned_value in list(planned.items()):
            version = str(new_versions[channel])
            value = planned_value
            if value.base is not None and not self._has_blob(row, channel, value.base):
                value = planned[channel] = self.deltas.full(serde, version, values[channel])
            ad = blob_ad(row.thread_id, row.checkpoint_ns, channel, version, value.kind, value.base)
            stored, chunks = self.chunker.pack(row.thread_id, value.typed)
            self.chunker.insert(chunks)
            cursor = self.db.execute(
                _PUT_BLOB,
                (
                    row.thread_id,
                    row.checkpoint_ns,
                    channel,
                    version,
                    value.kind,
                    value.base,
                    self.codec.seal(stored, ad),
                ),
            )
            if cursor.rowcount == 0:
                kept.add(channel)
        return kept

    def _has_blob(self, row: SealedCheckpoint, channel: str, version: str) -> bool:
        found = self.db.execute(
            "SELECT 1 FROM cadre_blobs WHERE thread_id = ? AND checkpoint_ns = ? "
            "AND channel = ? AND version = ?",
            (row.thread_id, row.checkpoint_ns, channel, version),
        ).fetchone()
        return found is not None

    def write_rows(
        self,
        serde: SerializerProtocol,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task: tuple[str, str],
    ) -> WriteRows:
        """The statement and sealed rows storing the writes of ``task`` (id, path).

        A write already stored under the same (task, index) is kept, except the special
        channels (error, interrupt, resume, scheduled), which replace theirs. In an encrypted
        database two or more ordinary writes are sealed together (see ``_bundles``).
        """
        thread_id, checkpoint_ns = thread_and_namespace(config)
        checkpoint_id = str(config["configurable"]["checkpoint_id"])
        row_of = _RowMaker(self.codec, (thread_id, checkpoint_ns, checkpoint_id), task)
        members: list[Member] = []
        chunks: list[ChunkRow] = []
        for position, (channel, value) in enumerate(writes):
            stored, pieces = self.chunker.pack(thread_id, serde.dumps_typed(value))
            members.append((WRITES_IDX_MAP.get(channel, position), channel, stored))
            chunks.extend(pieces)
        special = [channel in WRITES_IDX_MAP for channel, _ in writes]

        def one_by_one() -> list[tuple[Any, ...]]:
            return [row_of.sealed(*member) for member in members]

        if all(special):
            return WriteRows(_REPLACE_WRITE, one_by_one(), chunks=chunks)
        if self.codec.cipher is None or len(members) < 2 or any(special):
            return WriteRows(_KEEP_WRITE, one_by_one(), chunks=chunks)
        return WriteRows(_KEEP_WRITE, row_of.bundled(members), unbundled=one_by_one, chunks=chunks)

    def commit_writes(self, batch: Sequence[WriteRows]) -> None:
        """Store the writes of several tasks in one transaction, recorded in their checkpoints'
        manifests (call under the lock)."""
        written: dict[tuple[str, str, str], list[tuple[str, int]]] = {}
        with self.db.write_transaction():
            for item in batch:
                self.chunker.insert(item.chunks)
                changed = self.db.executemany(item.sql, item.rows)
                if item.unbundled is not None and 0 < changed < len(item.rows):
                    self._unbundle(item)
                for row in item.rows:
                    written.setdefault((row[0], row[1], row[2]), []).append((row[3], row[4]))
            _manifests.record_writes(self.db, self.codec, written)

    def _unbundle(self, item: WriteRows) -> None:
        """Some rows of a bundle were stored already (by an earlier call of the task): take
        back the rows this call inserted and store its writes one by one instead, each only
        where no row is, as unbundled writes would have been."""
        assert item.unbundled is not None
        self.db.executemany(
            "DELETE FROM cadre_writes WHERE thread_id = ? AND checkpoint_ns = ? AND "
            "checkpoint_id = ? AND task_id = ? AND idx = ? AND value = ?",
            [(*row[:5], row[7]) for row in item.rows],
        )
        self.db.executemany(_KEEP_WRITE, item.unbundled())


@dataclass(frozen=True, slots=True)
class WriteRows:
    """An insert statement and the rows of one ``put_writes`` call."""

    sql: str
    rows: list[tuple[Any, ...]]
    unbundled: Callable[[], list[tuple[Any, ...]]] | None = None
    """For a bundle: the same writes sealed one by one (used when its rows partly conflict)."""
    chunks: list[ChunkRow] = field(default_factory=list)
    """The chunks of its large values (see ``_chunks``), stored with it."""


class _RowMaker:
    """Builds the ``cadre_writes`` rows of one task's writes on one checkpoint."""

    def __init__(
        self, codec: RowCodec, checkpoint: tuple[str, str, str], task: tuple[str, str]
    ) -> None:
        self.codec = codec
        self.checkpoint = checkpoint
        self.task_id, self.task_path = task

    def sealed(self, idx: int, channel: str, typed: Typed) -> tuple[Any, ...]:
        """One write in a row of its own."""
        return self._row(idx, channel, self._seal(idx, channel, typed))

    def bundled(self, members: Sequence[Member]) -> list[tuple[Any, ...]]:
        """Every write in one sealed head row, then a member marker row for each other."""
        call_id = new_call_id()
        head_idx, head_channel, _ = members[0]
        head = self._seal(head_idx, head_channel, pack(members, call_id))
        marker = member_marker(head_idx, call_id)
        rows = [self._row(head_idx, head_channel, head)]
        rows.extend(self._row(idx, channel, marker) for idx, channel, _ in members[1:])
        return rows

    def _seal(self, idx: int, channel: str, typed: Typed) -> bytes:
        ad = write_ad(*self.checkpoint, self.task_id, idx, channel, self.task_path)
        return self.codec.seal(typed, ad)

    def _row(self, idx: int, channel: str, value: bytes) -> tuple[Any, ...]:
        return (*self.checkpoint, self.task_id, idx, channel, self.task_path, value)
