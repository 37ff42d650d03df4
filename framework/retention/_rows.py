"""What retention reads from a cadre checkpoint database directly: thread rows and their sizes
in bytes, a thread's namespaces, and the task paths of pending writes (plaintext columns).
Everything else goes through the reader's API (a saver is a reader)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

from framework.persistence import TABLES

if TYPE_CHECKING:
    from framework.persistence.reader import CheckpointReader

__all__ = ["ThreadRow", "namespaces", "row_sizes", "task_paths", "thread_rows"]


class ThreadRow(NamedTuple):
    """A thread, how many checkpoints it has, and where its newest checkpoint is."""

    thread_id: str
    checkpoints: int
    newest_ns: str
    newest_id: str


@contextmanager
def _reading(saver: CheckpointReader) -> Iterator[None]:
    """The saver's lock and one read snapshot of its database."""
    with saver.lock, saver.db.read_transaction():
        yield


def row_sizes(saver: CheckpointReader, thread_id: str | None = None) -> dict[str, int]:
    """Thread id -> the bytes of its rows in every table (of one thread, or of all):
    ids, plaintext columns and sealed blobs; indexes and free pages are not counted."""
    sizes: dict[str, int] = {}
    where, args = ("WHERE thread_id = ?", (thread_id,)) if thread_id is not None else ("", ())
    with _reading(saver):
        for table in TABLES:
            columns = (*table.columns, table.blob_column)
            expression = " + ".join(saver.db.column_bytes(column) for column in columns)
            for tid, size in saver.db.execute(
                f"SELECT thread_id, sum({expression}) FROM {table.name} {where} GROUP BY 1", args
            ):
                sizes[str(tid)] = sizes.get(str(tid), 0) + int(size or 0)
    return sizes


def thread_rows(saver: CheckpointReader) -> list[ThreadRow]:
    """Every thread of the database, most recently written first (checkpoint ids are UUIDv6:
    they sort by time)."""
    with _reading(saver):
        rows = saver.db.execute(
            "SELECT thread_id, count(*), max(checkpoint_id) FROM cadre_checkpoints "
            "GROUP BY thread_id ORDER BY 3 DESC"
        ).fetchall()
        found = []
        for thread_id, count, newest in rows:
            (namespace,) = saver.db.execute(
                "SELECT checkpoint_ns FROM cadre_checkpoints "
                "WHERE thread_id = ? AND checkpoint_id = ? LIMIT 1",
                (thread_id, newest),
            ).fetchone()
            found.append(ThreadRow(str(thread_id), int(count), str(namespace), str(newest)))
    return found


def namespaces(saver: CheckpointReader, thread_id: str) -> list[str]:
    """The checkpoint namespaces of a thread (``""``, ``research_team:TASK_ID``, ...), sorted."""
    with _reading(saver):
        rows = saver.db.execute(
            "SELECT DISTINCT checkpoint_ns FROM cadre_checkpoints WHERE thread_id = ?",
            (thread_id,),
        ).fetchall()
    return sorted(str(namespace) for (namespace,) in rows)


def task_paths(
    saver: CheckpointReader, thread_id: str, checkpoint_ns: str, checkpoint_id: str
) -> dict[str, str]:
    """Task id -> its task path (``~__pregel_pull, NODE``, ``~__pregel_push, INDEX, ...``), for
    the tasks with pending writes on one checkpoint."""
    with _reading(saver):
        rows = saver.db.execute(
            "SELECT DISTINCT task_id, task_path FROM cadre_writes "
            "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
            (thread_id, checkpoint_ns, checkpoint_id),
        ).fetchall()
    return {str(task_id): str(path) for task_id, path in rows}
