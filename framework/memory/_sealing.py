"""A semantic store's upkeep of its sealed values: its digest key, the upgrade of rows store
schema 1 wrote, and key rotation (which values there are to count, resealing them).

The digest key (keyed digests of item keys, source names and content hashes) is 32 random
bytes sealed like any item, in namespace ``""`` (which no caller can name): it is readable by
whoever holds the keyring, stays the same when keys rotate (``cadre keys reencrypt`` reseals
it with the rest) and is shared by every process that opens the same database.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from framework.database import Database
from framework.errors import TamperError
from framework.memory._items import SourceRecord, StoreItem
from framework.memory._scope_keys import SCOPE_KEY_PREFIX, is_scope_key
from framework.memory._tables import (
    ADDED_COLUMNS,
    BOUND_ROWS_VERSION,
    BUMP_GENERATION,
    INDEXES,
    INSERT_NEW,
    SCHEMA,
    SCHEMA_VERSION,
    check_meta,
)
from framework.memory._values import ITEM, SOURCE, Row, StoreValues, blob_of, sealed_text

__all__ = [
    "DIGEST_KEY_ROW",
    "ensure_digest_key",
    "has_digest_key",
    "load_digest_key",
    "open_tables",
    "reseal",
    "sealed_blobs",
    "upgrade_to_bound_rows",
]

DIGEST_KEY_ROW: Row = (ITEM, "", "digest-key")
"""Where the digest key is kept: an item of namespace ``""``."""

_DIGEST_KEY_SIZE = 32
_SHA256_HEX = 64


def open_tables(db: Database, values: StoreValues, wanted: Mapping[str, str]) -> None:
    """Create the store's tables (adding the columns of schema 3 to an older store), check
    what it was built with, and (sealed) make its digest key and upgrade rows of schema 1,
    each under the schema lock.

    Raises:
        ConfigError: As :func:`check_meta`.
        CryptoError: A value of schema 1 cannot be opened.
    """
    with db.schema_transaction():
        for statement in SCHEMA:
            db.execute(db.ddl(statement))
        db.add_columns("items", ADDED_COLUMNS)
        for statement in INDEXES:
            db.execute(statement)
        found = _meta(db)
        if not found:
            db.executemany(
                "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                wanted.items(),
            )
        db.execute(
            "INSERT INTO meta (name, value) VALUES ('generation', '0') "
            "ON CONFLICT (name) DO NOTHING"
        )
        db.execute(
            "INSERT INTO meta (name, value) SELECT 'scoped_generation', value FROM meta "
            "WHERE name = 'generation' ON CONFLICT (name) DO NOTHING"
        )
        if found:
            check_meta(db.label, found, wanted)
        bound = _version(found) >= BOUND_ROWS_VERSION
        if bound or not values.sealed:  # the added columns were all schema 3 needed
            _set_version(db)
        ready = not values.sealed or (bound and has_digest_key(db))
    if ready:
        return
    with values.sealing(), db.schema_transaction():  # another process may have done it since
        ensure_digest_key(db, values, int(wanted["dim"]))
        if _version(_meta(db)) < BOUND_ROWS_VERSION:
            upgrade_to_bound_rows(db, values)
            _set_version(db)
            db.execute(BUMP_GENERATION)


def _set_version(db: Database) -> None:
    db.execute("UPDATE meta SET value = ? WHERE name = 'schema_version'", (str(SCHEMA_VERSION),))


def _meta(db: Database) -> dict[str, str]:
    return dict(db.execute("SELECT name, value FROM meta").fetchall())


def _version(meta: Mapping[str, str]) -> int:
    """The schema version ``meta`` names (a store made just now is current)."""
    return int(meta.get("schema_version", SCHEMA_VERSION))


def has_digest_key(db: Database) -> bool:
    """Whether the store has its digest key."""
    _, ns, key = DIGEST_KEY_ROW
    found = db.execute("SELECT 1 FROM items WHERE namespace = ? AND key = ?", (ns, key))
    return found.fetchone() is not None


def ensure_digest_key(db: Database, values: StoreValues, dim: int) -> None:
    """Create the store's digest key if it has none (inside ``values.sealing()`` and a write
    transaction)."""
    if has_digest_key(db):
        return
    _, ns, key = DIGEST_KEY_ROW
    secret = secrets.token_bytes(_DIGEST_KEY_SIZE)
    row = (
        ns,
        key,
        values.seal(secret, DIGEST_KEY_ROW, "text"),
        values.metadata_blob(ns, key, StoreItem(key=key, text="")),
        bytes(4 * dim),
        "",
        SCHEMA_VERSION,
        time.time(),
    )
    db.execute(INSERT_NEW, row)


def load_digest_key(db: Database, values: StoreValues) -> bytes:
    """The store's digest key.

    Raises:
        TamperError: Its row is gone (the store was opened sealed, so it was made).
        CryptoError: It cannot be opened (another keyring, an altered row).
    """
    _, ns, key = DIGEST_KEY_ROW
    found = db.execute(
        "SELECT text FROM items WHERE namespace = ? AND key = ?", (ns, key)
    ).fetchone()
    if found is None:
        raise TamperError(
            f"{values.label}: the store's digest key was deleted; its keys and hashes cannot be "
            "checked (restore the database from a backup)"
        )
    return values.open(found[0], DIGEST_KEY_ROW, "text", "digest key")


def upgrade_to_bound_rows(db: Database, values: StoreValues) -> None:
    """Rewrite a sealed store of schema 1 as schema 2 (inside ``values.sealing()`` and the
    schema transaction): each value sealed again bound to its row, keys and source names
    blinded, content hashes keyed, vectors bound as they are (nothing is embedded again).

    Raises:
        CryptoError: A value of schema 1 cannot be opened (tampered, plaintext, another key).
    """
    items = db.execute(
        "SELECT namespace, key, text, metadata, content_hash, vector FROM items "
        "WHERE namespace <> ''"
    ).fetchall()
    for ns, key, text, metadata, digest, vector in items:
        old: Row = (ITEM, ns, key)
        stored = values.blind(ITEM, ns, key)
        opened = json.loads(values.open_unbound(metadata, old, "metadata"))
        item = StoreItem(key=key, text="", metadata=opened)
        keyed = (
            values.keyed_hash(ns, stored, bytes.fromhex(digest))
            if len(digest) == _SHA256_HEX
            else digest
        )
        db.execute(
            "UPDATE items SET key = ?, text = ?, metadata = ?, content_hash = ?, "
            "schema_version = ? WHERE namespace = ? AND key = ?",
            (
                stored,
                values.seal(values.open_unbound(text, old, "text"), (ITEM, ns, stored), "text"),
                values.metadata_blob(ns, stored, item, bytes(vector)),
                keyed,
                SCHEMA_VERSION,
                ns,
                key,
            ),
        )
    sources = db.execute("SELECT namespace, source, content_hash, keys FROM sources").fetchall()
    for ns, source, digest, keys in sources:
        record = SourceRecord(source=source, content_hash=digest, keys=tuple(json.loads(keys)))
        db.execute(
            "UPDATE sources SET source = ?, content_hash = ?, keys = ? "
            "WHERE namespace = ? AND source = ?",
            (*values.source_row(ns, record), ns, source),
        )


def sealed_blobs(db: Database, values: StoreValues) -> Iterator[bytes]:
    """Every value sealed under the keyring: two or three per item (text, metadata,
    provenance where recorded) outside scopes' namespaces, each scope's wrapped data key (the
    values in its namespaces are sealed under that) and, sealed, two per source record."""
    for row in db.execute("SELECT text, metadata, provenance FROM items").fetchall():
        yield from (
            bytes(value)
            for value in row
            if value is not None and not (values.sealed and is_scope_key(bytes(value)))
        )
    if values.scope_keys is not None:
        yield from values.scope_keys.keys.wrapped(SCOPE_KEY_PREFIX)
    if values.sealed:
        for digest, keys in db.execute("SELECT content_hash, keys FROM sources").fetchall():
            yield blob_of(digest)
            yield blob_of(keys)


def reseal(
    db: Database,
    lock: AbstractContextManager[Any],
    values: StoreValues,
    batch: int,
    stale: Callable[[bytes], bool] | None,
) -> int:
    """Open and seal values again (after a key rotation: under the primary key), ``batch``
    rows per write transaction under ``lock``; how many values were rewritten.
    """
    rewritten = 0
    if values.scope_keys is not None:
        rewritten += values.scope_keys.keys.rewrap(SCOPE_KEY_PREFIX, stale)
    for table in (_ITEMS, _SOURCES) if values.sealed else (_ITEMS,):
        with lock:
            names = db.execute(
                f"SELECT namespace, {table.key} FROM {table.name} ORDER BY 1, 2"
            ).fetchall()
        for start in range(0, len(names), batch):
            with values.sealing(), lock, db.write_transaction():
                rewritten += sum(
                    table.reseal(db, values, (table.row, ns, key), stale)
                    for ns, key in names[start : start + batch]
                )
    return rewritten


@dataclass(frozen=True)
class _Table:
    """A table whose rows hold sealed values (NULL where a row has none), and how one row is
    resealed."""

    name: str
    key: str
    row: str
    columns: tuple[str, ...]
    text: bool
    """The values are in text columns (base64)."""

    def reseal(
        self, db: Database, values: StoreValues, row: Row, stale: Callable[[bytes], bool] | None
    ) -> int:
        """Reseal the values of ``row``; how many (0 if it is gone or already current)."""
        where = f"WHERE namespace = ? AND {self.key} = ?"
        found: Any = db.execute(
            f"SELECT {', '.join(self.columns)} FROM {self.name} {where}", row[1:]
        ).fetchone()
        present = [value for value in found or () if value is not None]
        if stale is not None and values.sealed:  # values under a scope's key stay under it
            present = [v for v in present if not is_scope_key(blob_of(v)) and stale(blob_of(v))]
        elif stale is not None:
            present = [v for v in present if stale(blob_of(v))]
        if found is None or not present:
            return 0
        fresh = [
            None if value is None else values.seal(values.open(value, row, column), row, column)
            for value, column in zip(found, self.columns, strict=True)
        ]
        assignments = ", ".join(f"{column} = ?" for column in self.columns)
        db.execute(
            f"UPDATE {self.name} SET {assignments} {where}",
            (*(sealed_text(blob) if self.text and blob else blob for blob in fresh), *row[1:]),
        )
        return len(present)


_ITEMS = _Table("items", "key", ITEM, ("text", "metadata", "provenance"), text=False)
_SOURCES = _Table("sources", "source", SOURCE, ("content_hash", "keys"), text=True)
