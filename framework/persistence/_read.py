"""Reading checkpoints back: rows to :class:`SavedCheckpoint`, deltas applied, filters honoured.

Light to import: LangGraph's checkpoint types are only annotations here (importing them imports
LangChain's runnables), so the commands that only show threads read without them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from framework.database import Database
from framework.errors import IncompleteCheckpointError, TamperError
from framework.persistence._bundles import (
    BUNDLE_TYPE,
    Bundle,
    is_member_marker,
    read_marker,
    unpack,
)
from framework.persistence._chunks import Chunker
from framework.persistence._deltas import EMPTY, FULL, KINDS, DeltaError, rebuild
from framework.persistence._manifests import Checker, Manifest
from framework.persistence._rows import (
    PUBLIC_METADATA_KEYS,
    RowCodec,
    blob_ad,
    checkpoint_ad,
    merge_metadata,
    write_ad,
)

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import (
        ChannelVersions,
        Checkpoint,
        CheckpointMetadata,
        PendingWrite,
    )
    from langgraph.checkpoint.serde.base import SerializerProtocol

__all__ = [
    "Body",
    "CheckpointRow",
    "Reader",
    "SavedCheckpoint",
    "Search",
    "WriteOpener",
    "checkpoint_id_of",
    "search",
    "select_row",
    "thread_and_namespace",
]

MAX_CHAIN = 100_000
"""A delta chain longer than this is a loop in an altered database, not data."""

MEMO_SIZE = 4096
"""How many opened blob rows a :class:`Reader` keeps for the rest of its call."""

_COLUMNS = "thread_id, checkpoint_ns, checkpoint_id, parent_id, metadata, body"

Typed = tuple[str, bytes]


@dataclass(frozen=True, slots=True)
class CheckpointRow:
    """One ``cadre_checkpoints`` row, as stored."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_id: str | None
    metadata: str
    body: bytes


class SavedCheckpoint(NamedTuple):
    """A checkpoint read back: the fields of LangGraph's ``CheckpointTuple``, which
    :class:`~framework.persistence.saver.CadreSaver` returns made from these."""

    config: RunnableConfig
    checkpoint: Checkpoint
    metadata: CheckpointMetadata
    parent_config: RunnableConfig | None = None
    pending_writes: list[PendingWrite] | None = None


def checkpoint_id_of(config: RunnableConfig) -> str | None:
    """The checkpoint a config names, if any (LangGraph's ``get_checkpoint_id``)."""
    checkpoint_id: str | None = config["configurable"].get("checkpoint_id")
    return checkpoint_id


def thread_and_namespace(config: RunnableConfig) -> tuple[str, str]:
    """The thread id and checkpoint namespace ``config`` names (the namespace defaults to "")."""
    configurable = config["configurable"]
    return str(configurable["thread_id"]), str(configurable.get("checkpoint_ns", ""))


def _writes_order(task_path: str, task_id: str, idx: int) -> tuple[str, str, int]:
    """The order LangGraph applies one step's writes in (its ``writes_sort_key``)."""
    return (task_path, task_id, idx)


class Body(NamedTuple):
    """What a checkpoint's sealed body holds."""

    checkpoint: dict[str, Any]
    """The checkpoint without its channel values."""
    metadata: CheckpointMetadata
    """The full metadata (plaintext column and sealed part)."""
    manifested: bool
    """Whether the checkpoint has a manifest to check (written under schema 2)."""


def select_row(
    db: Database, thread_id: str, checkpoint_ns: str, checkpoint_id: str | None
) -> CheckpointRow | None:
    """The row of ``checkpoint_id``, or the latest of the thread's namespace when None."""
    if checkpoint_id:
        row = db.execute(
            f"SELECT {_COLUMNS} FROM cadre_checkpoints "
            "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
            (thread_id, checkpoint_ns, checkpoint_id),
        ).fetchone()
    else:
        row = db.execute(
            f"SELECT {_COLUMNS} FROM cadre_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
            "ORDER BY checkpoint_id DESC LIMIT 1",
            (thread_id, checkpoint_ns),
        ).fetchone()
    return CheckpointRow(*row) if row is not None else None


@dataclass(frozen=True, kw_only=True)
class Search:
    """A ``list`` call split into what SQL selects and what is checked after decoding."""

    keys: list[tuple[str, str, str]]
    """(thread id, namespace, checkpoint id) of each candidate, newest first; read each with
    :func:`select_row` (so a long listing does not hold every body in memory)."""
    remaining_filter: dict[str, Any]
    limit: int | None
    """The limit still to apply in Python (None when SQL applied it or there is none)."""


def search(
    db: Database,
    config: RunnableConfig | None,
    filter: Mapping[str, Any] | None,
    before: RunnableConfig | None,
    limit: int | None,
) -> Search:
    """Select the candidate rows of a ``list`` call, newest first.

    Thread, namespace, checkpoint id, ``before`` and the allowlisted metadata keys with a value
    of their allowlisted type are matched in SQL; any other filter key is left for after
    decoding.
    """
    wheres: list[str] = []
    params: list[Any] = []
    if config is not None:
        configurable = config["configurable"]
        wheres.append("thread_id = ?")
        params.append(str(configurable["thread_id"]))
        if configurable.get("checkpoint_ns") is not None:
            wheres.append("checkpoint_ns = ?")
            params.append(configurable["checkpoint_ns"])
        if checkpoint_id := checkpoint_id_of(config):
            wheres.append("checkpoint_id = ?")
            params.append(checkpoint_id)
    if before is not None and (before_id := checkpoint_id_of(before)):
        wheres.append("checkpoint_id < ?")
        params.append(before_id)
    remaining: dict[str, Any] = {}
    for key, value in (filter or {}).items():
        if key in PUBLIC_METADATA_KEYS and type(value) is PUBLIC_METADATA_KEYS[key]:
            # the column holds only values of the allowlisted type: text equality is exact
            wheres.append(f"{db.json_text('metadata', key)} = ?")
            params.append(str(value))
        else:
            remaining[key] = value
    query = "SELECT thread_id, checkpoint_ns, checkpoint_id FROM cadre_checkpoints"
    if wheres:
        query += " WHERE " + " AND ".join(wheres)
    query += " ORDER BY checkpoint_id DESC"
    if limit is not None and not remaining:
        query += " LIMIT ?"
        params.append(limit)
    keys = [(row[0], row[1], row[2]) for row in db.execute(query, params)]
    return Search(keys=keys, remaining_filter=remaining, limit=limit if remaining else None)


class Reader:
    """Decodes checkpoint rows; remembers the blob rows it opened for the rest of one call.

    Args:
        db: The database (the caller holds its lock, inside a read transaction).
        codec: Opens sealed blobs.
        serde: Deserializes them.
    """

    def __init__(self, db: Database, codec: RowCodec, serde: SerializerProtocol) -> None:
        self.db = db
        self.codec = codec
        self.serde = serde
        self._links: dict[tuple[str, str, str, str], tuple[str, str | None, Typed] | None] = {}
        self._checker = Checker(db, codec)
        self.chunker = Chunker(db, codec)

    def body(self, row: CheckpointRow) -> Body:
        """What the sealed body of ``row`` holds, with the full metadata."""
        ad = checkpoint_ad(
            row.thread_id, row.checkpoint_ns, row.checkpoint_id, row.parent_id, row.metadata
        )
        body = self.serde.loads_typed(self.codec.open(row.body, ad))
        metadata = merge_metadata(row.metadata, body["metadata"])
        manifested = bool(body.get("manifest"))
        return Body(body["checkpoint"], cast("CheckpointMetadata", metadata), manifested)

    def checkpoint_tuple(self, row: CheckpointRow, body: Body) -> SavedCheckpoint:
        """The tuple of ``row`` with its channel values and pending writes loaded, and
        everything its manifest promises checked.

        Raises:
            IncompleteCheckpointError: Its manifest, parent, a channel value or a recorded
                write is missing.
        """
        thread_id, checkpoint_ns = row.thread_id, row.checkpoint_ns
        key = (thread_id, checkpoint_ns, row.checkpoint_id)
        manifest = self._checker.manifest(key) if body.manifested else None
        checkpoint = body.checkpoint
        values = self.values(key, checkpoint.get("channel_versions", {}))
        full = cast("Checkpoint", {**checkpoint, "channel_values": values})
        parent: RunnableConfig | None = None
        if row.parent_id:
            parent = _config(thread_id, checkpoint_ns, row.parent_id)
        return SavedCheckpoint(
            config=_config(thread_id, checkpoint_ns, row.checkpoint_id),
            checkpoint=full,
            metadata=body.metadata,
            parent_config=parent,
            pending_writes=self.writes(key, manifest),
        )

    def values(self, key: tuple[str, str, str], versions: ChannelVersions) -> dict[str, Any]:
        """Every channel's value at ``versions`` for checkpoint ``key``; channels stored empty
        are left out.

        Raises:
            IncompleteCheckpointError: A version the checkpoint names is not stored.
        """
        thread_id, checkpoint_ns, checkpoint_id = key
        values: dict[str, Any] = {}
        for channel, version in versions.items():
            links = self._chain(thread_id, checkpoint_ns, channel, str(version))
            if links is None:
                raise IncompleteCheckpointError(
                    f"checkpoint {checkpoint_id} of thread {thread_id} (namespace "
                    f"{checkpoint_ns or 'top'}) is incomplete: the value of channel {channel!r} "
                    f"(version {version}) is missing; rows were deleted from the database "
                    "outside cadre (restore it from a backup)"
                )
            if links[0][0] != EMPTY:
                values[channel] = self._rebuild(channel, links)
        return values

    def _rebuild(self, channel: str, links: list[tuple[str, Typed]]) -> Any:
        try:
            return rebuild(self.serde, links)
        except DeltaError as exc:
            raise TamperError(
                f"channel {channel!r}: its stored value does not decode ({exc})"
            ) from None

    def _chain(
        self, thread_id: str, checkpoint_ns: str, channel: str, version: str
    ) -> list[tuple[str, Typed]] | None:
        """The rows from ``version`` back to its full value, newest first; None if absent."""
        links: list[tuple[str, Typed]] = []
        current = version
        while len(links) < MAX_CHAIN:
            link = self._link(thread_id, checkpoint_ns, channel, current)
            if link is None:
                if not links:
                    return None
                raise TamperError(
                    f"channel {channel!r} version {version!r} is stored as deltas reaching back "
                    f"to version {current!r}, which is missing: the database was altered"
                )
            kind, base, typed = link
            links.append((kind, typed))
            if base is None:
                return links
            current = base
        raise TamperError(f"channel {channel!r}: its delta chain loops; the database was altered")

    def _link(
        self, thread_id: str, checkpoint_ns: str, channel: str, version: str
    ) -> tuple[str, str | None, Typed] | None:
        key = (thread_id, checkpoint_ns, channel, version)
        if key in self._links:
            return self._links[key]
        row = self.db.execute(
            "SELECT kind, base_version, value FROM cadre_blobs "
            "WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?",
            key,
        ).fetchone()
        link: tuple[str, str | None, Typed] | None = None
        if row is not None:
            kind, base, blob = row
            typed = self.chunker.unpack(
                thread_id,
                self.codec.open(blob, blob_ad(*key, kind, base)),
                f"channel {channel!r} version {version}",
            )
            if kind not in KINDS or (base is None) != (kind in (FULL, EMPTY)):
                raise TamperError(f"channel {channel!r} version {version!r}: unknown kind {kind!r}")
            link = (kind, base, typed)
        if len(self._links) >= MEMO_SIZE:
            self._links.clear()
        self._links[key] = link
        return link

    def writes(self, key: tuple[str, str, str], manifest: Manifest | None) -> list[PendingWrite]:
        """The pending writes of checkpoint ``key`` in LangGraph's order, checked
        against its manifest when it has one."""
        rows = self.db.execute(
            "SELECT task_id, idx, channel, task_path, value FROM cadre_writes "
            "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
            key,
        ).fetchall()
        if manifest is not None:
            self._checker.writes(key, manifest, ((r[0], r[1]) for r in rows))
        rows.sort(key=lambda r: _writes_order(r[3], r[0], r[1]))
        opener = WriteOpener(self.codec, key, rows)
        return [
            (task_id, channel, self.serde.loads_typed(self._write(opener, key, task_id, idx)))
            for task_id, idx, channel, _, _ in rows
        ]

    def _write(self, opener: WriteOpener, key: tuple[str, str, str], task: str, idx: int) -> Typed:
        where = f"write {idx} of task {task} on checkpoint {key[2]}"
        return self.chunker.unpack(key[0], opener.typed(task, idx), where)


class WriteOpener:
    """Opens the pending writes of one checkpoint, bundles included (see ``_bundles``)."""

    def __init__(
        self, codec: RowCodec, checkpoint: tuple[str, str, str], rows: list[tuple[Any, ...]]
    ) -> None:
        self.codec = codec
        self.checkpoint = checkpoint
        self.rows = {(row[0], row[1]): row for row in rows}
        self.bundles: dict[tuple[str, int], Bundle] = {}

    def typed(self, task_id: str, idx: int) -> Typed:
        """The serialized value of one write (opened from its head when bundled)."""
        blob = self.rows[(task_id, idx)][4]
        if is_member_marker(blob):
            head, call_id = read_marker(blob)
            return self._member(task_id, head, call_id, idx)
        if (task_id, idx) not in self.bundles:
            typed = self._open(task_id, idx)
            if typed[0] != BUNDLE_TYPE:
                return typed
            self._bundle(task_id, idx, typed[1])
        return self._member(task_id, idx, self.bundles[(task_id, idx)][0], idx)

    def _member(self, task_id: str, head: int, call_id: bytes, idx: int) -> Typed:
        bundle_id, members = self._opened(task_id, head)
        entry = members.get(idx)
        if bundle_id != call_id or entry is None or entry[0] != self.rows[(task_id, idx)][2]:
            raise TamperError(
                f"pending write {idx} of task {task_id!r} is not the one its bundle sealed: "
                "the database was altered"
            )
        return entry[1]

    def _opened(self, task_id: str, head: int) -> Bundle:
        if (task_id, head) not in self.bundles:
            row = self.rows.get((task_id, head))
            typed = self._open(task_id, head) if row and not is_member_marker(row[4]) else None
            if typed is None or typed[0] != BUNDLE_TYPE:
                raise TamperError(
                    f"a pending write of task {task_id!r} names a bundle at write {head} that "
                    "is not there: the database was altered"
                )
            self._bundle(task_id, head, typed[1])
        return self.bundles[(task_id, head)]

    def _open(self, task_id: str, idx: int) -> Typed:
        _, _, channel, path, blob = self.rows[(task_id, idx)]
        return self.codec.open(blob, write_ad(*self.checkpoint, task_id, idx, channel, path))

    def _bundle(self, task_id: str, head: int, data: bytes) -> Bundle:
        bundle = self.bundles[(task_id, head)] = unpack(data)
        missing = [idx for idx in bundle[1] if (task_id, idx) not in self.rows]
        if missing:
            raise TamperError(
                f"pending writes {missing} of task {task_id!r} were deleted from their bundle: "
                "the database was altered"
            )
        return bundle


def _config(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> RunnableConfig:
    return {
        "configurable": {
            "thread_id": thread_id,
            "checkpoint_ns": checkpoint_ns,
            "checkpoint_id": checkpoint_id,
        }
    }
