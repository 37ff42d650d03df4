"""cadre's checkpointer: storage linear in steps, optional encryption bound to each row.

:class:`CadreSaver` is a LangGraph checkpoint saver on a SQLite file (the standard library's
``sqlite3``, WAL) or a PostgreSQL database (psycopg), usable from sync and async graphs alike
(the async methods run the database work on a worker thread; the pending writes of concurrent
tasks share one transaction). Unlike LangGraph's ``SqliteSaver`` and ``PostgresSaver``:

* a checkpoint row holds no channel values; a value is stored once per (thread, namespace,
  channel, version), and only the channels in ``new_versions`` are written at each step;
* a list that extends the previous version of its channel (an append, or a bounded append that
  drops the oldest items) is stored as a delta on it, and so is a dict of which at least half
  is unchanged; a full value is stored again after ``snapshot_every`` deltas (after n/8 for a
  value of n items, when that is more), which bounds what a read applies;
* with a :class:`BlobCipher`, every blob (checkpoint body, channel value, pending write) is
  sealed with associated data naming its row, so a blob moved to another thread or position
  fails with ``TamperError``, and a plaintext blob is refused with ``PlaintextBlobError``;
* the plaintext metadata column keeps only ``source``, ``step``, ``parents`` and ``run_id``;
  the rest (configurable values, run metadata) is sealed in the checkpoint body and merged back
  on read;
* the database records whether it is encrypted: opening it the other way is a ``ConfigError``;
* :meth:`CadreSaver.hold_thread` keeps a second process from running a thread at the same
  time (``ThreadBusyError``), with a file lock on SQLite and an advisory lock on PostgreSQL.

:func:`key_usage`, :func:`reencrypt_threads` and :func:`busy_threads` serve ``cadre keys``.
Every blob is sealed and committed inside ``cipher.sealing()``, so a cipher that follows the
home's key file reloads it when another process changed it and never writes under a retired key.
"""

from __future__ import annotations

import asyncio
import copy
import random
from collections.abc import AsyncIterator, Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from framework.errors import ConfigError
from framework.persistence import _key_usage, _maintenance
from framework.persistence._batch import AsyncGroupCommit
from framework.persistence._deltas import DeltaEncoder
from framework.persistence._rows import PUBLIC_METADATA_KEYS, thread_key_id
from framework.persistence._saver_keys import (
    Reencrypted,
    busy_threads,
    forget_key,
    key_usage,
    reencrypt_all,
    reencrypt_threads,
)
from framework.persistence._write import Writer, WriteRows
from framework.persistence.checkpointer import default_serializer
from framework.persistence.cipher import BlobCipher
from framework.persistence.data_keys import DataKeys
from framework.persistence.reader import CheckpointReader

__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "PUBLIC_METADATA_KEYS",
    "UNREADABLE",
    "CadreSaver",
    "Reencrypted",
    "busy_threads",
    "forget_key",
    "key_usage",
    "reencrypt_all",
    "reencrypt_threads",
]

DEFAULT_SNAPSHOT_EVERY = 32
"""The most deltas between two full values of a channel of fewer than 256 items (a value of n
items may go n/8 deltas): what one read applies at most."""

UNREADABLE = _key_usage.UNREADABLE


class CadreSaver(CheckpointReader, BaseCheckpointSaver[str]):
    """A checkpoint saver on a SQLite file or a PostgreSQL database, optionally encrypted;
    thread-safe. It reads as its :class:`CheckpointReader` does, with LangGraph's
    ``CheckpointTuple``.

    Args:
        path: The database file (created with its folder), ``":memory:"``, or a
            ``postgresql://`` URL.
        cipher: Seals every blob; None keeps a plaintext database. A database is created
            encrypted or not and must always be opened the same way.
        serde: Serializes values; cadre's records only by default (:func:`default_serializer`).
        snapshot_every: The most deltas stored between two full values of a channel (for a
            value of n items, ``max(snapshot_every, n // 8)``).
        data_keys: The key store of the threads' own data keys (with a cipher): each thread's
            blobs are sealed under its key, which :meth:`delete_threads` destroys, so copies of
            them made before (a backup) cannot be opened either. Closed with the saver.

    Raises:
        ConfigError: The database cannot be opened or is not a cadre checkpoint database, or
            it is encrypted and no cipher was given (or the other way round).
    """

    serde: SerializerProtocol

    def __init__(
        self,
        path: Path | str,
        cipher: BlobCipher | None = None,
        *,
        serde: SerializerProtocol | None = None,
        snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
        data_keys: DataKeys | None = None,
    ) -> None:
        if snapshot_every < 1:
            raise ConfigError(f"snapshot_every must be at least 1, got {snapshot_every}")
        BaseCheckpointSaver.__init__(self, serde=serde or default_serializer())
        CheckpointReader.__init__(self, path, cipher, serde=self.serde, data_keys=data_keys)
        self._deltas = DeltaEncoder(snapshot_every)
        self._writer = Writer(self.db, self._codec, self._deltas)
        self._async_writes: AsyncGroupCommit[WriteRows] = AsyncGroupCommit(self._commit_writes)

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> CadreSaver:
        """A shallow clone whose serializer also revives ``extra_allowlist``, through any
        serializer that can widen its allowlist (a wrapper such as telemetry's byte counter
        included, which LangGraph's own check does not see through)."""
        widen = getattr(self.serde, "with_msgpack_allowlist", None)
        if widen is None:
            return cast(CadreSaver, super().with_allowlist(extra_allowlist))
        serde = widen(extra_allowlist)
        if serde is self.serde:
            return self
        clone = copy.copy(self)
        clone.serde = serde
        return clone

    @contextmanager
    def hold_thread(self, thread_id: str) -> Iterator[None]:
        """Run a thread in this process only: a second process (or saver) asking for the same
        thread meanwhile gets ``ThreadBusyError``; released when the block ends or the
        process dies.

        Raises:
            ThreadBusyError: Another process is running the thread.
        """
        busy = (
            f"thread {thread_id} is busy: another process is running it right now; wait until "
            "it finishes or pauses for review, then try again (its state is intact)"
        )
        with self.db.hold(_thread_lock(thread_id), busy):
            self._codec.forget([thread_id])  # its key may have been destroyed meanwhile
            yield

    # -- reading ---------------------------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint named by ``config``, or the latest of its thread and namespace.

        Raises:
            CryptoError: A blob of it is tampered, moved, plaintext or under an unknown key.
        """
        saved = self._read(config)
        return None if saved is None else CheckpointTuple(*saved)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Checkpoints matching ``config``, ``filter`` and ``before``, newest first.

        ``filter`` compares metadata values for equality, sealed keys included (those are
        checked after opening each candidate's body).
        """
        for saved in self._listed(config, filter, before, limit):
            yield CheckpointTuple(*saved)

    # -- writing ---------------------------------------------------------------------------

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint and the values of the channels in ``new_versions``."""
        with self._sealing():
            row = self._writer.seal_checkpoint(self.serde, config, checkpoint, metadata)
            with self.lock:
                self._writer.put(self.serde, row, checkpoint["channel_values"], new_versions)
        return row.config

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's pending writes on a checkpoint (sealed before the lock is taken).

        A write already stored under the same (task, index) is kept, except the special
        channels (error, interrupt, resume, scheduled), which replace theirs.
        """
        with self._sealing():
            rows = self._writer.write_rows(self.serde, config, writes, (task_id, task_path))
            self._commit_writes([rows])

    def _commit_writes(self, batch: Sequence[WriteRows]) -> None:
        with self.lock:
            self._writer.commit_writes(batch)

    def _sealing(self) -> AbstractContextManager[None]:
        """Seal and commit inside: the keys are current and stay so (see ``BlobCipher``)."""
        return self.cipher.sealing() if self.cipher is not None else nullcontext()

    # -- deleting and copying --------------------------------------------------------------

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, value and write of a thread."""
        self.delete_threads([thread_id])

    def delete_threads(self, thread_ids: Sequence[str]) -> None:
        """Delete every checkpoint, value and write of these threads, in one transaction, then
        their data keys (so no copy of their blobs can be opened)."""
        ids = [str(thread_id) for thread_id in thread_ids]
        with self.lock, self.db.write_transaction():
            _maintenance.delete_threads(self.db, ids)
            self._deltas.forget_threads(ids)
        for thread_id in ids:  # a lock file named by the thread would say it was here
            self.db.forget_lock(_thread_lock(thread_id))
        if self.data_keys is not None:
            self._codec.forget(ids)
            self.data_keys.destroy([thread_key_id(thread_id) for thread_id in ids])

    def compact(self) -> None:
        """Rewrite the database and the key store without the space deleted rows took, so
        nothing deleted stays in their files (SQLite) or vacuum them (PostgreSQL)."""
        with self.lock:
            self.db.compact()
        if self.data_keys is not None:
            self.data_keys.compact()

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints (and their writes) made by these runs."""
        with self._sealing(), self.lock, self.db.write_transaction():
            threads = _maintenance.delete_for_runs(self._db(), run_ids)
            self._deltas.forget_threads(sorted(threads))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint, value and write of one thread to another (resealed)."""
        with self._sealing(), self.lock, self.db.write_transaction():
            _maintenance.copy_thread(
                self.db, self._codec, str(source_thread_id), str(target_thread_id)
            )
            self._deltas.forget_threads([str(target_thread_id)])

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Keep only the latest checkpoint of each namespace (``keep_latest``) or none
        (``delete``) of these threads; values nothing reaches any more are deleted too."""
        ids = [str(thread_id) for thread_id in thread_ids]
        with self._sealing(), self.lock, self.db.write_transaction():
            _maintenance.prune(self._db(), ids, strategy)
            self._deltas.forget_threads(ids)

    def delete_checkpoints(
        self, thread_id: str, checkpoint_ns: str, checkpoint_ids: Sequence[str]
    ) -> None:
        """Delete these checkpoints of a thread's namespace and their writes; values still
        reached by a remaining checkpoint (directly or as a delta's base) are kept."""
        with self._sealing(), self.lock, self.db.write_transaction():
            _maintenance.delete_checkpoints(
                self._db(), str(thread_id), checkpoint_ns, checkpoint_ids
            )
            self._deltas.forget_threads([str(thread_id)])

    # -- async: the database work on a worker thread ---------------------------------------

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """:meth:`get_tuple` on a worker thread."""
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """:meth:`list` on a worker thread (the matches are decoded before the first yield)."""
        items = await asyncio.to_thread(
            lambda: list(self.list(config, filter=filter, before=before, limit=limit))
        )
        for item in items:
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """:meth:`put` on a worker thread."""
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """:meth:`put_writes`, sealed on the event loop and committed on a worker thread
        together with the writes other coroutines queued meanwhile (one transaction)."""
        with self._sealing():
            rows = self._writer.write_rows(self.serde, config, writes, (task_id, task_path))
            await self._async_writes.submit(rows)

    async def adelete_thread(self, thread_id: str) -> None:
        """:meth:`delete_thread` on a worker thread."""
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """:meth:`delete_for_runs` on a worker thread."""
        await asyncio.to_thread(self.delete_for_runs, run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """:meth:`copy_thread` on a worker thread."""
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """:meth:`prune` on a worker thread."""
        await asyncio.to_thread(lambda: self.prune(thread_ids, strategy=strategy))

    def get_next_version(self, current: str | int | None, channel: None) -> str:
        """A version after ``current``: a zero-padded counter and a random fraction."""
        if current is None:
            counter = 0
        elif isinstance(current, int):
            counter = current
        else:
            counter = int(str(current).split(".")[0])
        return f"{counter + 1:032}.{random.random():016}"


def _thread_lock(thread_id: str) -> str:
    """The name of the lock a thread's runs hold."""
    return f"thread {thread_id}"
