"""Keys that change while a cipher uses them: reloading, saving a new keyring, recording keys.

Private: import :class:`KeyFollow` and :class:`KeyGuard` from :mod:`framework.persistence.cipher`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Protocol

from framework.persistence.keys import Keyring, KeySource

__all__ = ["Follower", "KeyFollow", "KeyGuard", "Rekeyed"]


class KeyGuard(Protocol):
    """What the data sealed so far needs of a keyring (a data home's guard keeps it in its
    checkpoint database)."""

    def check(self, keyring: Keyring) -> None:
        """Refuse ``keyring`` (ConfigError naming the key ids) if it lacks keys the data uses."""
        ...

    def record(self, key_id: str, keyring: Keyring) -> None:
        """Record ``key_id`` before the first blob is sealed under it; refuse as :meth:`check`."""
        ...


@dataclass(frozen=True, kw_only=True)
class KeyFollow:
    """How a ``BlobCipher`` keeps up with keys that change while it is in use.

    Attributes:
        source: Where the keys are read again when they changed (the key file); None: they
            never change under this process (``$CADRE_KEYS``).
        stamp: ``source.stamp()`` taken before the keyring was read.
        guard: Checks every keyring loaded and records each key before its first blob.
        saved: False for a keyring made for a home without keys: saved to ``source`` (unless
            another process saved one first, which is then used) before the first blob.
        recorded: Key ids the guard recorded already (not recorded again).
    """

    source: KeySource | None = None
    stamp: object = None
    guard: KeyGuard | None = None
    saved: bool = True
    recorded: frozenset[str] = frozenset()


class Rekeyed(Protocol):
    """The cipher a :class:`Follower` keeps up to date."""

    @property
    def keyring(self) -> Keyring:
        """The keys in use now."""
        ...

    def _install(self, keyring: Keyring) -> None: ...


class Follower:
    """A cipher's side of :class:`KeyFollow`: when to reload, save and record its keys.

    Args:
        follow: The source, stamp and guard.
    """

    def __init__(self, follow: KeyFollow) -> None:
        self.follow = follow
        self._stamp = follow.stamp
        self._unsaved = not follow.saved
        self._recorded = set(follow.recorded)
        self._lock = threading.Lock()
        self._local = threading.local()

    def sealing_here(self) -> bool:
        """Whether this thread is inside :meth:`sealing` (the keys are current and held)."""
        return bool(getattr(self._local, "depth", 0))

    @contextmanager
    def sealing(self, cipher: Rekeyed) -> Iterator[None]:
        """Save a new keyring, hold the source still, reload it if changed, record the primary."""
        follow = self.follow
        if self._unsaved:
            self._save_new(cipher)
        with follow.source.sealing() if follow.source is not None else nullcontext():
            self.refresh(cipher)
            keyring = cipher.keyring
            if follow.guard is not None and keyring.primary not in self._recorded:
                with self._lock:
                    follow.guard.record(keyring.primary, keyring)
                    self._recorded.add(keyring.primary)
            self._local.depth = getattr(self._local, "depth", 0) + 1
            try:
                yield
            finally:
                self._local.depth -= 1

    def refresh(self, cipher: Rekeyed) -> bool:
        """Reload the keys if the source's stamp changed; whether they were."""
        source = self.follow.source
        if source is None or source.stamp() == self._stamp:
            return False
        if self._unsaved and source.stamp() is None:
            return False
        with self._lock:
            stamp = source.stamp()
            if stamp == self._stamp:
                return False
            # a keyring never saved is dropped for the one another process saved meanwhile
            # (this one sealed nothing: sealing saves first)
            self._unsaved = False
            keyring = source.load()  # ConfigError when the file is gone or malformed
            if self.follow.guard is not None:
                self.follow.guard.check(keyring)
            cipher._install(keyring)
            self._stamp = stamp
            self._recorded.clear()  # the record may have changed with the file: record again
        return True

    def _save_new(self, cipher: Rekeyed) -> None:
        """Save the new keyring, or take the one another process saved first."""
        follow, source = self.follow, self.follow.source
        assert source is not None, "a new keyring needs a source to be saved to"
        with self._lock:
            if not self._unsaved:
                return
            if source.stamp() is None:  # (else another cipher saved one: no need to wait)
                with source.changing():
                    keyring = cipher.keyring
                    if source.stamp() is None:
                        if follow.guard is not None:  # refuses if the data needs other keys
                            follow.guard.record(keyring.primary, keyring)
                            self._recorded.add(keyring.primary)
                        source.save_new(keyring)
            stamp, keyring = source.stamp(), source.load()
            if follow.guard is not None:
                follow.guard.check(keyring)
            cipher._install(keyring)
            self._stamp, self._unsaved = stamp, False
