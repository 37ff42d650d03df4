"""Reading a cadre checkpoint database: what :class:`~framework.persistence.saver.CadreSaver`
reads, without LangGraph's saver.

:class:`CheckpointReader` opens the database (encrypted or not, as it was made) and answers
``get_tuple`` and ``list`` as the saver does, with :class:`SavedCheckpoint` (the fields of
LangGraph's ``CheckpointTuple``). The saver is a reader that also writes, with LangGraph's
serializer. A reader on its own reads values with :class:`StoredFormSerializer`: cadre's
records and the standard library's types revived, a ``Send`` or an ``Interrupt`` as
:class:`StoredSend` or :class:`StoredInterrupt`, any other class (LangChain's messages) as it is
stored. So a command that only shows threads imports neither LangGraph's saver and types nor
LangChain's runnables and messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeAlias

from framework.persistence._manifests import check_head
from framework.persistence._read import (
    Reader,
    SavedCheckpoint,
    checkpoint_id_of,
    search,
    select_row,
    thread_and_namespace,
)
from framework.persistence._rows import RowCodec
from framework.persistence._schema import open_checkpoints
from framework.persistence._stored import StoredFormSerializer, StoredInterrupt, StoredSend

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import CheckpointTuple
    from langgraph.checkpoint.serde.base import SerializerProtocol

    from framework.persistence.cipher import BlobCipher
    from framework.persistence.data_keys import DataKeys

__all__ = [
    "AnyCheckpointTuple",
    "CheckpointReader",
    "SavedCheckpoint",
    "StoredFormSerializer",
    "StoredInterrupt",
    "StoredSend",
]

AnyCheckpointTuple: TypeAlias = "SavedCheckpoint | CheckpointTuple"
"""What a reader's ``get_tuple`` returns: a :class:`SavedCheckpoint`, or the saver's LangGraph
``CheckpointTuple`` (the same fields)."""


class CheckpointReader:
    """Reads a cadre checkpoint database on a SQLite file or a PostgreSQL database; thread-safe.

    Args:
        path: The database file, ``":memory:"``, or a ``postgresql://`` URL.
        cipher: Opens every blob; None for a plaintext database (a database is opened the way
            it was made).
        serde: Deserializes values (default: :class:`StoredFormSerializer`).
        data_keys: The key store of the threads' own data keys (with a cipher). Closed with
            the reader.

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
        data_keys: DataKeys | None = None,
    ) -> None:
        self.path = path
        self.cipher = cipher
        self.serde = serde or StoredFormSerializer()
        self.db = open_checkpoints(path, encrypted=cipher is not None)
        self.lock = self.db.lock
        self.data_keys = data_keys if cipher is not None else None
        self._codec = RowCodec(cipher, self.data_keys)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.db.label!r}, encrypted={self.encrypted})"

    @property
    def encrypted(self) -> bool:
        """Whether every blob is sealed."""
        return self.cipher is not None

    def close(self) -> None:
        """Close the connection (it cannot be used afterwards)."""
        with self.lock:
            self.db.close()
            if self.data_keys is not None:
                self.data_keys.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def get_tuple(self, config: RunnableConfig) -> AnyCheckpointTuple | None:
        """The checkpoint named by ``config``, or the latest of its thread and namespace.

        Raises:
            CryptoError: A blob of it is tampered, moved, plaintext or under an unknown key.
        """
        return self._read(config)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[AnyCheckpointTuple]:
        """Checkpoints matching ``config``, ``filter`` and ``before``, newest first.

        ``filter`` compares metadata values for equality, sealed keys included (those are
        checked after opening each candidate's body).
        """
        yield from self._listed(config, filter, before, limit)

    def _read(self, config: RunnableConfig) -> SavedCheckpoint | None:
        thread_id, checkpoint_ns = thread_and_namespace(config)
        with self.lock, self.db.read_transaction():
            checkpoint_id = checkpoint_id_of(config)
            row = select_row(self.db, thread_id, checkpoint_ns, checkpoint_id)
            if checkpoint_id is None:
                head = row.checkpoint_id if row is not None else None
                check_head(self.db, thread_id, checkpoint_ns, head)
            if row is None:
                return None
            reader = self._db()
            return reader.checkpoint_tuple(row, reader.body(row))

    def _listed(
        self,
        config: RunnableConfig | None,
        filter: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> Iterator[SavedCheckpoint]:
        with self.lock, self.db.read_transaction():
            found = search(self.db, config, filter, before, limit)
        left = found.limit
        reader = self._db()
        for thread_id, checkpoint_ns, checkpoint_id in found.keys:
            if left is not None and left <= 0:
                return
            with self.lock, self.db.read_transaction():
                row = select_row(self.db, thread_id, checkpoint_ns, checkpoint_id)
                if row is None:  # deleted since the search
                    continue
                body = reader.body(row)
                if any(body.metadata.get(k) != v for k, v in found.remaining_filter.items()):
                    continue
                item = reader.checkpoint_tuple(row, body)
            if left is not None:
                left -= 1
            yield item

    def _db(self) -> Reader:
        """A reader of this database with this reader's serializer (one per call: it keeps
        the rows it opened for the rest of the call)."""
        return Reader(self.db, self._codec, self.serde)
