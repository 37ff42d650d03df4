"""One small interface over the two databases cadre stores in: SQLite (a file, the default) and
PostgreSQL (a URL, for many processes).

Statements are written once, in the SQL both accept (``INSERT ... ON CONFLICT``, row values,
``?`` placeholders); a :class:`Database` runs them on its backend and supplies the few things
that differ: transactions, JSON field access, table listing, compaction and per-thread locks.

Storage's lowest floor: it imports only :mod:`framework.errors` (and the home's layout,
:mod:`framework.database.home`, imports only this package).
"""

from __future__ import annotations

from pathlib import Path

from framework._lazy import lazy_exports
from framework.database._base import Cursor as Cursor
from framework.database._base import Database as Database
from framework.database._base import database_gone as database_gone
from framework.database._base import redact_url as redact_url
from framework.database._files import out_of_space as out_of_space
from framework.database._sqlite import SqliteDatabase
from framework.errors import ConfigError

DATABASE_VARIABLE = "CADRE_DB"
"""The environment variable naming a PostgreSQL database for the data home's checkpoints and
memory (``--db`` on the command line wins)."""

_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: Path | str | None) -> bool:
    """Whether ``target`` is a PostgreSQL URL (not a file path)."""
    return isinstance(target, str) and target.startswith(_SCHEMES)


def open_database(target: Path | str, *, schema: str) -> Database:
    """Open a SQLite file (a path, or ``":memory:"``) or a PostgreSQL database (a URL).

    Args:
        target: The file or URL.
        schema: The PostgreSQL schema the caller's tables live in (created if missing), so the
            checkpoints and the memory of one data home share a database without clashing; a
            SQLite file holds one component and ignores it.

    Raises:
        ConfigError: The URL names another database kind, the PostgreSQL driver is missing,
            or the database cannot be reached.
    """
    if is_postgres_url(target):
        from framework.database._postgres import PostgresDatabase  # noqa: PLC0415 - optional

        return PostgresDatabase(str(target), schema=schema)
    if isinstance(target, str) and "://" in target:
        raise ConfigError(
            f"unsupported database URL {redact_url(target)!r}: use a file path for SQLite or "
            "postgresql://user@host:port/dbname"
        )
    return SqliteDatabase(target)


__getattr__, __dir__ = lazy_exports(__name__)
