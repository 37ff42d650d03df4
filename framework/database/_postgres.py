"""PostgreSQL through psycopg 3: one autocommit connection, explicit transactions, the
component's tables in a schema of their own, advisory locks per name."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from framework.database._base import Cursor, Database
from framework.errors import ConfigError, ThreadBusyError

__all__ = ["PostgresDatabase"]

CONNECT_TIMEOUT_S = 10
_SCHEMA_LOCK = 0x636164726500  # serialises CREATE SCHEMA between processes starting at once


@lru_cache(maxsize=512)
def _paramstyle(sql: str) -> str:
    """``?`` placeholders as psycopg's ``%s`` (cadre's statements hold no other ``?`` or ``%``)."""
    return sql.replace("?", "%s")


class PostgresDatabase(Database):
    """A PostgreSQL database, the caller's tables in ``schema``.

    Raises:
        ConfigError: psycopg is not installed, the server cannot be reached, or the schema
            name is not a plain identifier.
    """

    blob_type = "BYTEA"

    def __init__(self, url: str, *, schema: str) -> None:
        from framework.database import redact_url  # noqa: PLC0415 - avoids an import cycle

        super().__init__(redact_url(url))
        if not schema.replace("_", "").isalnum() or not schema.isascii():
            raise ConfigError(f"schema name {schema!r} must be letters, digits and underscores")
        self.schema = schema
        try:
            import psycopg  # noqa: PLC0415 - optional dependency
        except ImportError:
            raise ConfigError(
                "PostgreSQL needs the psycopg driver: pip install 'cadre[postgres]'"
            ) from None
        try:
            self.conn = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split())
            raise ConfigError(f"cannot connect to {self.label}: {reason}") from None
        try:
            with self.schema_transaction():
                self.conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
            self.conn.execute(f'SET search_path TO "{schema}"')
        except BaseException:
            self.conn.close()
            raise

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement."""
        return self.conn.execute(_paramstyle(sql), params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        """Run one statement per row (pipelined); how many rows they changed."""
        batch = list(rows)
        if not batch:
            return 0
        with self.conn.cursor() as cursor:
            cursor.executemany(_paramstyle(sql), batch)
            return max(cursor.rowcount, 0)

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
        self.conn.execute(begin)
        try:
            yield
        except BaseException:
            if not self.conn.closed:
                self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

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
            self.conn.execute("SELECT pg_advisory_lock(%s)", (key,))
        try:
            yield
        finally:
            with self.lock:
                if not self.conn.closed:
                    self.conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    @contextmanager
    def hold(self, name: str, busy: str) -> Iterator[None]:
        """A session advisory lock keyed by the schema and ``name``."""
        key = self._lock_key(name)
        with self._held_here(name, busy):  # advisory locks are re-entrant within a session
            with self.lock:
                row = self.conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            if row is None or not row[0]:
                raise ThreadBusyError(busy)
            try:
                yield
            finally:
                with self.lock:
                    if not self.conn.closed:
                        self.conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def notify(self, channel: str, payload: str) -> None:
        """``NOTIFY channel, payload`` (delivered when the statement's transaction commits)."""
        self.conn.execute("SELECT pg_notify(%s, %s)", (channel, payload))

    def close(self) -> None:
        """Close the connection (its advisory locks go with it)."""
        self.conn.close()
