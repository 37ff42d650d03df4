"""Which database a target names, and opening it: a SQLite file (a path) or a PostgreSQL
database (a URL)."""

from __future__ import annotations

from pathlib import Path

from framework.database._base import Database, redact_url
from framework.database._sqlite import SqliteDatabase
from framework.errors import ConfigError

__all__ = ["DATABASE_VARIABLE", "is_postgres_url", "open_database"]

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
