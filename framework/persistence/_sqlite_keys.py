"""Which keys a checkpoint database uses, and rewriting its blobs under the primary key."""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter

from framework.errors import CryptoError
from framework.persistence._sqlite_rows import TABLES
from framework.persistence._sqlite_schema import write_transaction
from framework.persistence.cipher import BlobCipher, key_id_of

__all__ = ["HEADER_PREFIX", "UNREADABLE", "count_keys", "reencrypt"]

UNREADABLE = "<unreadable>"
"""The entry of :func:`count_keys` for blobs without a readable cadre header (plaintext or
damaged); never a valid key id, so it cannot collide with one."""

HEADER_PREFIX = 128
"""Bytes read from each blob to find its key id: magic, version, id (<= 64), check, nonce, tag."""


def count_keys(conn: sqlite3.Connection, lock: threading.Lock) -> dict[str, int]:
    """Key id -> how many blobs of the database are sealed under it, from the headers alone."""
    counts: Counter[str] = Counter()
    for table in TABLES:
        with lock:
            heads = conn.execute(
                f"SELECT substr({table.blob_column}, 1, {HEADER_PREFIX}) FROM {table.name}"
            ).fetchall()
        for (head,) in heads:
            try:
                counts[key_id_of(head)] += 1
            except CryptoError:
                counts[UNREADABLE] += 1
    return dict(counts)


def reencrypt(
    conn: sqlite3.Connection, lock: threading.Lock, cipher: BlobCipher, batch: int
) -> int:
    """Rewrite every blob not under the primary key; how many were rewritten.

    Tables are walked in rowid order, ``batch`` rows per write transaction; a killed run keeps
    the batches it committed and loses nothing (every blob is readable under the old key or
    the new one until the old key is retired), and a new run skips what is already done. A row
    changed by someone else meanwhile is left as it is (the update compares the old blob).

    Raises:
        CryptoError: A blob is plaintext, tampered, or under a key the cipher does not hold.
    """
    primary = cipher.primary_key_id
    rewritten = 0
    for table in TABLES:
        columns = ", ".join(table.columns)
        blob = table.blob_column
        last = 0
        while True:
            with lock, write_transaction(conn):
                rows = conn.execute(
                    f"SELECT rowid, {columns}, {blob} FROM {table.name} "
                    "WHERE rowid > ? ORDER BY rowid LIMIT ?",
                    (last, batch),
                ).fetchall()
                updates = [
                    (cipher.reencrypt(row[-1], table.ad(*row[1:-1])), row[0], row[-1])
                    for row in rows
                    if key_id_of(row[-1]) != primary
                ]
                conn.executemany(
                    f"UPDATE {table.name} SET {blob} = ? WHERE rowid = ? AND {blob} = ?", updates
                )
            if not rows:
                break
            rewritten += len(updates)
            last = rows[-1][0]
    return rewritten
