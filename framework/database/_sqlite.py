"""SQLite: one file in WAL mode, autocommit with explicit transactions, file locks per name."""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from framework.database._base import Cursor, Database
from framework.database._files import out_of_space, private_file
from framework.errors import ConfigError, DatabaseBusyError, ThreadBusyError

__all__ = ["BUSY_TIMEOUT_MS", "SqliteDatabase"]

BUSY_TIMEOUT_MS = 10_000
"""How long a connection waits for another process's write lock before failing."""

_MEMORY = ":memory:"


class SqliteDatabase(Database):
    """A SQLite file (created with its folder, mode 0600) or ``":memory:"``.

    WAL journal and ``synchronous=NORMAL``: a committed transaction survives a killed process;
    a power cut may lose the last ones, never corrupt the file. A full device raises
    StorageFullError naming the file, from any statement; the transaction is rolled back.

    Raises:
        ConfigError: The file cannot be opened or is not a SQLite database.
        StorageFullError: The device holding the file is full.
    """

    blob_type = "BLOB"

    def __init__(self, path: Path | str) -> None:
        super().__init__(str(path))
        self.path = path
        try:
            if str(path) != _MEMORY:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                private_file(Path(path))
            self.conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            self._raise_if_full(exc)
            raise ConfigError(f"cannot open {path}: {exc}; pass a writable file path") from exc
        try:
            self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            _to_wal(self.conn)
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA secure_delete=ON")  # deleted rows are zeroed in the file
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            self._raise_if_full(exc)
            if type(exc) is sqlite3.DatabaseError:  # not a busy or I/O error: not a database
                raise ConfigError(
                    f"cannot open {path}: it is not a SQLite database ({exc}); choose another file"
                ) from None
            raise

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement."""
        try:
            return self.conn.execute(sql, params)
        except sqlite3.OperationalError as exc:
            self._raise_if_full(exc)
            raise

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        """Run one statement per row; how many rows they changed."""
        try:
            return self.conn.executemany(sql, rows).rowcount
        except sqlite3.OperationalError as exc:
            self._raise_if_full(exc)
            raise

    @contextmanager
    def write_transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back if the block or the commit raises."""
        self.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.execute("COMMIT")
        except BaseException:
            self._roll_back()
            raise

    @contextmanager
    def read_transaction(self) -> Iterator[None]:
        """A deferred transaction: the reads inside see one snapshot."""
        self.execute("BEGIN")
        try:
            yield
        finally:
            if self.conn.in_transaction:  # (a full disk may have ended it)
                self.conn.execute("COMMIT")

    def _roll_back(self) -> None:
        """End the open transaction, if any (SQLite rolls back by itself on a full disk)."""
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def _raise_if_full(self, error: BaseException) -> None:
        """Raise StorageFullError naming the file if ``error`` means its device is full."""
        if str(self.path) != _MEMORY and (full := out_of_space(error, self.path)) is not None:
            raise full from error

    def json_text(self, column: str, key: str) -> str:
        """``json_extract`` of ``key``, cast to text."""
        return f"CAST(json_extract({column}, '$.{key}') AS TEXT)"

    def column_bytes(self, column: str) -> str:
        """``length``: bytes of a blob, characters of text, digits of a number."""
        return f"coalesce(length({column}), 0)"

    def table_names(self) -> set[str]:
        """The tables of the file."""
        rows = self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {str(name) for (name,) in rows}

    def column_names(self, table: str) -> set[str]:
        """The columns of ``table`` in the file."""
        return {str(row[1]) for row in self.conn.execute(f"PRAGMA table_info({table})")}

    def size_bytes(self) -> int:
        """The file and its write-ahead log."""
        if str(self.path) == _MEMORY:
            return 0
        path = Path(self.path)
        wal = path.with_name(path.name + "-wal")
        return sum(os.path.getsize(item) for item in (path, wal) if item.is_file())

    def compact(self) -> None:
        """Fold the log in and rewrite the file, then empty the log (waits for writers and
        readers; needs the file's size free).

        Raises:
            DatabaseBusyError: Another connection kept reading until the wait ran out, so the
                log still holds old pages.
        """
        self._fold_log()
        self.execute("VACUUM")
        self._fold_log()

    def _fold_log(self) -> None:
        """``wal_checkpoint(TRUNCATE)`` until it reports every page copied and the log empty."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            busy, _, _ = self.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if not busy:
                return
            if time.monotonic() > deadline:
                raise DatabaseBusyError(
                    f"{self.path}: another connection kept reading, so its log could not be"
                    " emptied; stop the other cadre processes on this home and run it again"
                )
            time.sleep(0.05)

    @contextmanager
    def hold(self, name: str, busy: str) -> Iterator[None]:
        """An exclusive ``flock`` on a file in ``locks/`` beside the database, one per name."""
        lock = self._held_here(name, busy) if str(self.path) == _MEMORY else self._flock(name, busy)
        with lock:
            yield

    @contextmanager
    def wait_for(self, name: str) -> Iterator[None]:
        """The same file lock, waited for (nothing to wait for in memory: one process)."""
        if str(self.path) == _MEMORY:
            yield
            return
        with self._flock(name, busy=None):
            yield

    def _lock_file(self, name: str) -> Path:
        database = Path(self.path)
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:32]
        return database.parent / "locks" / f"{database.name}-{digest}"

    def notify(self, channel: str, payload: str) -> None:
        """Nothing: SQLite has no notifications (its readers poll)."""

    def forget_lock(self, name: str) -> None:
        """Remove the lock file of ``name`` (what it locked is gone: a deleted thread)."""
        if str(self.path) != _MEMORY:
            self._lock_file(name).unlink(missing_ok=True)

    @contextmanager
    def _flock(self, name: str, busy: str | None) -> Iterator[None]:
        """The file lock of ``name``: waited for, or refused with ThreadBusyError(``busy``)."""
        path = self._lock_file(name)
        path.parent.mkdir(mode=0o700, exist_ok=True)
        with private_file(path).open("rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | (fcntl.LOCK_NB if busy is not None else 0))
            except BlockingIOError:
                raise ThreadBusyError(busy) from None
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


def _to_wal(conn: sqlite3.Connection) -> None:
    """Switch ``conn``'s file to the WAL journal, trying again while another connection holds
    the lock the switch needs: SQLite answers "database is locked" at once there, without its
    busy handler (two processes opening a new file together), for up to the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(_WAL_RETRY_S)


_WAL_RETRY_S = 0.01
