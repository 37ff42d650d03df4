"""SQLite tables, connection and meta checks of :class:`~framework.memory.store.SemanticStore`."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path

from framework.errors import ConfigError

__all__ = ["SCHEMA", "SCHEMA_VERSION", "UPSERT", "check_meta", "connect"]

SCHEMA_VERSION = 1
"""Version of the tables and rows the store writes."""

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS items (
    namespace TEXT NOT NULL, key TEXT NOT NULL, text BLOB NOT NULL, metadata BLOB NOT NULL,
    vector BLOB NOT NULL, content_hash TEXT NOT NULL, schema_version INTEGER NOT NULL,
    updated_at REAL NOT NULL, PRIMARY KEY (namespace, key))""",
    """CREATE TABLE IF NOT EXISTS sources (
    namespace TEXT NOT NULL, source TEXT NOT NULL, content_hash TEXT NOT NULL,
    keys TEXT NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (namespace, source))""",
)

UPSERT = """
INSERT INTO items (namespace, key, text, metadata, vector, content_hash, schema_version,
                   updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace, key) DO UPDATE SET text = excluded.text, metadata = excluded.metadata,
    vector = excluded.vector, content_hash = excluded.content_hash,
    schema_version = excluded.schema_version, updated_at = excluded.updated_at
"""


def connect(path: Path | str) -> sqlite3.Connection:
    """Open ``path`` in WAL mode with manual transactions."""
    target = str(path)
    try:
        if isinstance(path, Path):
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
    except (OSError, sqlite3.Error) as exc:
        raise ConfigError(
            f"cannot open the semantic store at {target}: {exc}; pass a writable SQLite file path"
        ) from exc
    return conn


def check_meta(path: Path | str, found: Mapping[str, str], wanted: Mapping[str, str]) -> None:
    """Refuse a store built by a newer schema or with another embedding model."""
    if int(found.get("schema_version", "0")) > SCHEMA_VERSION:
        raise ConfigError(
            f"{path} was written with store schema {found['schema_version']}, newer than this "
            f"cadre's {SCHEMA_VERSION}; upgrade cadre"
        )
    if found.get("dim") != wanted["dim"]:
        raise ConfigError(
            f"{path} holds {found.get('dim')}-dimensional embeddings but the embedder makes "
            f"{wanted['dim']}-dimensional ones; use the embedder it was built with "
            f"({found.get('model')}) or a new store path"
        )
    if found.get("model") != wanted["model"]:
        raise ConfigError(
            f"{path} was built with the embedding model {found.get('model')!r}, not "
            f"{wanted['model']!r}; use that model or a new store path"
        )
