"""PostgreSQL through psycopg 3: one autocommit connection, explicit transactions, the
component's tables in a schema of their own, advisory locks per name.

A connection the server ended while it was idle (a restart, a failover) is found before the
next transaction, statement or lock outside a transaction, which then runs on a new one; one
lost under a transaction or a statement fails it (a statement is never run twice: it may have
been applied), except a ``BEGIN`` or a lock, which run again on a new one (nothing had begun; a
session's locks end with it). A new connection first takes back the advisory locks the lost one
held, or refuses while their holder goes on if another process took one meanwhile. So a
long-running server or worker outlives a database restart.

A server out of disk space (SQLSTATE ``disk_full``) raises StorageFullError naming it; the
transaction is rolled back."""

from __future__ import annotations

import hashlib
import logging
import select
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from framework.database._base import Cursor, Database, redact_url
from framework.database._files import out_of_space
from framework.errors import ConfigError, DatabaseUnavailable, ThreadBusyError

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresDatabase"]

CONNECT_TIMEOUT_S = 10
_IDLE_READS = 3
"""How many times an idle connection with something to read is read, to find it ended."""
_IDLE_WAIT_S = 0.05
"""How long to wait for more, once an idle connection had something to read (the server's
last words come just before the end of the stream; nothing else comes to these connections
unasked but a rare notice)."""
_SCHEMA_LOCK = 0x636164726500  # serialises CREATE SCHEMA between processes starting at once
_PIPELINE_ECHO = "error ignored terminating %r: %s"
"""psycopg's warning, as the pipeline of an ``executemany`` ends, of the error the statement
raised already: the raised one is told (one line, not three)."""


def _not_an_echo(record: logging.LogRecord) -> bool:
    return record.msg != _PIPELINE_ECHO


logging.getLogger("psycopg").addFilter(_not_an_echo)


@lru_cache(maxsize=512)
def _paramstyle(sql: str) -> str:
    """``?`` placeholders as psycopg's ``%s`` (cadre's statements hold no other ``?`` or ``%``)."""
    return sql.replace("?", "%s")


class PostgresDatabase(Database):
    """A PostgreSQL database, the caller's tables in ``schema``.

    Raises:
        ConfigError: psycopg is not installed, the server cannot be reached, or the schema
            name is not a plain identifier.
        StorageFullError: The server is out of disk space (from any statement).
    """

    blob_type = "BYTEA"

    def __init__(self, url: str, *, schema: str) -> None:
        super().__init__(redact_url(url))
        if not schema.replace("_", "").isalnum() or not schema.isascii():
            raise ConfigError(f"schema name {schema!r} must be letters, digits and underscores")
        self.schema = schema
        self._url = url
        self._depth = 0
        """Transactions open on the connection (it is never opened again inside one)."""
        self._locks: dict[int, tuple[str, int]] = {}
        """The session advisory locks held through this object: key -> (name, times taken;
        they are re-entrant)."""
        self._lost: set[int] = set()
        """Of those, the ones a lost connection dropped and that are not taken back yet."""
        self.conn = self._connect()
        try:
            with self.schema_transaction():
                self.conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
            self.conn.execute(f'SET search_path TO "{schema}"')
        except BaseException as error:
            self.conn.close()
            self._raise_if_full(error)
            raise

    def _connect(self) -> psycopg.Connection[Any]:
        """A new autocommit connection; DatabaseUnavailable naming the database when it fails."""
        try:
            import psycopg  # noqa: PLC0415 - optional dependency
        except ImportError:
            raise ConfigError(
                "PostgreSQL needs the psycopg driver: pip install 'cadre[postgres]'"
            ) from None
        try:
            return psycopg.connect(self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split())
            raise DatabaseUnavailable(f"cannot connect to {self.label}: {reason}") from None

    def _usable(self) -> None:
        """Outside a transaction: open the connection again if it was lost, and take back the
        advisory locks it held; ThreadBusyError while another process holds one of them (the
        holder's work stops; what it committed stays)."""
        if self._depth or not (self._lost or self._ended()):
            return
        with self.lock:
            if self._depth or not (self._lost or self.conn.broken):
                return  # another thread opened it again meanwhile
            if self.conn.broken:  # stays broken (tried again next time) if this fails
                fresh = self._connect()
                fresh.execute(f'SET search_path TO "{self.schema}"')
                self.conn.close()
                self.conn = fresh
                self._lost = set(self._locks)
            for key in list(self._lost):
                if self._take_back(key):
                    self._lost.discard(key)
            if self._lost:
                names = ", ".join(sorted(self._locks[key][0] for key in self._lost))
                raise ThreadBusyError(
                    f"the connection to {self.label} was lost while it held {names}, which "
                    "another process holds now: this work stops here (what it committed stays)"
                )

    def _ended(self) -> bool:
        """Whether the connection was lost; one the server ended while it was idle (a restart,
        a failover) is found without a statement: an idle connection has nothing to read, an
        ended one has the server's last words, then the end of the stream."""
        import psycopg  # noqa: PLC0415 - optional dependency

        conn = self.conn
        if conn.closed:
            return conn.broken
        try:
            with conn.lock:  # psycopg's own: no statement of another thread is reading
                for read in range(_IDLE_READS):  # once something came, wait for the end
                    wait = _IDLE_WAIT_S if read else 0.0
                    if not select.select([conn.pgconn.socket], [], [], wait)[0]:
                        break
                    conn.pgconn.consume_input()
        except (OSError, psycopg.OperationalError):
            pass  # the end of the stream: the connection is broken now
        return conn.broken

    def _take_back(self, key: int) -> bool:
        """Take a lost lock again, as many times as it was taken; whether it was free."""
        times = self._locks[key][1]
        for taken in range(times):
            row = self.conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            if row is None or not row[0]:
                for _ in range(taken):
                    self.conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
                return False
        return True

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement."""
        self._usable()
        try:
            return self.conn.execute(_paramstyle(sql), params)
        except Exception as error:
            self._raise_if_full(error)
            raise

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        """Run one statement per row (pipelined); how many rows they changed."""
        batch = list(rows)
        if not batch:
            return 0
        self._usable()
        with self.conn.cursor() as cursor:
            try:
                cursor.executemany(_paramstyle(sql), batch)
            except Exception as error:
                self._raise_if_full(error)
                raise
            return max(cursor.rowcount, 0)

    def _raise_if_full(self, error: BaseException) -> None:
        """Raise StorageFullError naming the server if ``error`` is its ``disk_full``."""
        if (full := out_of_space(error, self.label)) is not None:
            raise full from error

    @contextmanager
    def write_transaction(self) -> Iterator[None]:
        """``BEGIN`` ... ``COMMIT`` (read committed); rolled back if the block raises."""
        with self._transaction("BEGIN"):
            yield

    @contextmanager
    def schema_transaction(self) -> Iterator[None]:
        """A write transaction holding the schema lock (PostgreSQL's ``IF NOT EXISTS`` is not
        safe against a concurrent create: ``UniqueViolation`` on ``pg_type``)."""
        with self.write_transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            yield

    @contextmanager
    def read_transaction(self) -> Iterator[None]:
        """A repeatable-read transaction: one snapshot for every read inside."""
        with self._transaction("BEGIN ISOLATION LEVEL REPEATABLE READ"):
            yield

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[None]:
        self._rerunnable(begin)  # nothing had begun if the connection is found lost under it
        self._depth += 1
        try:
            yield
        except BaseException:
            if not self.conn.closed:
                self.conn.execute("ROLLBACK")
            raise
        finally:
            self._depth -= 1
        try:
            self.conn.execute("COMMIT")
        except Exception as error:  # its log record found no room: the server PANICs, restarts
            self._raise_if_full(error)
            raise

    def json_text(self, column: str, key: str) -> str:
        """``->>`` of ``key`` on the column read as ``jsonb``."""
        return f"(({column})::jsonb ->> '{key}')"

    def column_bytes(self, column: str) -> str:
        """``pg_column_size``: the stored size of any value (after compression)."""
        return f"coalesce(pg_column_size({column}), 0)"

    def table_names(self) -> set[str]:
        """The tables in this component's schema."""
        rows = self.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = ?",
            (self.schema,),
        )
        return {str(name) for (name,) in rows}

    def column_names(self, table: str) -> set[str]:
        """The columns of ``table`` in this component's schema."""
        rows = self.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = ? AND table_name = ?",
            (self.schema, table),
        )
        return {str(name) for (name,) in rows}

    def size_bytes(self) -> int:
        """The tables of this component's schema with their indexes and TOAST data."""
        (size,) = self.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? "
            "AND c.relkind = 'r'",
            (self.schema,),
        ).fetchone()
        return int(size)

    def compact(self) -> None:
        """``VACUUM`` each table: the space of deleted rows is reused (PostgreSQL keeps the
        files their size; ``VACUUM FULL`` by an administrator gives it back)."""
        for table in sorted(self.table_names()):
            self.conn.execute(f'VACUUM "{self.schema}"."{table}"')

    def forget_lock(self, name: str) -> None:
        """Nothing: an advisory lock leaves no trace once released."""

    def _lock_key(self, name: str) -> int:
        digest = hashlib.sha256(f"{self.schema}\0{name}".encode()).digest()
        return int.from_bytes(digest[:8], "big", signed=True)

    @contextmanager
    def wait_for(self, name: str) -> Iterator[None]:
        """A session advisory lock keyed by the schema and ``name``, waited for."""
        key = self._lock_key(name)
        with self.lock:
            self._rerunnable("SELECT pg_advisory_lock(%s)", (key,))
            self._taken(key, name)
        try:
            yield
        finally:
            self._unlock(key)

    @contextmanager
    def hold(self, name: str, busy: str) -> Iterator[None]:
        """A session advisory lock keyed by the schema and ``name``."""
        key = self._lock_key(name)
        with self._held_here(name, busy):  # advisory locks are re-entrant within a session
            with self.lock:
                row = self._rerunnable("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
                if row is None or not row[0]:
                    raise ThreadBusyError(busy)
                self._taken(key, name)
            try:
                yield
            finally:
                self._unlock(key)

    def _rerunnable(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run a statement that may run again on a new connection when the connection is found
        lost under it (a ``BEGIN``: nothing had begun; a lock: a session's locks end with it)."""
        import psycopg  # noqa: PLC0415 - optional dependency

        self._usable()
        try:
            return self.conn.execute(sql, params)
        except psycopg.OperationalError:
            if not self.conn.broken:
                raise
            self._usable()
            return self.conn.execute(sql, params)

    def _taken(self, key: int, name: str) -> None:
        _, times = self._locks.get(key, (name, 0))
        self._locks[key] = (name, times + 1)

    def _unlock(self, key: int) -> None:
        """Release a lock taken through this object once (unless the connection lost it)."""
        with self.lock:
            name, times = self._locks.pop(key)
            if times > 1:
                self._locks[key] = (name, times - 1)
            if key in self._lost:
                if times == 1:
                    self._lost.discard(key)
            elif not self.conn.closed:
                self.conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def notify(self, channel: str, payload: str) -> None:
        """``NOTIFY channel, payload`` (delivered when the statement's transaction commits)."""
        self.conn.execute("SELECT pg_notify(%s, %s)", (channel, payload))

    def close(self) -> None:
        """Close the connection (its advisory locks go with it)."""
        self.conn.close()
