"""Which keys a checkpoint database uses, and rewriting its blobs under the primary key."""

from __future__ import annotations

from collections import Counter

from framework.database import Database
from framework.errors import CryptoError
from framework.persistence._bundles import is_member_marker
from framework.persistence._rows import TABLES
from framework.persistence.cipher import BlobCipher, key_id_of

__all__ = ["HEADER_PREFIX", "UNREADABLE", "count_keys", "reencrypt"]

UNREADABLE = "<unreadable>"
"""The entry of :func:`count_keys` for blobs without a readable cadre header (plaintext or
damaged); never a valid key id, so it cannot collide with one."""

HEADER_PREFIX = 128
"""Bytes read from each blob to find its key id: magic, version, id (<= 64), check, nonce, tag."""


def count_keys(db: Database) -> dict[str, int]:
    """Key id -> how many blobs of the database are sealed under it, from the headers alone."""
    counts: Counter[str] = Counter()
    for table in TABLES:
        with db.lock:
            heads = db.execute(
                f"SELECT substr({table.blob_column}, 1, {HEADER_PREFIX}) FROM {table.name}"
            ).fetchall()
        for (head,) in heads:
            if is_member_marker(head):  # no value of its own: its head is counted
                continue
            try:
                counts[key_id_of(head)] += 1
            except CryptoError:
                counts[UNREADABLE] += 1
    return dict(counts)


def reencrypt(db: Database, cipher: BlobCipher, batch: int) -> int:
    """Rewrite every blob not under the primary key; how many were rewritten.

    Tables are walked in primary-key order, ``batch`` rows per write transaction; a killed run
    keeps the batches it committed and loses nothing (every blob is readable under the old key
    or the new one until the old key is retired), and a new run skips what is already done. A
    row changed by someone else meanwhile is left as it is (the update compares the old blob).

    Raises:
        CryptoError: A blob is plaintext, tampered, or under a key the cipher does not hold.
    """
    primary = cipher.primary_key_id
    rewritten = 0
    for table in TABLES:
        columns = ", ".join(table.columns)
        key = table.columns[: table.key]
        key_list = ", ".join(key)
        marks = ", ".join("?" for _ in key)
        blob = table.blob_column
        match = " AND ".join(f"{column} = ?" for column in key)
        last: tuple[object, ...] | None = None
        while True:
            after = f"WHERE ({key_list}) > ({marks}) " if last is not None else ""
            with db.lock, db.write_transaction():
                rows = db.execute(
                    f"SELECT {columns}, {blob} FROM {table.name} {after}"
                    f"ORDER BY {key_list} LIMIT ?",
                    (*(last or ()), batch),
                ).fetchall()
                updates = [
                    (cipher.reencrypt(row[-1], table.ad(*row[:-1])), *row[: table.key], row[-1])
                    for row in rows
                    if not is_member_marker(row[-1]) and key_id_of(row[-1]) != primary
                ]
                db.executemany(
                    f"UPDATE {table.name} SET {blob} = ? WHERE {match} AND {blob} = ?", updates
                )
            if not rows:
                break
            rewritten += len(updates)
            last = tuple(rows[-1][: table.key])
    return rewritten
