"""Data keys per scope, so a purge can erase a scope's memory by destroying a key.

The values of a sealed store's items in a scope's namespaces (see :func:`scope_of`:
``("research", "user", "alice", "evidence")`` is ``user:alice``'s) are sealed under that
scope's own random data key instead of the keyring's. The data key is kept in the store's
``scope_keys`` table, sealed (wrapped) under the keyring's key like any value, so rotating the
keyring rewraps it and leaves the values as they are. Destroying the row (a purge) leaves every
copy of those values (a backup, a replica, a page the database did not reuse yet) unreadable.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import secrets
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

from framework.database import Database
from framework.errors import CryptoError
from framework.persistence.cipher import BlobCipher, key_id_of, row_identity
from framework.persistence.keys import Keyring

__all__ = [
    "SCOPE_KEY_PREFIX",
    "SCOPE_KEY_TABLE",
    "SCOPE_KINDS",
    "ScopeKeys",
    "is_scope_key",
    "scope_of",
]

SCOPE_KINDS = ("user", "project", "tenant")
"""The kinds of scope whose data is erased together (``cadre purge --scope KIND:NAME``)."""

SCOPE_KEY_PREFIX = "scope-"
"""The key ids of scope data keys (the keyring's ids never start so)."""

SCOPE_KEY_TABLE = """CREATE TABLE IF NOT EXISTS scope_keys (
    key_id TEXT PRIMARY KEY, scope_digest TEXT NOT NULL, wrapped {blob} NOT NULL)"""

_KEY_SIZE = 32
_ID_HEX = 24


def scope_of(namespace: tuple[str, ...]) -> str | None:
    """The scope (``KIND:NAME``) a namespace belongs to: its first scope kind followed by a
    name; None for a namespace of no scope."""
    for kind, name in itertools.pairwise(namespace):
        if kind in SCOPE_KINDS:
            return f"{kind}:{name}"
    return None


def is_scope_key(blob: bytes) -> bool:
    """Whether ``blob`` is sealed under a scope's data key."""
    return key_id_of(blob).startswith(SCOPE_KEY_PREFIX)


class ScopeKeys:
    """The ``scope_keys`` table of one store, and the ciphers of its keys.

    Args:
        db: The store's connection.
        lock: The store's lock (reentrant), held while the table is read or written.
        wrap: Seals a data key under the keyring (``(key, key_id) -> blob``).
        unwrap: Opens it (``(blob, key_id) -> key``).
        digest_key: The store's digest key, for the scope digests.
    """

    def __init__(
        self,
        db: Database,
        lock: AbstractContextManager[Any],
        wrap: Callable[[bytes, str], bytes],
        unwrap: Callable[[bytes, str], bytes],
        digest_key: Callable[[], bytes],
    ) -> None:
        self.db = db
        self.lock = lock
        self.wrap = wrap
        self.unwrap = unwrap
        self.digest_key = digest_key
        self._ciphers: dict[str, BlobCipher] = {}
        self._by_scope: dict[str, BlobCipher] = {}

    def digest(self, scope: str) -> str:
        """The keyed digest a scope's key is found by."""
        return hmac.new(self.digest_key(), row_identity("scope", scope), hashlib.sha256).hexdigest()

    def for_scope(self, scope: str) -> BlobCipher:
        """The cipher of ``scope``'s data key, made (and stored, wrapped) on first use."""
        known = self._by_scope.get(scope)
        if known is not None:
            return known
        digest = self.digest(scope)
        key_id = f"{SCOPE_KEY_PREFIX}{digest[:_ID_HEX]}"
        cipher = self._ciphers.get(key_id) or self._load(key_id)
        if cipher is not None:
            self._by_scope[scope] = cipher
            return cipher
        key = secrets.token_bytes(_KEY_SIZE)
        with self.lock:
            self.db.execute(
                "INSERT INTO scope_keys (key_id, scope_digest, wrapped) VALUES (?, ?, ?) "
                "ON CONFLICT (key_id) DO NOTHING",
                (key_id, digest, self.wrap(key, key_id)),
            )
        loaded = self._load(key_id)  # another connection may have made it first
        assert loaded is not None
        self._by_scope[scope] = loaded
        return loaded

    def for_blob(self, blob: bytes) -> BlobCipher:
        """The cipher of the data key ``blob`` is sealed under.

        Raises:
            CryptoError: The key was destroyed (its scope was purged).
        """
        key_id = key_id_of(blob)
        cipher = self._ciphers.get(key_id) or self._load(key_id)
        if cipher is None:
            raise CryptoError(
                f"sealed under the data key {key_id!r}, which was destroyed when its scope was "
                "purged: the value cannot be read by anyone"
            )
        return cipher

    def destroy(self, scope: str) -> int:
        """Delete ``scope``'s data key (in the caller's transaction); how many rows went."""
        digest = self.digest(scope)
        self._ciphers.pop(f"{SCOPE_KEY_PREFIX}{digest[:_ID_HEX]}", None)
        self._by_scope.pop(scope, None)
        with self.lock:
            sql = "DELETE FROM scope_keys WHERE scope_digest = ?"
            return int(self.db.execute(sql, (digest,)).rowcount)

    def wrapped(self) -> Iterator[bytes]:
        """Every wrapped data key (sealed under the keyring's keys)."""
        with self.lock:
            rows = self.db.execute("SELECT wrapped FROM scope_keys").fetchall()
        for (blob,) in rows:
            yield bytes(blob)

    def rewrap(self, stale: Callable[[bytes], bool] | None) -> int:
        """Seal the data keys again under the keyring's primary key (in the caller's
        transaction); how many."""
        rows = self.db.execute("SELECT key_id, wrapped FROM scope_keys").fetchall()
        done = 0
        for key_id, blob in rows:
            if stale is not None and not stale(bytes(blob)):
                continue
            fresh = self.wrap(self.unwrap(bytes(blob), key_id), key_id)
            self.db.execute("UPDATE scope_keys SET wrapped = ? WHERE key_id = ?", (fresh, key_id))
            done += 1
        return done

    def _load(self, key_id: str) -> BlobCipher | None:
        with self.lock:
            found: Any = self.db.execute(
                "SELECT wrapped FROM scope_keys WHERE key_id = ?", (key_id,)
            ).fetchone()
        if found is None:
            return None
        key = self.unwrap(bytes(found[0]), key_id)
        cipher = self._ciphers[key_id] = BlobCipher(Keyring(primary=key_id, keys={key_id: key}))
        return cipher
