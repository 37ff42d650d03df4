"""Encryption keys: a keyring, where it comes from, and how it changes.

A :class:`Keyring` holds one primary key (every new blob is written under it) and older keys kept
for reading. Keys come from a :class:`KeyProvider`:

* :class:`EnvKeyProvider` reads ``CADRE_KEYS="k2:BASE64,k1:BASE64"`` (the first is primary);
* :class:`FileKeyProvider` reads a JSON key file under the data home, created on first use with
  one random key and mode 0600 (with a warning: the key then lives next to the data);
* :class:`CallableKeyProvider` calls a function of yours, the hook for an external KMS.

Every provider checks the keys when they are loaded, so a key of the wrong length is refused at
start, not at the first write. :func:`rotate` adds a new primary, :func:`retire` drops a key that
no blob uses any more (``cadre keys status`` tells which are in use).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from framework.errors import ConfigError
from framework.home import DataHome

__all__ = [
    "KEYS_VARIABLE",
    "KEY_FILE_NAME",
    "KEY_SIZES",
    "CallableKeyProvider",
    "EnvKeyProvider",
    "FileKeyProvider",
    "KeyProvider",
    "Keyring",
    "default_key_provider",
    "key_check",
    "new_key_id",
    "parse_keys",
    "retire",
    "rotate",
]

KEYS_VARIABLE = "CADRE_KEYS"
"""The environment variable :class:`EnvKeyProvider` reads."""

KEY_FILE_NAME = "keys.json"
"""The key file's name under the data home."""

KEY_SIZES = (16, 24, 32)
"""Allowed key lengths in bytes: AES-128, AES-192, AES-256."""

NEW_KEY_SIZE = 32
"""Generated keys are AES-256."""

KEY_CHECK_SIZE = 4
"""Bytes of :func:`key_check` stored in each blob's header."""

_KEY_CHECK_LABEL = b"cadre key check"
_KEY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_KEY_ID_RULE = (
    "1 to 64 characters: letters, digits, '.', '_' or '-', starting with a letter or digit "
    "(no ':' or ',')"
)
_ENV_FORM = (
    f"{KEYS_VARIABLE} must read 'ID:BASE64KEY[,ID:BASE64KEY...]', the first being the primary "
    f'key, e.g. {KEYS_VARIABLE}="k2:$(openssl rand -base64 32),k1:..."'
)
_FILE_FORMAT = 1

logger = logging.getLogger("cadre.keys")


def key_check(key: bytes) -> bytes:
    """A short fingerprint of ``key``: 4 bytes of HMAC-SHA256(key, "cadre key check").

    Stored in each blob's header, it tells a wrong key from a tampered blob without revealing
    anything useful about the key.
    """
    return hmac.new(key, _KEY_CHECK_LABEL, hashlib.sha256).digest()[:KEY_CHECK_SIZE]


def new_key_id() -> str:
    """A fresh key id: the UTC date and 6 random hex digits, e.g. ``k20250301-3fa9c1``."""
    return f"k{time.strftime('%Y%m%d', time.gmtime())}-{secrets.token_hex(3)}"


def _check_id(key_id: object, source: str) -> str:
    if not isinstance(key_id, str) or not _KEY_ID.fullmatch(key_id):
        raise ConfigError(f"{source}: key id {key_id!r} is not valid; a key id is {_KEY_ID_RULE}")
    return key_id


def _check_key(key_id: str, key: object, source: str) -> bytes:
    if not isinstance(key, bytes):
        raise ConfigError(f"{source}: key {key_id!r} must be bytes, got {type(key).__name__}")
    if len(key) not in KEY_SIZES:
        raise ConfigError(
            f"{source}: key {key_id!r} is {len(key)} bytes long; an AES key is 16, 24 or 32 "
            "bytes (generate one with `openssl rand -base64 32`)"
        )
    return key


@dataclass(frozen=True, kw_only=True, repr=False)
class Keyring:
    """The primary key id and every key by id; immutable, checked when built.

    Args:
        primary: The id of the key new blobs are written under; must be in ``keys``.
        keys: Key id -> key bytes (16, 24 or 32). Older keys stay here for reading.

    Raises:
        ConfigError: An id is not valid, a key has the wrong length, or ``primary`` is missing.
    """

    primary: str
    keys: Mapping[str, bytes]

    def __post_init__(self) -> None:
        source = "keyring"
        _check_id(self.primary, source)
        checked = {
            _check_id(key_id, source): _check_key(key_id, key, source)
            for key_id, key in self.keys.items()
        }
        if self.primary not in checked:
            raise ConfigError(
                f"keyring: the primary key id {self.primary!r} is not among its keys "
                f"{sorted(checked)}; add the key or name one of those as primary"
            )
        ordered = {self.primary: checked[self.primary]} | checked
        object.__setattr__(self, "keys", MappingProxyType(ordered))

    def __repr__(self) -> str:
        return f"Keyring(primary={self.primary!r}, ids={self.ids!r})"

    @property
    def ids(self) -> tuple[str, ...]:
        """Every key id, the primary first."""
        return tuple(self.keys)

    @property
    def primary_key(self) -> bytes:
        """The key new blobs are written under."""
        return self.keys[self.primary]

    @classmethod
    def generate(cls, key_id: str | None = None) -> Keyring:
        """A keyring of one new random 32-byte key, under ``key_id`` or :func:`new_key_id`."""
        key_id = key_id if key_id is not None else new_key_id()
        return cls(primary=key_id, keys={key_id: secrets.token_bytes(NEW_KEY_SIZE)})


def rotate(keyring: Keyring, key_id: str | None = None) -> Keyring:
    """A keyring with a new random primary key; the old keys are kept for reading.

    Args:
        keyring: The current keyring.
        key_id: The new key's id; :func:`new_key_id` when omitted.

    Raises:
        ConfigError: ``key_id`` is already in the keyring or not a valid id.
    """
    key_id = key_id if key_id is not None else new_key_id()
    if key_id in keyring.keys:
        raise ConfigError(f"cannot rotate to key id {key_id!r}: the keyring already holds it")
    keys = {key_id: secrets.token_bytes(NEW_KEY_SIZE), **keyring.keys}
    return Keyring(primary=key_id, keys=keys)


def retire(keyring: Keyring, key_id: str) -> Keyring:
    """A keyring without ``key_id``; blobs still under it can no longer be read.

    Re-encrypt first (``cadre keys reencrypt``) and check that no blob uses the key
    (``cadre keys status``).

    Raises:
        ConfigError: ``key_id`` is the primary key or is not in the keyring.
    """
    if key_id == keyring.primary:
        raise ConfigError(
            f"cannot retire key {key_id!r}: it is the primary key; rotate to a new primary "
            "first, re-encrypt, then retire it"
        )
    if key_id not in keyring.keys:
        raise ConfigError(f"cannot retire key {key_id!r}: the keyring holds {list(keyring.ids)}")
    keys = {kid: key for kid, key in keyring.keys.items() if kid != key_id}
    return Keyring(primary=keyring.primary, keys=keys)


@runtime_checkable
class KeyProvider(Protocol):
    """Where a keyring comes from."""

    def load(self) -> Keyring:
        """Load and check the keyring.

        Raises:
            ConfigError: The keys are missing, malformed or of the wrong length.
        """
        ...


class EnvKeyProvider:
    """Keys from an environment variable: ``CADRE_KEYS="k2:BASE64,k1:BASE64"``.

    The first entry is the primary key. Keys are standard base64 (``openssl rand -base64 32``).

    Args:
        variable: The variable to read.
        environ: The environment; ``os.environ`` when omitted.
    """

    def __init__(
        self, variable: str = KEYS_VARIABLE, environ: Mapping[str, str] | None = None
    ) -> None:
        self.variable = variable
        self._environ = environ

    def load(self) -> Keyring:
        """Parse the variable.

        Raises:
            ConfigError: It is unset, empty or malformed (the message shows the expected form,
                never a key), an id repeats, or a key has the wrong length.
        """
        environ = self._environ if self._environ is not None else os.environ
        value = environ.get(self.variable, "").strip()
        if not value:
            raise ConfigError(f"{self.variable} is not set; {_ENV_FORM}")
        return parse_keys(value, source=self.variable)


def parse_keys(value: str, source: str = KEYS_VARIABLE) -> Keyring:
    """Parse ``ID:BASE64KEY[,ID:BASE64KEY...]`` (the first is primary) into a keyring.

    Raises:
        ConfigError: The text is malformed; the message never contains key material.
    """
    keys: dict[str, bytes] = {}
    for position, entry in enumerate(value.split(","), start=1):
        key_id, sep, encoded = (part.strip() for part in entry.strip().partition(":"))
        where = f"{source} entry {position}"
        if not sep or not key_id or not encoded:
            raise ConfigError(f"{where} is not 'ID:BASE64KEY'; {_ENV_FORM}")
        _check_id(key_id, where)
        if key_id in keys:
            raise ConfigError(f"{where}: key id {key_id!r} appears twice; each id names one key")
        try:
            key = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise ConfigError(
                f"{where}: the key of {key_id!r} is not valid base64; {_ENV_FORM}"
            ) from None
        keys[key_id] = _check_key(key_id, key, where)
    primary = next(iter(keys))
    return Keyring(primary=primary, keys=keys)


class FileKeyProvider:
    """Keys in a JSON file, created on first use with one random key and mode 0600.

    The file reads ``{"version": 1, "primary": ID, "keys": {ID: BASE64KEY, ...}}``. A file that
    group or others may read or write is refused. Creating it logs a one-line warning: the key
    then lives next to the data it protects, so anyone who copies the data home copies the key.

    Args:
        path: The key file, usually ``DataHome.root / "keys.json"``.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def load(self) -> Keyring:
        """Read the key file, creating it first if it does not exist.

        Raises:
            ConfigError: The file is readable by group or others, malformed, or holds a key of
                the wrong length.
        """
        if not self.path.exists():
            self._create()
        return self._read()

    def save(self, keyring: Keyring) -> None:
        """Write ``keyring`` atomically (a temporary file renamed over the old one), mode 0600."""
        tmp = self._write_temp(keyring)
        try:
            os.replace(tmp, self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _sync_dir(self.path.parent)

    def _create(self) -> None:
        tmp = self._write_temp(Keyring.generate())
        try:
            os.link(tmp, self.path)  # fails if another process created it meanwhile
        except FileExistsError:
            return
        finally:
            tmp.unlink(missing_ok=True)
        _sync_dir(self.path.parent)
        logger.warning(
            "cadre: created encryption key file %s (mode 0600); the key lives next to the data "
            "it protects, so set %s or use a KMS hook to keep it elsewhere",
            self.path,
            KEYS_VARIABLE,
        )

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
        tmp = self.path.with_name(f".{self.path.name}.{secrets.token_hex(6)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.fchmod(fd, 0o600)  # whatever the umask
            os.write(fd, data)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        os.close(fd)
        return tmp

    def _read(self) -> Keyring:
        mode = self.path.stat().st_mode & 0o777
        if mode & 0o077:
            raise ConfigError(
                f"key file {self.path} has mode {mode:04o}: group or others may access it; "
                f"run `chmod 600 {self.path}` (and consider rotating the keys)"
            )
        try:
            document = json.loads(self.path.read_bytes())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"key file {self.path} cannot be read as JSON ({exc})") from None
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
            _check_id(key_id, source)
            try:
                key = base64.b64decode(str(encoded), validate=True)
            except (binascii.Error, ValueError):
                raise ConfigError(f"{source}: the key of {key_id!r} is not valid base64") from None
            keys[key_id] = _check_key(key_id, key, source)
        if primary not in keys:
            raise ConfigError(f"{source}: the primary key id {primary!r} is not among its keys")
        return Keyring(primary=primary, keys=keys)


class CallableKeyProvider:
    """Keys from a function of yours: the hook for an external KMS or secret manager.

    ``fetch`` is called once per :meth:`load` (no caching here: cache in ``fetch`` if the KMS is
    slow). It returns a :class:`Keyring`, or a mapping of key id -> key bytes whose first entry is
    the primary key.

    Args:
        fetch: Returns the current keys.
    """

    def __init__(self, fetch: Callable[[], Keyring | Mapping[str, bytes]]) -> None:
        self.fetch = fetch

    def load(self) -> Keyring:
        """Call ``fetch`` and check what it returned.

        Raises:
            ConfigError: It returned no keys, something else than a keyring or a mapping, or a
                key of the wrong length.
        """
        fetched = self.fetch()
        if isinstance(fetched, Keyring):
            return fetched
        if not isinstance(fetched, Mapping) or not fetched:
            raise ConfigError(
                "the key provider hook must return a Keyring or a non-empty mapping of key id -> "
                f"key bytes (the first is primary), got {type(fetched).__name__}"
            )
        return Keyring(primary=next(iter(fetched)), keys=fetched)


def default_key_provider(home: DataHome, environ: Mapping[str, str] | None = None) -> KeyProvider:
    """``CADRE_KEYS`` when it is set, else the key file ``keys.json`` under the data home."""
    environ = environ if environ is not None else os.environ
    if environ.get(KEYS_VARIABLE, "").strip():
        return EnvKeyProvider(environ=environ)
    return FileKeyProvider(home.root / KEY_FILE_NAME)


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
