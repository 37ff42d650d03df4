"""Data keys per scope, so a purge can erase a scope's memory by destroying a key.

The values of a sealed store's items in a scope's namespaces (see :func:`scope_of`:
``("research", "user", "alice", "evidence")`` is ``user:alice``'s) are sealed under that
scope's own random data key instead of the keyring's. The data key lives in the home's key
store (:class:`~framework.persistence.data_keys.DataKeys`), apart from the values, wrapped under
the keyring's key: rotating the keyring rewraps it and leaves the values as they are, and
destroying it (a purge) leaves every copy of those values (a backup, a replica, a page the
database did not reuse yet) unreadable.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections.abc import Callable

from framework.persistence.cipher import BlobCipher, key_id_of, row_identity
from framework.persistence.data_keys import DataKeys

__all__ = [
    "SCOPE_KEY_PREFIX",
    "SCOPE_KINDS",
    "DataScopeKeys",
    "is_scope_key",
    "scope_of",
]

SCOPE_KINDS = ("user", "project", "tenant")
"""The kinds of scope whose data is erased together (``cadre purge --scope KIND:NAME``)."""

SCOPE_KEY_PREFIX = "scope-"
"""The key ids of scope data keys (the keyring's ids never start so)."""

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


class DataScopeKeys:
    """The scopes' data keys of one store, named by a keyed digest of the scope.

    Args:
        keys: The home's key store.
        digest_key: The store's digest key, for the key ids.
    """

    def __init__(self, keys: DataKeys, digest_key: Callable[[], bytes]) -> None:
        self.keys = keys
        self.digest_key = digest_key
        self._checked: dict[str, BlobCipher] = {}

    def recheck(self) -> None:
        """Read each scope's key from the key store again at its next use (a write begins: a
        purge in another process may have destroyed it since)."""
        self._checked.clear()

    def key_id(self, scope: str) -> str:
        """The id of ``scope``'s data key (a keyed digest: it does not name the scope)."""
        digest = hmac.new(self.digest_key(), row_identity("scope", scope), hashlib.sha256)
        return f"{SCOPE_KEY_PREFIX}{digest.hexdigest()[:_ID_HEX]}"

    def for_scope(self, scope: str) -> BlobCipher:
        """The cipher of ``scope``'s data key, made (and stored, wrapped) on first use, read
        from the key store once per write (see :meth:`recheck`)."""
        known = self._checked.get(scope)
        if known is None:
            known = self._checked[scope] = self.keys.cipher(self.key_id(scope))
        return known

    def for_blob(self, blob: bytes) -> BlobCipher:
        """The cipher of the data key ``blob`` is sealed under.

        Raises:
            CryptoError: The key was destroyed (its scope was purged).
        """
        return self.keys.opener(blob)

    def destroy(self, scope: str) -> int:
        """Delete ``scope``'s data key (committed at once); how many keys went."""
        self._checked.pop(scope, None)
        return self.keys.destroy([self.key_id(scope)])
