"""The keys of a data home: which ones its sealed data needs, and the cipher that follows them.

:func:`home_cipher` makes the cipher of everything stored under a home:

* its keys come from ``$CADRE_KEYS``, else from ``keys.json`` in the home;
* a keyring that lacks a key the home's data is sealed under is refused at once (one line
  naming the key ids), and so is a home without ``keys.json`` that holds sealed data: no key is
  made for it;
* a home without keys and without sealed data gets a new key, written to ``keys.json`` when its
  first blob is sealed (so read-only commands never make one), unless another process of the
  home made one first (one that finds that key recorded but not yet written waits for the file),
  or a home sharing its PostgreSQL database sealed data under other keys;
* the cipher follows ``keys.json``: it reloads the file when another process changed it
  (``cadre keys rotate``, ``retire``), so it never writes under a key the file dropped.

Which keys the data needs is recorded in the home's checkpoint database (see
:class:`HomeKeys`), so the check is one small query.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from framework.database import Database, open_database
from framework.database.home import DataHome
from framework.errors import ConfigError
from framework.persistence import _key_usage
from framework.persistence._schema import open_checkpoints
from framework.persistence.cipher import BlobCipher, KeyFollow
from framework.persistence.data_keys import DATA_KEYS_SCHEMA, is_data_key_id, wrapped_heads
from framework.persistence.keys import KEYS_VARIABLE, FileKeyProvider, Keyring, default_key_provider

__all__ = ["MEMORY_SCHEMA", "HomeKeys", "home_cipher"]

MEMORY_SCHEMA = "cadre_memory"
"""The semantic store's PostgreSQL schema (``framework.memory`` is not imported to read it)."""


class HomeKeys:
    """The key ids a home's sealed data needs (checkpoints and semantic store), kept as a record
    in its checkpoint database: each key is recorded before its first blob (a ``KeyGuard``).

    A home written before the record existed gets it from its blobs' headers, once. The
    connection to the checkpoint database is opened once (first by :meth:`needed`, before any
    store is open) and kept until :meth:`close` or until the guard is collected: a store may
    seal, and so record a key, inside a transaction of its own.

    Args:
        home: The data home.
        key_file: Its key file; None when the keys come from ``$CADRE_KEYS``.
    """

    def __init__(self, home: DataHome, key_file: Path | None) -> None:
        self.home = home
        self.key_file = key_file
        self._db: Database | None = None
        self._lock = threading.Lock()
        self._closer: weakref.finalize[Any, Any] | None = None

    def needed(self) -> frozenset[str]:
        """The key ids the home's data is sealed under (SQLite files are not created to tell)."""
        db = self._checkpoints(create=self.home.database is not None)
        if db is None:
            return frozenset(self._memory_key_ids()) - {_key_usage.UNREADABLE}
        recorded = _key_usage.read_record(db)
        if recorded is None:
            recorded = _key_usage.claim_key(db, None, (), lambda: self._scan(db))
        return recorded

    def check(self, keyring: Keyring) -> None:
        """Refuse ``keyring`` when it lacks keys the home's data needs.

        Raises:
            ConfigError: Naming the missing key ids and how to get them back.
        """
        self.refuse(self.needed() - set(keyring.ids))

    def record(self, key_id: str, keyring: Keyring) -> None:
        """Record ``key_id`` before its first blob (creating the checkpoint database if need be).

        Raises:
            ConfigError: The data needs keys ``keyring`` lacks (nothing is recorded).
        """
        db = self._checkpoints(create=True)
        assert db is not None
        self.refuse(_key_usage.claim_key(db, key_id, keyring.ids, lambda: self._scan(db)))

    def refuse_new_key(self) -> None:
        """Refuse to make a key when the home's data needs some (the key file is missing).

        Raises:
            ConfigError: The data is sealed under keys; the message names them.
        """
        self.refuse(self.needed())

    def close(self) -> None:
        """Close the connection to the checkpoint database (opened again when needed)."""
        with self._lock:
            if self._closer is not None:
                self._closer()
            self._db = self._closer = None

    def _checkpoints(self, *, create: bool) -> Database | None:
        with self._lock:
            if self._db is None:
                if (
                    not create
                    and self.home.database is None
                    and not self.home.checkpoints.is_file()
                ):
                    return None
                self._db = open_checkpoints(self.home.checkpoint_target, encrypted=True)
                self._closer = weakref.finalize(self, self._db.close)
            return self._db

    def refuse(self, missing: Collection[str]) -> None:
        """Refuse the keys at hand when the data needs ``missing`` (nothing when it is empty).

        Raises:
            ConfigError: Naming the key ids, and the key file to restore when it is gone.
        """
        if not missing:
            return
        where = self.home.describe()
        keys = _names(missing)
        if self.key_file is not None and not self.key_file.exists():
            raise ConfigError(
                f"the data in {where} is sealed under {keys}, but its key file {self.key_file} "
                f"is missing: restore keys.json from a backup, or set {KEYS_VARIABLE} to those "
                "keys; no new key was made"
            )
        source = f"key file {self.key_file}" if self.key_file is not None else f"${KEYS_VARIABLE}"
        them = "it" if len(missing) == 1 else "them"
        raise ConfigError(
            f"{source} lacks {keys} that the data in {where} is sealed under: restore the key "
            f"file that holds {them}, or add {them} to {KEYS_VARIABLE} (`cadre keys status` "
            "lists the keys in use)"
        )

    def _scan(self, db: Database) -> set[str]:
        found = set(_key_usage.count_keys(db)) | self._memory_key_ids() | self._data_key_ids()
        return {key_id for key_id in found if not is_data_key_id(key_id)}

    def _data_key_ids(self) -> set[str]:
        """Key ids that wrap the data keys of scopes and threads (sealed under those)."""
        if isinstance(self.home.data_keys_target, Path) and not self.home.data_keys.is_file():
            return set()
        db = open_database(self.home.data_keys_target, schema=DATA_KEYS_SCHEMA)
        try:
            return set(_key_usage.key_ids_of(wrapped_heads(db)))
        finally:
            db.close()

    def _memory_key_ids(self) -> set[str]:
        """Key ids in the semantic store's blob headers (a home from before the record)."""
        if self.home.database is None and not self.home.memory.is_file():
            return set()
        db = open_database(self.home.memory_target, schema=MEMORY_SCHEMA)
        try:
            if "items" not in db.table_names():
                return set()
            rows = db.execute(
                f"SELECT substr(text, 1, {_key_usage.HEADER_PREFIX}), "
                f"substr(metadata, 1, {_key_usage.HEADER_PREFIX}) FROM items"
            ).fetchall()
        finally:
            db.close()
        return set(_key_usage.key_ids_of(bytes(head) for row in rows for head in row))


def _names(key_ids: Iterable[str]) -> str:
    ids = sorted(key_ids)
    return f"key{'s' if len(ids) > 1 else ''} {', '.join(repr(key_id) for key_id in ids)}"


def home_cipher(home: DataHome, *, check: bool = True) -> BlobCipher:
    """The cipher of everything stored under ``home`` (see the module's description).

    Args:
        home: The data home.
        check: Refuse keys that do not open the home's data (``cadre keys status`` shows what
            is there instead).

    Raises:
        ConfigError: The keys are malformed, the key file is missing while the home holds sealed
            data, or the keys lack some the data is sealed under.
    """
    provider = default_key_provider(home)
    key_file = provider.path if isinstance(provider, FileKeyProvider) else None
    guard = HomeKeys(home, key_file=key_file)
    needed = guard.needed()  # also completes the record of an older home, before any store opens
    if not isinstance(provider, FileKeyProvider):
        keyring = provider.load()
        if check:
            guard.refuse(needed - set(keyring.ids))
        return BlobCipher(keyring, KeyFollow(guard=guard, recorded=needed))
    stamp = provider.stamp()
    if stamp is None and needed:  # another process may have recorded its new key, and be
        stamp = provider.written_stamp()  # writing the key file still: wait for it
    if stamp is None:
        if check:
            guard.refuse(needed)
        return BlobCipher(Keyring.generate(), KeyFollow(source=provider, guard=guard, saved=False))
    keyring = provider.load()
    if check:
        guard.refuse(needed - set(keyring.ids))
    return BlobCipher(
        keyring, KeyFollow(source=provider, stamp=stamp, guard=guard, recorded=needed)
    )
