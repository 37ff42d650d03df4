"""The key file: keys in a JSON file under the data home, and the lock that keeps it still
while blobs are sealed.

Private: import :class:`FileKeyProvider` from :mod:`framework.persistence.keys`.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from framework.database.home import write_aside
from framework.errors import ConfigError
from framework.persistence._keyring import KEYS_VARIABLE, Keyring, check_id, check_key

__all__ = ["CHANGE_WAIT_S", "FileKeyProvider", "KeyFileLock", "key_file_lock"]

CHANGE_WAIT_S = 30.0
"""How long a change of the key file waits for blobs being sealed to be committed."""

_FILE_FORMAT = 1
_POLL_S = 0.02

logger = logging.getLogger("cadre.keys")


class KeyFileLock:
    """A readers-writer lock between processes (``flock`` on a file in ``locks/`` beside the key
    file) and between the threads of this one. Use :func:`key_file_lock`: one per file and
    process.

    Sealing a blob and committing it holds it shared; changing the key file holds it exclusive,
    so no blob is ever committed under a key the file dropped meanwhile.

    Args:
        path: The lock file (created with its folder on first use).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._state = threading.Condition()
        self._readers = 0
        self._writer = False
        self._fd: int | None = None

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Held by every thread sealing; waits while a process changes the key file."""
        with self._state:
            self._state.wait_for(lambda: not self._writer)
            if self._readers == 0:
                fcntl.flock(self._open(), fcntl.LOCK_SH)
            self._readers += 1
        try:
            yield
        finally:
            with self._state:
                self._readers -= 1
                if self._readers == 0:
                    fcntl.flock(self._open(), fcntl.LOCK_UN)
                    self._state.notify_all()

    @contextmanager
    def exclusive(self, wait_s: float = CHANGE_WAIT_S) -> Iterator[None]:
        """Held while the key file changes: once blobs being sealed are committed, none is
        sealed until the block ends.

        Raises:
            ConfigError: Blobs were still being sealed after ``wait_s`` seconds.
        """
        deadline = time.monotonic() + wait_s
        with self._state:
            if not self._state.wait_for(lambda: not self._writer and not self._readers, wait_s):
                raise self._busy(wait_s)
            self._writer = True
        try:
            fd = self._open()
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise self._busy(wait_s) from None
                    time.sleep(_POLL_S)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            with self._state:
                self._writer = False
                self._state.notify_all()

    def settled(self, wait_s: float = CHANGE_WAIT_S) -> bool:
        """Wait (at most ``wait_s`` seconds) until no process is changing the key file; whether
        none is. Takes nothing and creates nothing: a lock file never made was never held."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return True
        deadline = time.monotonic() + wait_s
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # released with the fd
                    return True
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        return False
                    time.sleep(_POLL_S)
        finally:
            os.close(fd)

    def _open(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._fd

    def _busy(self, wait_s: float) -> ConfigError:
        return ConfigError(
            f"the key file is in use: other processes kept sealing data for {wait_s:.0f} s "
            f"(lock {self.path}); try again in a moment"
        )


_LOCKS: dict[Path, KeyFileLock] = {}
_LOCKS_GUARD = threading.Lock()


def key_file_lock(key_file: Path) -> KeyFileLock:
    """This process's lock of ``key_file``: ``locks/<name>.lock`` beside it."""
    path = Path(os.path.abspath(key_file.parent / "locks" / f"{key_file.name}.lock"))
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(path, KeyFileLock(path))


class FileKeyProvider:
    """Keys in a JSON file, mode 0600; created with one random key on first use, if ``create``.

    The file reads ``{"version": 1, "primary": ID, "keys": {ID: BASE64KEY, ...}}``. A file that
    group or others may read or write is refused. Creating it logs a one-line warning: the key
    then lives next to the data it protects, so anyone who copies the data home copies the key.

    Other processes may change the file while this one runs (``cadre keys rotate``, ``retire``):
    :meth:`stamp` tells cheaply that it changed, :meth:`sealing` and :meth:`changing` keep a
    blob from being sealed while it does (a ``KeySource`` for ``BlobCipher``).

    Args:
        path: The key file, usually ``DataHome.root / "keys.json"``.
        create: Make the file in :meth:`load` when it does not exist (else refuse).
    """

    def __init__(self, path: Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self.create = create
        self._lock: KeyFileLock | None = None

    def __repr__(self) -> str:
        return f"FileKeyProvider({str(self.path)!r})"

    def exists(self) -> bool:
        """Whether the key file exists."""
        return self.path.exists()

    def load(self) -> Keyring:
        """Read the key file, creating it first if it does not exist and ``create`` is set.

        Raises:
            ConfigError: The file is missing (and not created), readable by group or others,
                malformed, or holds a key of the wrong length.
        """
        if not self.path.exists() and self.create:
            self.save_new(Keyring.generate())
        return self._read()

    def stamp(self) -> tuple[int, ...] | None:
        """The file's identity and change time (None: no file); a rewrite changes it."""
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (found.st_ino, found.st_mtime_ns, found.st_ctime_ns, found.st_size)

    def written_stamp(self, wait_s: float = CHANGE_WAIT_S) -> tuple[int, ...] | None:
        """:meth:`stamp` once no process is writing the file (the first process of a home
        records its new key, then writes the file: a second one may see the key first)."""
        self._file_lock().settled(wait_s)
        return self.stamp()

    def sealing(self) -> contextlib.AbstractContextManager[None]:
        """Held while a blob is sealed under these keys and committed: the file stays as it is."""
        return self._file_lock().shared()

    def changing(self) -> contextlib.AbstractContextManager[None]:
        """Held while the file changes, once the blobs being sealed are committed."""
        return self._file_lock().exclusive()

    def _file_lock(self) -> KeyFileLock:
        if self._lock is None:
            self._lock = key_file_lock(self.path)
        return self._lock

    def save(self, keyring: Keyring) -> None:
        """Write ``keyring`` atomically (a temporary file renamed over the old one), mode 0600."""
        tmp = self._write_temp(keyring)
        try:
            os.replace(tmp, self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _sync_dir(self.path.parent)

    def save_new(self, keyring: Keyring) -> bool:
        """Write ``keyring`` unless the file exists (another process may create it at the same
        time: one wins); whether this call created it (with a one-line warning)."""
        tmp = self._write_temp(keyring)
        try:
            os.link(tmp, self.path)  # fails if another process created it meanwhile
        except FileExistsError:
            return False
        finally:
            tmp.unlink(missing_ok=True)
        _sync_dir(self.path.parent)
        logger.warning(
            "cadre: created encryption key file %s (mode 0600); the key lives next to the data "
            "it protects, so set %s or use a KMS hook to keep it elsewhere",
            self.path,
            KEYS_VARIABLE,
        )
        return True

    def _write_temp(self, keyring: Keyring) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        document = {
            "version": _FILE_FORMAT,
            "primary": keyring.primary,
            "keys": {
                kid: base64.b64encode(key).decode("ascii") for kid, key in keyring.keys.items()
            },
        }
        data = (json.dumps(document, indent=2) + "\n").encode("utf-8")
        return write_aside(self.path, data)

    def _read(self) -> Keyring:
        try:
            mode = self.path.stat().st_mode & 0o777
            document = json.loads(self.path.read_bytes()) if not mode & 0o077 else None
        except FileNotFoundError:
            raise ConfigError(
                f"key file {self.path} does not exist: restore it from a backup, or set "
                f"{KEYS_VARIABLE} to the keys of this data"
            ) from None
        except (OSError, ValueError) as exc:
            raise ConfigError(f"key file {self.path} cannot be read as JSON ({exc})") from None
        if mode & 0o077:
            raise ConfigError(
                f"key file {self.path} has mode {mode:04o}: group or others may access it; "
                f"run `chmod 600 {self.path}` (and consider rotating the keys)"
            )
        return self._parse(document)

    def _parse(self, document: Any) -> Keyring:
        source = f"key file {self.path}"
        expected = '{"version": 1, "primary": ID, "keys": {ID: BASE64KEY, ...}}'
        if not isinstance(document, dict) or document.get("version") != _FILE_FORMAT:
            raise ConfigError(f"{source} is not a cadre key file (version 1): expected {expected}")
        entries, primary = document.get("keys"), document.get("primary")
        if not isinstance(entries, dict) or not isinstance(primary, str):
            raise ConfigError(f"{source} lacks 'primary' or 'keys': expected {expected}")
        keys: dict[str, bytes] = {}
        for key_id, encoded in entries.items():
            check_id(key_id, source)
            try:
                key = base64.b64decode(str(encoded), validate=True)
            except (binascii.Error, ValueError):
                raise ConfigError(f"{source}: the key of {key_id!r} is not valid base64") from None
            keys[key_id] = check_key(key_id, key, source)
        if primary not in keys:
            raise ConfigError(f"{source}: the primary key id {primary!r} is not among its keys")
        return Keyring(primary=primary, keys=keys)


def _sync_dir(path: Path) -> None:
    """Flush a directory entry (a rename or link) to disk where the platform allows it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
