"""The tables of cadre's checkpointer, how a database is opened, and how rows are upserted.

Six tables, all prefixed ``cadre_`` so a SQLite file LangGraph's ``SqliteSaver`` wrote can hold
both (on PostgreSQL they live in the ``cadre_checkpoints`` schema):

* ``cadre_meta``: what the database is (format, schema version, encrypted or not);
* ``cadre_checkpoints``: one row per checkpoint; the channel values are not in it;
* ``cadre_blobs``: one row per (thread, namespace, channel, version): a full value, a delta on
  an earlier version of the same channel, or an empty marker;
* ``cadre_writes``: the pending writes of tasks, one row per (checkpoint, task, index);
* ``cadre_manifests``: one sealed row per checkpoint naming what must exist beside it (its
  parent and the writes recorded on it; see ``_manifests``);
* ``cadre_chunks``: pieces of large values, stored once per thread (see ``_chunks``).

Schema 2 added ``cadre_manifests``, schema 3 ``cadre_chunks``; an older database is upgraded
when opened (checkpoints without a manifest are checked only for their channel values).

The plaintext columns hold ids, channel names, versions, task paths and the metadata allowlist;
every value is in a binary column, sealed when the database is encrypted.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from framework.database import Database, open_database
from framework.errors import ConfigError

__all__ = ["FORMAT_NAME", "PG_SCHEMA", "SCHEMA_VERSION", "open_checkpoints", "upsert"]

FORMAT_NAME = "cadre-sqlite-checkpoints"
"""The ``format`` recorded in ``cadre_meta`` (the name is historical: PostgreSQL uses it too)."""

SCHEMA_VERSION = "3"
"""The schema this module creates and reads."""

PG_SCHEMA = "cadre_checkpoints"
"""The PostgreSQL schema of the checkpoint tables."""

_TABLES = (
    """CREATE TABLE IF NOT EXISTS cadre_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS cadre_checkpoints (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        parent_id TEXT,
        metadata TEXT NOT NULL,
        body {blob} NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
    )""",
    """CREATE TABLE IF NOT EXISTS cadre_blobs (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        channel TEXT NOT NULL,
        version TEXT NOT NULL,
        kind TEXT NOT NULL,
        base_version TEXT,
        value {blob} NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
    )""",
    """CREATE TABLE IF NOT EXISTS cadre_writes (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        channel TEXT NOT NULL,
        task_path TEXT NOT NULL,
        value {blob} NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
    )""",
    """CREATE TABLE IF NOT EXISTS cadre_manifests (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        value {blob} NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
    )""",
    """CREATE TABLE IF NOT EXISTS cadre_chunks (
        thread_id TEXT NOT NULL,
        digest TEXT NOT NULL,
        value {blob} NOT NULL,
        PRIMARY KEY (thread_id, digest)
    )""",
)

_UPGRADABLE = ("1", "2")
"""Older schemas this module upgrades in place (by creating the tables they lack)."""


def upsert(table: str, columns: Sequence[str], key: int, *, replace: bool) -> str:
    """An insert of ``columns`` into ``table`` whose first ``key`` columns are its primary
    key: a row already there is replaced (``replace``) or kept."""
    names = ", ".join(columns)
    marks = ", ".join("?" for _ in columns)
    target = ", ".join(columns[:key])
    if replace:
        updates = ", ".join(f"{column} = excluded.{column}" for column in columns[key:])
        conflict = f"DO UPDATE SET {updates}"
    else:
        conflict = "DO NOTHING"
    return f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT ({target}) {conflict}"


def open_checkpoints(target: Path | str, *, encrypted: bool) -> Database:
    """Open (creating if needed) a checkpoint database and check it matches ``encrypted``.

    Args:
        target: A SQLite file (or ``":memory:"``) or a PostgreSQL URL.
        encrypted: Whether the caller seals every blob.

    Raises:
        ConfigError: The database cannot be opened, is not a cadre checkpoint database, has a
            newer schema, or is encrypted when ``encrypted`` is false (or the other way round).
    """
    db = open_database(target, schema=PG_SCHEMA)
    try:
        with db.lock, db.schema_transaction():
            _create_or_check(db, encrypted)
    except BaseException:
        db.close()
        raise
    return db


def _create_or_check(db: Database, encrypted: bool) -> None:
    where = db.label
    if "cadre_meta" not in db.table_names():
        for ddl in _TABLES:
            db.execute(db.ddl(ddl))
        db.executemany(
            "INSERT INTO cadre_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
            [
                ("format", FORMAT_NAME),
                ("schema", SCHEMA_VERSION),
                ("encrypted", "yes" if encrypted else "no"),
            ],
        )
    meta = dict(db.execute("SELECT key, value FROM cadre_meta").fetchall())
    if meta.get("format") == FORMAT_NAME and meta.get("schema") in _UPGRADABLE:
        for ddl in _TABLES:
            db.execute(db.ddl(ddl))
        db.execute("UPDATE cadre_meta SET value = ? WHERE key = 'schema'", (SCHEMA_VERSION,))
        meta["schema"] = SCHEMA_VERSION
    if meta.get("format") != FORMAT_NAME:
        raise ConfigError(f"{where} is not a cadre checkpoint database; choose another file")
    if meta.get("schema") != SCHEMA_VERSION:
        raise ConfigError(
            f"checkpoint database {where} has schema {meta.get('schema')!r}; this cadre reads "
            f"schema {SCHEMA_VERSION} (was it written by a newer cadre?)"
        )
    recorded = meta.get("encrypted")
    if recorded == "yes" and not encrypted:
        raise ConfigError(
            f"checkpoint database {where} is encrypted; open it with its keys (a BlobCipher from "
            "CADRE_KEYS or the key file of the data home), never without"
        )
    if recorded == "no" and encrypted:
        raise ConfigError(
            f"checkpoint database {where} was created without encryption and holds plaintext; "
            "open it without a cipher, or start a new database for encrypted runs"
        )
    if recorded not in ("yes", "no"):
        raise ConfigError(f"checkpoint database {where} does not record whether it is encrypted")
