"""What retention reads from a cadre SQLite checkpoint database directly: thread rows, their
sizes in bytes, and the file itself (VACUUM). Everything else goes through the saver's API."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from framework.persistence._sqlite_rows import TABLES
from framework.persistence._sqlite_schema import read_transaction
from framework.persistence.sqlite_saver import CadreSqliteSaver

__all__ = ["ThreadRow", "file_bytes", "row_sizes", "thread_rows", "vacuum"]


class ThreadRow(NamedTuple):
    """A thread, how many checkpoints it has, and where its newest checkpoint is."""

    thread_id: str
    checkpoints: int
    newest_ns: str
    newest_id: str


@contextmanager
def _reading(saver: CadreSqliteSaver) -> Iterator[None]:
    """The saver's lock and one read snapshot of its database."""
    with saver.lock, read_transaction(saver.conn):
        yield


def _row_bytes(columns: Sequence[str]) -> str:
    return " + ".join(f"coalesce(length({column}), 0)" for column in columns)


def row_sizes(saver: CadreSqliteSaver, thread_id: str | None = None) -> dict[str, int]:
    """Thread id -> the bytes of its rows in every table (of one thread, or of all):
    ids, plaintext columns and sealed blobs; indexes and free pages are not counted."""
    sizes: dict[str, int] = {}
    where, args = ("WHERE thread_id = ?", (thread_id,)) if thread_id is not None else ("", ())
    with _reading(saver):
        for table in TABLES:
            expression = _row_bytes((*table.columns, table.blob_column))
            for tid, size in saver.conn.execute(
                f"SELECT thread_id, sum({expression}) FROM {table.name} {where} GROUP BY 1", args
            ):
                sizes[str(tid)] = sizes.get(str(tid), 0) + int(size or 0)
    return sizes


def thread_rows(saver: CadreSqliteSaver) -> list[ThreadRow]:
    """Every thread of the database, most recently written first (checkpoint ids are UUIDv6:
    they sort by time)."""
    with _reading(saver):
        rows = saver.conn.execute(
            "SELECT thread_id, count(*), max(checkpoint_id) FROM cadre_checkpoints "
            "GROUP BY thread_id ORDER BY 3 DESC"
        ).fetchall()
        found = []
        for thread_id, count, newest in rows:
            (namespace,) = saver.conn.execute(
                "SELECT checkpoint_ns FROM cadre_checkpoints "
                "WHERE thread_id = ? AND checkpoint_id = ? LIMIT 1",
                (thread_id, newest),
            ).fetchone()
            found.append(ThreadRow(str(thread_id), int(count), str(namespace), str(newest)))
    return found


def file_bytes(path: Path) -> int:
    """The size of a database file with its write-ahead log."""
    wal = path.with_name(path.name + "-wal")
    return sum(os.path.getsize(item) for item in (path, wal) if item.is_file())


def vacuum(saver: CadreSqliteSaver) -> None:
    """Give the free pages back to the file system: the WAL is folded in and the file
    rewritten (this waits for writers, and needs as much free disk as the file)."""
    with saver.lock:
        saver.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        saver.conn.execute("VACUUM")
        saver.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
