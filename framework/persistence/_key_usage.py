"""Which keys a checkpoint database uses, the record of them, and rewriting its blobs under the
primary key.

The record: rows ``key:<id>`` of ``cadre_meta`` name every key that blobs of the data home (its
checkpoints and its semantic store) may be sealed under, each written before the first such
blob; the row ``key-record`` says the record is complete. Reading it is one small query, so
every command can check its keyring against the data. A database written before the record was
kept gets it from its blobs' headers, once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable

from framework.database import Database
from framework.errors import CryptoError
from framework.persistence._bundles import is_member_marker
from framework.persistence._rows import TABLES, is_thread_key
from framework.persistence.cipher import BlobCipher, key_id_of

__all__ = [
    "HEADER_PREFIX",
    "UNREADABLE",
    "claim_key",
    "count_keys",
    "forget_key",
    "key_ids_of",
    "read_record",
    "reencrypt_thread",
    "thread_ids",
]

UNREADABLE = "<unreadable>"
"""The entry of :func:`count_keys` for blobs without a readable cadre header (plaintext or
damaged); never a valid key id, so it cannot collide with one."""

HEADER_PREFIX = 128
"""Bytes read from each blob to find its key id: magic, version, id (<= 64), check, nonce, tag."""

_KEY_ROW = "key:"
_COMPLETE_ROW = "key-record"
_RECORD = "INSERT INTO cadre_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING"


def key_ids_of(heads: Iterable[bytes]) -> Counter[str]:
    """Key id -> how many of these blob heads name it (:data:`UNREADABLE`: no cadre header)."""
    counts: Counter[str] = Counter()
    for head in heads:
        try:
            counts[key_id_of(head)] += 1
        except CryptoError:
            counts[UNREADABLE] += 1
    return counts


def count_keys(db: Database) -> dict[str, int]:
    """Key id -> how many blobs of the database are sealed under it, from the headers alone
    (blobs under threads' data keys are counted under those)."""
    counts: Counter[str] = Counter()
    for table in TABLES:
        with db.lock:
            heads = db.execute(
                f"SELECT substr({table.blob_column}, 1, {HEADER_PREFIX}) FROM {table.name}"
            ).fetchall()
        # a bundle's member marker has no value of its own: its head is counted
        counts.update(key_ids_of(bytes(head) for (head,) in heads if not is_member_marker(head)))
    return dict(counts)


def read_record(db: Database) -> frozenset[str] | None:
    """The key ids the record names, or None where the database has no complete record."""
    with db.lock:
        rows = db.execute("SELECT key FROM cadre_meta WHERE key LIKE ?", ("key%",)).fetchall()
    names = {str(name) for (name,) in rows}
    if _COMPLETE_ROW not in names:
        return None
    return frozenset(name[len(_KEY_ROW) :] for name in names if name.startswith(_KEY_ROW))


def claim_key(
    db: Database,
    key_id: str | None,
    allowed: Collection[str],
    scan: Callable[[], Iterable[str]],
) -> frozenset[str]:
    """Record ``key_id`` (None: nothing) unless the data needs keys not in ``allowed``; the key
    ids it needs that ``allowed`` lacks (nothing is recorded then).

    One process at a time (a lock of its own, not the schema lock: a store may be sealing
    inside its schema transaction), so two processes with different new keys on an empty
    database never both succeed. A database without a complete record gets one first from
    ``scan`` (the key ids in the headers of every blob of the home; run before the lock is
    taken, while writers record their keys as usual).
    """
    scanned = None if read_record(db) is not None else frozenset(scan()) - {UNREADABLE}
    with db.wait_for("key record"), db.lock, db.write_transaction():
        recorded = read_record(db)
        if recorded is None:
            recorded = scanned or frozenset()  # (a complete record is never removed)
            db.executemany(_RECORD, [(_KEY_ROW + k, "sealed") for k in sorted(recorded)])
            db.execute(_RECORD, (_COMPLETE_ROW, "yes"))
            recorded = read_record(db) or recorded
        missing = recorded - set(allowed)
        if key_id is not None and not missing:
            db.execute(_RECORD, (_KEY_ROW + key_id, "sealed"))
    return missing


def forget_key(db: Database, key_id: str) -> None:
    """Drop ``key_id`` from the record (once no blob is sealed under it)."""
    with db.lock, db.write_transaction():
        db.execute("DELETE FROM cadre_meta WHERE key = ?", (_KEY_ROW + key_id,))


def thread_ids(db: Database) -> list[str]:
    """Every thread with a row in the database, sorted."""
    union = " UNION ".join(f"SELECT thread_id FROM {table.name}" for table in TABLES)
    with db.lock:
        return [str(thread) for (thread,) in db.execute(f"{union} ORDER BY 1").fetchall()]


def reencrypt_thread(db: Database, cipher: BlobCipher, thread_id: str, batch: int) -> int:
    """Rewrite every blob of one thread not under the primary key (nor under the thread's own
    data key); how many were rewritten.

    The thread's rows are walked in primary-key order, ``batch`` rows per write transaction
    (sealed inside ``cipher.sealing()``); a killed run keeps the batches it committed and loses
    nothing (every blob is readable under the old key or the new one until the old key is
    retired), and a new run skips what is already done. A row changed by someone else meanwhile
    is left as it is (the update compares the old blob). The caller holds the thread.

    Raises:
        CryptoError: A blob is plaintext, tampered, or under a key the cipher does not hold.
    """
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
            after = f"AND ({key_list}) > ({marks}) " if last is not None else ""
            with cipher.sealing(), db.lock, db.write_transaction():
                primary = cipher.primary_key_id
                rows = db.execute(
                    f"SELECT {columns}, {blob} FROM {table.name} WHERE thread_id = ? {after}"
                    f"ORDER BY {key_list} LIMIT ?",
                    (thread_id, *(last or ()), batch),
                ).fetchall()
                updates = [
                    (cipher.reencrypt(row[-1], table.ad(*row[:-1])), *row[: table.key], row[-1])
                    for row in rows
                    if not is_member_marker(row[-1])
                    and key_id_of(row[-1]) != primary
                    and not is_thread_key(row[-1])  # its key is rewrapped instead
                ]
                db.executemany(
                    f"UPDATE {table.name} SET {blob} = ? WHERE {match} AND {blob} = ?", updates
                )
            if not rows:
                break
            rewritten += len(updates)
            last = tuple(rows[-1][: table.key])
    return rewritten
