"""The interface every backend implements, and what callers may rely on."""

from __future__ import annotations

import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, ClassVar, Protocol

from framework.errors import DatabaseUnavailable, ThreadBusyError

__all__ = ["Cursor", "Database", "database_gone", "redact_url"]

_LOST_STATES = ("08", "57P")
"""SQLSTATE classes of a connection lost or refused (08: connection exception; 57P01-03: the
server shut down, crashed, or cannot take connections yet)."""


class Cursor(Protocol):
    """What a statement returns: rows to fetch or iterate, and how many rows it changed."""

    @property
    def rowcount(self) -> int:
        """Rows changed by the statement."""
        ...

    def fetchone(self) -> Any:
        """The next row, or None."""
        ...

    def fetchall(self) -> list[Any]:
        """The remaining rows."""
        ...

    def __iter__(self) -> Iterator[Any]:
        """The remaining rows, one at a time."""
        ...


class Database(ABC):
    """One connection to a database, shared by threads that hold :attr:`lock` around each use.

    Statements use ``?`` placeholders and SQL both backends accept; DDL writes ``{blob}`` for
    the binary column type.
    """

    blob_type: ClassVar[str]
    """The binary column type (``BLOB`` or ``BYTEA``)."""

    def __init__(self, label: str) -> None:
        self.label = label
        """The file path or the URL without its password, for messages."""
        self.lock = threading.RLock()
        self._held: set[str] = set()

    def answers(self) -> bool:
        """Whether the database answers a statement now (opening the connection again if it
        was lost)."""
        try:
            with self.lock:
                self.execute("SELECT 1").fetchone()
        except Exception as error:
            if database_gone(error):
                return False
            raise
        return True

    @abstractmethod
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement."""

    @abstractmethod
    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        """Run one statement per row; how many rows they changed in all."""

    @abstractmethod
    def write_transaction(self) -> AbstractContextManager[None]:
        """A transaction that will write: committed at the end, rolled back if the block
        raises (SQLite takes the write lock at its start)."""

    @abstractmethod
    def read_transaction(self) -> AbstractContextManager[None]:
        """A transaction whose reads see one snapshot."""

    def schema_transaction(self) -> AbstractContextManager[None]:
        """A write transaction for creating tables, one process at a time: processes opening a
        fresh database at once never race on its ``CREATE TABLE IF NOT EXISTS``."""
        return self.write_transaction()

    @abstractmethod
    def json_text(self, column: str, key: str) -> str:
        """An expression reading ``key`` of the JSON object in text ``column`` as SQL text."""

    @abstractmethod
    def column_bytes(self, column: str) -> str:
        """An expression for the bytes ``column`` takes in a row (0 for NULL)."""

    @abstractmethod
    def table_names(self) -> set[str]:
        """The tables there are (in this component's schema, for PostgreSQL)."""

    @abstractmethod
    def column_names(self, table: str) -> set[str]:
        """The columns of ``table`` (empty when there is no such table)."""

    def add_columns(self, table: str, columns: Iterable[tuple[str, str]]) -> None:
        """Add the ``(name, declaration)`` columns ``table`` lacks (inside a schema
        transaction); a declaration with ``NOT NULL`` needs a ``DEFAULT``, and ``{blob}``
        stands for the binary type."""
        present = self.column_names(table)
        for name, declaration in columns:
            if name not in present:
                self.execute(self.ddl(f"ALTER TABLE {table} ADD COLUMN {name} {declaration}"))

    @abstractmethod
    def size_bytes(self) -> int:
        """What the component takes on disk (the file with its log, or its tables)."""

    @abstractmethod
    def compact(self) -> None:
        """Give space freed by deletes back (SQLite rewrites the file; PostgreSQL vacuums)."""

    @abstractmethod
    def hold(self, name: str, busy: str) -> AbstractContextManager[None]:
        """Hold the lock called ``name`` against every other process and connection while
        the block runs; released when it ends or the process dies.

        Raises:
            ThreadBusyError: Someone else holds it; ``busy`` is its message.
        """

    @abstractmethod
    def wait_for(self, name: str) -> AbstractContextManager[None]:
        """Hold the lock called ``name`` against other processes while the block runs,
        waiting until they release it (not re-entrant: take it once per process)."""

    @abstractmethod
    def forget_lock(self, name: str) -> None:
        """Remove what the lock called ``name`` leaves behind once what it locked is gone
        (SQLite: its lock file; PostgreSQL's advisory locks leave nothing)."""

    @abstractmethod
    def notify(self, channel: str, payload: str) -> None:
        """Tell the listeners of ``channel`` (PostgreSQL's ``NOTIFY``; SQLite has none, its
        readers poll)."""

    @abstractmethod
    def close(self) -> None:
        """Close the connection."""

    @contextmanager
    def _held_here(self, name: str, busy: str) -> Iterator[None]:
        """Mark ``name`` held by this connection for the block; ThreadBusyError(``busy``) when
        another user of this connection holds it already."""
        with self.lock:
            if name in self._held:
                raise ThreadBusyError(busy)
            self._held.add(name)
        try:
            yield
        finally:
            with self.lock:
                self._held.discard(name)

    def ddl(self, statement: str) -> str:
        """``statement`` with this backend's binary type in place of ``{blob}``."""
        return statement.replace("{blob}", self.blob_type)


def redact_url(url: str) -> str:
    """``url`` without its password, for messages."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    return f"{scheme}{sep}{credentials.split(':', 1)[0]}:***@{host}"


def database_gone(error: BaseException) -> bool:
    """Whether ``error``, or an error that caused it, is the database not answering (down,
    restarting, unreachable), as opposed to a statement it refused: work that failed so can
    be tried again once it answers."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, DatabaseUnavailable) or _lost_connection(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def _lost_connection(error: BaseException) -> bool:
    """A psycopg error of a connection that broke (psycopg is looked up only if imported:
    without it no such error exists)."""
    psycopg = sys.modules.get("psycopg")
    if psycopg is None:
        return False
    if isinstance(error, psycopg.InterfaceError):
        return True
    if not isinstance(error, psycopg.OperationalError):
        return False
    state = getattr(error, "sqlstate", None)
    return state is None or state.startswith(_LOST_STATES)
