"""Data keys: random keys for one scope's memory or one thread's checkpoints, kept apart from
the data they seal, so erasing a scope or a thread can destroy its key.

Each data key is stored wrapped (sealed under the keyring's primary key, bound to its id) in
its own database: ``data-keys.sqlite`` in the data home, or the schema ``cadre_data_keys`` of
the home's PostgreSQL database. A copy of the checkpoints or the memory made before a key was
destroyed (a backup of those files, a dump of their schemas) holds blobs whose key is gone:
nobody can open them, whatever keys they hold. A backup of the key store itself carries the
wrapped keys; keep it apart, and no longer than the time an erasure must take
(``docs/memory.md``).

Rotating the keyring rewraps the data keys and leaves the blobs under them as they are.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from framework.database import Database, open_database
from framework.errors import CryptoError
from framework.persistence import _key_usage
from framework.persistence.cipher import BlobCipher, key_id_of, row_identity
from framework.persistence.keys import Keyring

__all__ = [
    "DATA_KEYS_SCHEMA",
    "DataKeys",
    "is_data_key_id",
    "wrapped_heads",
]

DATA_KEYS_SCHEMA = "cadre_data_keys"
"""The PostgreSQL schema of the data keys (a SQLite home keeps them in a file of their own)."""

DATA_KEY_PREFIXES = ("scope-", "thread-")
"""How the ids of data keys start (the keyring's never do): a scope's, a thread's."""

_TABLE = "CREATE TABLE IF NOT EXISTS data_keys (key_id TEXT PRIMARY KEY, wrapped {blob} NOT NULL)"
_KEY_SIZE = 32


def is_data_key_id(key_id: str) -> bool:
    """Whether ``key_id`` names a data key (not one of the keyring's)."""
    return key_id.startswith(DATA_KEY_PREFIXES)


def wrapped_heads(db: Database, prefix: str = "") -> list[bytes]:
    """The heads of the wrapped keys in the key store ``db`` whose id starts with ``prefix``
    (enough of each to read the keyring's key id it is sealed under)."""
    if "data_keys" not in db.table_names():
        return []
    rows = db.execute(
        f"SELECT substr(wrapped, 1, {_key_usage.HEADER_PREFIX}) FROM data_keys WHERE key_id LIKE ?",
        (f"{prefix}%",),
    ).fetchall()
    return [bytes(head) for (head,) in rows]


class DataKeys:
    """The data keys of one home, and the ciphers of the ones in use (one per key id).

    Args:
        target: The key store: a SQLite file (created 0600 by the home), ``":memory:"``, or the
            home's PostgreSQL URL.
        wrapper: The keyring's cipher, which seals (wraps) each data key.
    """

    def __init__(self, target: Path | str, wrapper: BlobCipher) -> None:
        self.wrapper = wrapper
        self.db: Database = open_database(target, schema=DATA_KEYS_SCHEMA)
        self._lock = threading.RLock()
        self._ciphers: dict[str, tuple[bytes, BlobCipher]] = {}
        """Key id -> the wrapped key last read, and its cipher."""
        try:
            with self._lock, self.db.schema_transaction():
                self.db.execute(self.db.ddl(_TABLE))
        except BaseException:
            self.db.close()
            raise

    def cipher(self, key_id: str) -> BlobCipher:
        """The cipher of ``key_id``'s data key, made (and stored, wrapped) when it has none.

        Read from the key store on every call, so a key another process destroyed (and maybe
        made anew) is never used to seal. The key is committed before anything is sealed
        under it, so a rollback of the caller's transaction never leaves a blob without it.
        """
        found = self._load(key_id)
        if found is not None:
            return found
        with self._lock, self.wrapper.sealing():
            self.db.execute(
                "INSERT INTO data_keys (key_id, wrapped) VALUES (?, ?) "
                "ON CONFLICT (key_id) DO NOTHING",
                (key_id, self._wrap(secrets.token_bytes(_KEY_SIZE), key_id)),
            )
        made = self._load(key_id)  # another process may have made it first: theirs counts
        assert made is not None
        return made

    def opener(self, blob: bytes) -> BlobCipher:
        """The cipher of the data key ``blob`` is sealed under.

        Raises:
            CryptoError: The key was destroyed (its scope or thread was erased).
        """
        key_id = key_id_of(blob)
        known = self._ciphers.get(key_id)
        found = known[1] if known is not None else self._load(key_id)
        if found is None:
            raise CryptoError(
                f"sealed under the data key {key_id!r}, which was destroyed when its scope or "
                "thread was erased: nobody can read it any more"
            )
        return found

    def destroy(self, key_ids: Collection[str]) -> int:
        """Delete these data keys (committed at once); how many there were."""
        ids = sorted(set(key_ids))
        if not ids:
            return 0
        with self._lock:
            for key_id in ids:
                self._ciphers.pop(key_id, None)
            marks = ", ".join("?" for _ in ids)
            with self.db.write_transaction():
                gone = self.db.execute(f"DELETE FROM data_keys WHERE key_id IN ({marks})", ids)
            return int(gone.rowcount)

    def wrapped(self, prefix: str) -> list[bytes]:
        """The heads of the wrapped data keys whose id starts with ``prefix`` (enough of each
        to read the keyring's key id it is sealed under)."""
        with self._lock:
            return wrapped_heads(self.db, prefix)

    def rewrap(self, prefix: str, stale: Callable[[bytes], bool] | None = None) -> int:
        """Wrap the data keys whose id starts with ``prefix`` again under the keyring's
        primary key (those ``stale`` accepts; all without it), in one transaction; how many."""
        done = 0
        with self._lock, self.wrapper.sealing(), self.db.write_transaction():
            rows = self.db.execute(
                "SELECT key_id, wrapped FROM data_keys WHERE key_id LIKE ?", (f"{prefix}%",)
            ).fetchall()
            for key_id, blob in rows:
                if stale is not None and not stale(bytes(blob)):
                    continue
                fresh = self._wrap(self._unwrap(bytes(blob), key_id), key_id)
                self.db.execute(
                    "UPDATE data_keys SET wrapped = ? WHERE key_id = ?", (fresh, key_id)
                )
                done += 1
        return done

    def compact(self) -> None:
        """Rewrite the key store, so no destroyed key stays in its file or log."""
        with self._lock:
            self.db.compact()

    def close(self) -> None:
        """Close the key store's connection."""
        with self._lock:
            self.db.close()

    def _wrap(self, key: bytes, key_id: str) -> bytes:
        return self.wrapper.encrypt(key, row_identity("data-key", key_id))

    def _unwrap(self, blob: bytes, key_id: str) -> bytes:
        return self.wrapper.decrypt(blob, row_identity("data-key", key_id))

    def _load(self, key_id: str) -> BlobCipher | None:
        """The key store's key under ``key_id`` (None: there is none), unwrapped once per
        wrapped form."""
        with self._lock:
            found: Any = self.db.execute(
                "SELECT wrapped FROM data_keys WHERE key_id = ?", (key_id,)
            ).fetchone()
            if found is None:
                self._ciphers.pop(key_id, None)
                return None
            wrapped = bytes(found[0])
            known = self._ciphers.get(key_id)
            if known is not None and known[0] == wrapped:
                return known[1]
            key = self._unwrap(wrapped, key_id)
            made = BlobCipher(Keyring(primary=key_id, keys={key_id: key}))
            self._ciphers[key_id] = (wrapped, made)
            return made
