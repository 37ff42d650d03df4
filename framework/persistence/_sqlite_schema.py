"""The tables of cadre's SQLite checkpointer, how a database is opened, and its transactions.

Four tables, all prefixed ``cadre_`` so a file LangGraph's ``SqliteSaver`` wrote can hold both:

* ``cadre_meta``: what the database is (format, schema version, encrypted or not);
* ``cadre_checkpoints``: one row per checkpoint; the channel values are not in it;
* ``cadre_blobs``: one row per (thread, namespace, channel, version): a full value, a delta on
  an earlier version of the same channel, or an empty marker;
* ``cadre_writes``: the pending writes of tasks, one row per (checkpoint, task, index).

The plaintext columns hold ids, channel names, versions, task paths and the metadata allowlist;
every value is in a ``BLOB`` column, sealed when the database is encrypted.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from framework.errors import ConfigError

__all__ = [
    "FORMAT_NAME",
    "SCHEMA_VERSION",
    "connect",
    "read_transaction",
    "write_transaction",
]

FORMAT_NAME = "cadre-sqlite-checkpoints"
"""The ``format`` recorded in ``cadre_meta``."""

SCHEMA_VERSION = "1"
"""The schema this module creates and reads."""

BUSY_TIMEOUT_MS = 10_000
"""How long a connection waits for another process's write lock before failing."""

_TABLES = (
    """CREATE TABLE cadre_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    """CREATE TABLE cadre_checkpoints (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        parent_id TEXT,
        metadata TEXT NOT NULL,
        body BLOB NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
    )""",
    """CREATE TABLE cadre_blobs (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        channel TEXT NOT NULL,
        version TEXT NOT NULL,
        kind TEXT NOT NULL,
        base_version TEXT,
        value BLOB NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
    )""",
    """CREATE TABLE cadre_writes (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        channel TEXT NOT NULL,
        task_path TEXT NOT NULL,
        value BLOB NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
    )""",
)


def connect(path: Path | str, *, encrypted: bool) -> sqlite3.Connection:
    """Open (creating if needed) a checkpoint database and check it matches ``encrypted``.

    The connection is in autocommit mode (transactions are explicit, see
    :func:`write_transaction`), WAL journal, ``synchronous=NORMAL`` (a committed step survives
    a killed process; a power cut may lose the last steps, never corrupt the file), and may be
    used from any thread (callers serialise access with a lock).

    Raises:
        ConfigError: The file is not a cadre checkpoint database, has a newer schema, or is
            encrypted when ``encrypted`` is false (or the other way round).
    """
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        with write_transaction(conn):
            _create_or_check(conn, str(path), encrypted)
    except sqlite3.DatabaseError as exc:
        conn.close()
        if type(exc) is sqlite3.DatabaseError:  # not a busy or I/O error: not a database
            raise ConfigError(
                f"{path} is not a SQLite database ({exc}); choose another file"
            ) from None
        raise
    except BaseException:
        conn.close()
        raise
    return conn


def _create_or_check(conn: sqlite3.Connection, path: str, encrypted: bool) -> None:
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "cadre_meta" not in tables:
        for ddl in _TABLES:
            conn.execute(ddl)
        conn.executemany(
            "INSERT INTO cadre_meta (key, value) VALUES (?, ?)",
            [
                ("format", FORMAT_NAME),
                ("schema", SCHEMA_VERSION),
                ("encrypted", "yes" if encrypted else "no"),
            ],
        )
        return
    meta = dict(conn.execute("SELECT key, value FROM cadre_meta").fetchall())
    if meta.get("format") != FORMAT_NAME:
        raise ConfigError(f"{path} is not a cadre checkpoint database; choose another file")
    if meta.get("schema") != SCHEMA_VERSION:
        raise ConfigError(
            f"checkpoint database {path} has schema {meta.get('schema')!r}; this cadre reads "
            f"schema {SCHEMA_VERSION} (was it written by a newer cadre?)"
        )
    recorded = meta.get("encrypted")
    if recorded == "yes" and not encrypted:
        raise ConfigError(
            f"checkpoint database {path} is encrypted; open it with its keys (a BlobCipher from "
            "CADRE_KEYS or the key file of the data home), never without"
        )
    if recorded == "no" and encrypted:
        raise ConfigError(
            f"checkpoint database {path} was created without encryption and holds plaintext; "
            "open it without a cipher, or start a new database for encrypted runs"
        )
    if recorded not in ("yes", "no"):
        raise ConfigError(f"checkpoint database {path} does not record whether it is encrypted")


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back if the block raises (or is interrupted)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def read_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A deferred transaction: the reads inside see one snapshot of the database."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        conn.execute("COMMIT")
