"""Deleting, copying and pruning checkpoints without breaking the delta chains they rely on.

Channel values are shared between checkpoints (a value is stored once per version) and a delta
needs its base, so checkpoints are deleted first and the values no remaining checkpoint reaches
are collected afterwards (:func:`collect_garbage`). Every function here runs inside the
caller's write transaction, on the connection of a :class:`Reader` (it opens the bodies).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from framework.database import Database
from framework.errors import ConfigError
from framework.persistence import _manifests
from framework.persistence._bundles import is_member_marker
from framework.persistence._chunks import referenced_digests
from framework.persistence._read import CheckpointRow, Reader, WriteOpener
from framework.persistence._rows import TABLES, RowCodec, blob_ad, upsert_into

__all__ = [
    "PRUNE_STRATEGIES",
    "collect_garbage",
    "copy_thread",
    "delete_checkpoints",
    "delete_for_runs",
    "delete_threads",
    "prune",
]

PRUNE_STRATEGIES = ("keep_latest", "delete")
"""``keep_latest`` keeps the newest checkpoint of each namespace; ``delete`` removes all."""

_ROW = "thread_id, checkpoint_ns, checkpoint_id, parent_id, metadata, body"


def delete_threads(db: Database, thread_ids: Iterable[str]) -> None:
    """Remove every checkpoint, value and write of these threads."""
    ids = [(str(thread_id),) for thread_id in thread_ids]
    for table in TABLES:
        db.executemany(f"DELETE FROM {table.name} WHERE thread_id = ?", ids)


def delete_checkpoints(
    reader: Reader, thread_id: str, checkpoint_ns: str, checkpoint_ids: Iterable[str]
) -> None:
    """Remove these checkpoints, their writes and manifests, then the values nothing else
    reaches; a checkpoint that stays and loses its parent is relinked to its nearest ancestor
    that stays (seal inside ``cipher.sealing()``)."""
    ids = list(checkpoint_ids)
    _manifests.relink(reader.db, reader.codec, thread_id, checkpoint_ns, ids)
    keys = [(thread_id, checkpoint_ns, checkpoint_id) for checkpoint_id in ids]
    where = "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?"
    for table in ("cadre_checkpoints", "cadre_writes", "cadre_manifests"):
        reader.db.executemany(f"DELETE FROM {table} {where}", keys)
    collect_garbage(reader, thread_id, checkpoint_ns)


def delete_for_runs(reader: Reader, run_ids: Sequence[str]) -> set[str]:
    """Remove the checkpoints whose metadata names one of ``run_ids``; the threads touched."""
    found: dict[tuple[str, str], list[str]] = {}
    for run_id in run_ids:
        for thread_id, checkpoint_ns, checkpoint_id in reader.db.execute(
            "SELECT thread_id, checkpoint_ns, checkpoint_id FROM cadre_checkpoints "
            f"WHERE {reader.db.json_text('metadata', 'run_id')} = ?",
            (str(run_id),),
        ):
            found.setdefault((thread_id, checkpoint_ns), []).append(checkpoint_id)
    for (thread_id, checkpoint_ns), checkpoint_ids in found.items():
        delete_checkpoints(reader, thread_id, checkpoint_ns, checkpoint_ids)
    return {thread_id for thread_id, _ in found}


def prune(reader: Reader, thread_ids: Sequence[str], strategy: str) -> None:
    """Prune these threads by ``strategy`` (one of :data:`PRUNE_STRATEGIES`).

    Raises:
        ConfigError: ``strategy`` is unknown.
    """
    if strategy not in PRUNE_STRATEGIES:
        raise ConfigError(f"unknown prune strategy {strategy!r}: choose one of {PRUNE_STRATEGIES}")
    if strategy == "delete":
        delete_threads(reader.db, thread_ids)
        return
    for thread_id in thread_ids:
        namespaces = reader.db.execute(
            "SELECT checkpoint_ns, max(checkpoint_id) FROM cadre_checkpoints "
            "WHERE thread_id = ? GROUP BY checkpoint_ns",
            (str(thread_id),),
        ).fetchall()
        for checkpoint_ns, latest in namespaces:
            older = [
                row[0]
                for row in reader.db.execute(
                    "SELECT checkpoint_id FROM cadre_checkpoints "
                    "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?",
                    (str(thread_id), checkpoint_ns, latest),
                )
            ]
            delete_checkpoints(reader, str(thread_id), checkpoint_ns, older)


def copy_thread(db: Database, codec: RowCodec, source: str, target: str) -> None:
    """Copy every row of thread ``source`` to thread ``target``, each resealed for its new row."""
    for table in TABLES:
        columns = (*table.columns, table.blob_column)
        names = ", ".join(columns)
        rows = db.execute(
            f"SELECT {names} FROM {table.name} WHERE thread_id = ?", (source,)
        ).fetchall()
        copied = []
        for row in rows:
            keys, blob = row[:-1], row[-1]
            moved = (target, *keys[1:])
            if not is_member_marker(blob):  # a marker names its head, which moves along
                blob = codec.reseal(blob, table.ad(*keys), table.ad(*moved))
            copied.append((*moved, blob))
        db.executemany(upsert_into(table, replace=True), copied)


def collect_garbage(reader: Reader, thread_id: str, checkpoint_ns: str) -> int:
    """Delete the values of a thread's namespace no checkpoint reaches; how many were deleted.

    A value is reached when a remaining checkpoint names its version, or a reached delta is
    based on it. Reading the versions opens each remaining checkpoint's body.
    """
    live: list[tuple[str, str]] = []
    for row in reader.db.execute(
        f"SELECT {_ROW} FROM cadre_checkpoints WHERE thread_id = ? AND checkpoint_ns = ?",
        (thread_id, checkpoint_ns),
    ).fetchall():
        versions = reader.body(CheckpointRow(*row)).checkpoint.get("channel_versions", {})
        live.extend((channel, str(version)) for channel, version in versions.items())
    bases: dict[tuple[str, str], str | None] = {
        (channel, version): base
        for channel, version, base in reader.db.execute(
            "SELECT channel, version, base_version FROM cadre_blobs "
            "WHERE thread_id = ? AND checkpoint_ns = ?",
            (thread_id, checkpoint_ns),
        )
    }
    reached: set[tuple[str, str]] = set()
    while live:
        key = live.pop()
        if key in reached or key not in bases:
            continue
        reached.add(key)
        base = bases[key]
        if base is not None:
            live.append((key[0], base))
    dead = [(thread_id, checkpoint_ns, *key) for key in bases if key not in reached]
    reader.db.executemany(
        "DELETE FROM cadre_blobs "
        "WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?",
        dead,
    )
    collect_chunks(reader, thread_id)
    return len(dead)


def collect_chunks(reader: Reader, thread_id: str) -> int:
    """Delete the chunks of large values no value or write of the thread names any more; how
    many were deleted. Opens every value and write of the thread, only when it has chunks."""
    db = reader.db
    if (
        db.execute(
            "SELECT 1 FROM cadre_chunks WHERE thread_id = ? LIMIT 1", (thread_id,)
        ).fetchone()
        is None
    ):
        return 0
    named: set[str] = set()
    for namespace, channel, version, kind, base, blob in db.execute(
        "SELECT checkpoint_ns, channel, version, kind, base_version, value FROM cadre_blobs "
        "WHERE thread_id = ?",
        (thread_id,),
    ).fetchall():
        ad = blob_ad(thread_id, namespace, channel, version, kind, base)
        named.update(referenced_digests(reader.codec.open(bytes(blob), ad)))
    writes: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for namespace, checkpoint_id, *row in db.execute(
        "SELECT checkpoint_ns, checkpoint_id, task_id, idx, channel, task_path, value "
        "FROM cadre_writes WHERE thread_id = ?",
        (thread_id,),
    ).fetchall():
        writes.setdefault((namespace, checkpoint_id), []).append(tuple(row))
    for (namespace, checkpoint_id), rows in writes.items():
        opener = WriteOpener(reader.codec, (thread_id, namespace, checkpoint_id), rows)
        for task_id, idx, *_ in rows:
            named.update(referenced_digests(opener.typed(task_id, idx)))
    return reader.chunker.collect(thread_id, named)
