"""``cadre keys`` on a checkpointer: blobs per key, busy threads, re-encryption thread by thread.

Private: import these names from :mod:`framework.persistence.saver`.
"""

from __future__ import annotations

from collections import Counter
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from framework.database import Database
from framework.errors import ConfigError, ThreadBusyError
from framework.persistence import _key_usage
from framework.persistence._rows import THREAD_KEY_PREFIX
from framework.persistence.cipher import BlobCipher, key_id_of
from framework.persistence.data_keys import DataKeys, is_data_key_id

__all__ = [
    "Reencrypted",
    "busy_threads",
    "forget_key",
    "key_usage",
    "reencrypt_all",
    "reencrypt_threads",
]


class KeyedSaver(Protocol):
    """What these functions use of a :class:`~framework.persistence.saver.CadreSaver`."""

    cipher: BlobCipher | None
    db: Database
    data_keys: DataKeys | None

    def hold_thread(self, thread_id: str) -> AbstractContextManager[None]:
        """Hold ``thread_id`` in this process; ``ThreadBusyError`` when another holds it."""
        ...


def key_usage(saver: KeyedSaver) -> dict[str, int]:
    """Key id -> how many blobs of ``saver``'s database are sealed under it.

    Blobs without a readable header (plaintext or damaged) are counted under
    :data:`~framework.persistence.saver.UNREADABLE`. A thread's own data key counts once,
    under the key that wraps it, for all the blobs it seals. Only the headers are read;
    nothing is decrypted.

    Raises:
        ConfigError: The database is not encrypted.
    """
    if saver.cipher is None:
        raise ConfigError(f"checkpoint database {saver.db.label} is not encrypted: it uses no keys")
    counts = Counter(
        {k: n for k, n in _key_usage.count_keys(saver.db).items() if not is_data_key_id(k)}
    )
    if saver.data_keys is not None:
        counts.update(_key_usage.key_ids_of(saver.data_keys.wrapped(THREAD_KEY_PREFIX)))
    return dict(counts)


def forget_key(saver: KeyedSaver, key_id: str) -> None:
    """Drop ``key_id`` from the database's record of the keys its home's data is sealed under
    (``cadre keys retire``, once nothing is sealed under it)."""
    _key_usage.forget_key(saver.db, key_id)


@dataclass(frozen=True, kw_only=True)
class Reencrypted:
    """What :func:`reencrypt_threads` did: blobs rewritten, threads left for later."""

    rewritten: int
    busy: tuple[str, ...] = ()
    """Threads another process held (running, resuming, deciding a review): not touched."""


def busy_threads(saver: KeyedSaver) -> list[str]:
    """The threads of ``saver``'s database that another process (or saver) holds right now."""
    busy = []
    for thread_id in _key_usage.thread_ids(saver.db):
        try:
            with saver.hold_thread(thread_id):
                pass
        except ThreadBusyError:
            busy.append(thread_id)
    return busy


def reencrypt_threads(saver: KeyedSaver, batch: int = 500) -> Reencrypted:
    """Rewrap the threads' data keys, and rewrite every other blob not under the primary key
    of ``saver``'s cipher, thread by thread, each held meanwhile; threads another process
    holds are skipped (run it again later).

    Each batch of ``batch`` rows is one transaction: killing it loses nothing, and running it
    again goes on where it stopped. Afterwards :func:`key_usage` shows the primary key only
    (busy threads aside), and the old keys can be retired.

    Raises:
        ConfigError: The database is not encrypted, or ``batch`` is below 1.
        CryptoError: A blob cannot be opened (tampered, plaintext, unknown key); the batches
            before it are kept.
    """
    if saver.cipher is None:
        raise ConfigError(
            f"checkpoint database {saver.db.label} is not encrypted: nothing to rewrite"
        )
    if batch < 1:
        raise ConfigError(f"batch must be at least 1, got {batch}")
    rewritten, busy = 0, []
    if saver.data_keys is not None:
        primary = saver.cipher.primary_key_id
        rewritten += saver.data_keys.rewrap(
            THREAD_KEY_PREFIX, lambda blob: key_id_of(blob) != primary
        )
    for thread_id in _key_usage.thread_ids(saver.db):
        try:
            with saver.hold_thread(thread_id):
                rewritten += _key_usage.reencrypt_thread(saver.db, saver.cipher, thread_id, batch)
        except ThreadBusyError:
            busy.append(thread_id)
    return Reencrypted(rewritten=rewritten, busy=tuple(busy))


def reencrypt_all(saver: KeyedSaver, batch: int = 500) -> int:
    """:func:`reencrypt_threads`, all of them; how many blobs were rewritten.

    Raises:
        ThreadBusyError: Another process held some threads (the others were rewritten).
        ConfigError: As :func:`reencrypt_threads`.
        CryptoError: As :func:`reencrypt_threads`.
    """
    done = reencrypt_threads(saver, batch)
    if done.busy:
        raise ThreadBusyError(
            f"threads {', '.join(done.busy)} are busy in another process and were not "
            "re-encrypted; run it again once they finish"
        )
    return done.rewritten
