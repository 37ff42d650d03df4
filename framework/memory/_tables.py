"""Tables and meta checks of :class:`~framework.memory.store.SemanticStore` (SQLite or
PostgreSQL, where they live in the ``cadre_memory`` schema)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from framework.errors import ConfigError
from framework.memory._tombstones import TOMBSTONE_TABLE

__all__ = [
    "ADDED_COLUMNS",
    "BOUND_ROWS_VERSION",
    "BUMP_GENERATION",
    "BUMP_SCOPED_GENERATION",
    "INDEXES",
    "INSERT_NEW",
    "PG_SCHEMA",
    "SCHEMA",
    "SCHEMA_VERSION",
    "UPSERT",
    "UPSERT_SOURCE",
    "check_meta",
]

PG_SCHEMA = "cadre_memory"
"""The PostgreSQL schema of the store's tables."""

SCHEMA_VERSION = 4
"""Version of the tables and rows the store writes.

1: sealed values bound to the store only, keys, source records and hashes as given. 2: sealed
values bound to their row, keys and source names blinded, hashes keyed (a sealed store of
schema 1 is upgraded when opened with its cipher; a plain one reads the same in both). 3: items
know when they were created, when they expire (a TTL in minutes), whether they were written as
a LangGraph value and whether they have a vector (columns added when a store is opened). 4: a
sealed item's metadata holds the SHA-256 of its vector, checked when the item is read (older
rows read as before; their vectors are embedded again and bound when next written)."""

BOUND_ROWS_VERSION = 2
"""The first version whose sealed values are bound to their rows."""

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS items (
    namespace TEXT NOT NULL, key TEXT NOT NULL, text {blob} NOT NULL, metadata {blob} NOT NULL,
    vector {blob} NOT NULL, content_hash TEXT NOT NULL, schema_version INTEGER NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (namespace, key))""",
    """CREATE TABLE IF NOT EXISTS sources (
    namespace TEXT NOT NULL, source TEXT NOT NULL, content_hash TEXT NOT NULL,
    keys TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (namespace, source))""",
    TOMBSTONE_TABLE,
    """CREATE TABLE IF NOT EXISTS namespace_generations (
    namespace TEXT PRIMARY KEY, generation BIGINT NOT NULL)""",
)

ADDED_COLUMNS = (
    ("created_at", "DOUBLE PRECISION"),
    ("expires_at", "DOUBLE PRECISION"),
    ("ttl_minutes", "DOUBLE PRECISION"),
    ("form", "TEXT NOT NULL DEFAULT 'text'"),
    ("indexed", "INTEGER NOT NULL DEFAULT 1"),
    ("provenance", "{blob}"),
)
"""Columns of ``items`` since schema 3: when it was first written, when it expires (NULL:
never) and its TTL, ``text`` for a cadre item or ``value`` for a LangGraph value, and whether
its vector takes part in search, and where it came from (sealed; NULL for older items)."""

INDEXES = (
    "CREATE INDEX IF NOT EXISTS items_expiry ON items (expires_at) WHERE expires_at IS NOT NULL",
)
"""Indexes made after the columns they cover were added."""

UPSERT = """
INSERT INTO items (namespace, key, text, metadata, vector, content_hash, schema_version,
                   updated_at, created_at, expires_at, ttl_minutes, form, indexed, provenance)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace, key) DO UPDATE SET text = excluded.text, metadata = excluded.metadata,
    vector = excluded.vector, content_hash = excluded.content_hash,
    schema_version = excluded.schema_version, updated_at = excluded.updated_at,
    expires_at = excluded.expires_at, ttl_minutes = excluded.ttl_minutes, form = excluded.form,
    indexed = excluded.indexed, provenance = excluded.provenance
"""
"""Insert or replace an item; a replaced item keeps the time it was created."""

INSERT_NEW = """
INSERT INTO items (namespace, key, text, metadata, vector, content_hash, schema_version,
                   updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, key) DO NOTHING
"""

UPSERT_SOURCE = """
INSERT INTO sources (namespace, source, content_hash, keys, updated_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (namespace, source) DO UPDATE SET content_hash = excluded.content_hash,
    keys = excluded.keys, updated_at = excluded.updated_at
"""

BUMP_GENERATION = (
    "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE name = 'generation'"
)
"""Counts the writes that change what search sees, so every connection knows when its
in-memory index is stale (a row of ``meta``); alone, for a write of any namespace (see
:mod:`framework.memory._generations`)."""

BUMP_SCOPED_GENERATION = (
    "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) "
    "WHERE name IN ('generation', 'scoped_generation')"
)
"""Counts a write whose namespaces are recorded in ``namespace_generations``."""


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
