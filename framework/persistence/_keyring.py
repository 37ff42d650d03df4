"""The keyring: a primary key and older keys by id, checked when built; rotation, retirement.

Private: import these names from :mod:`framework.persistence.keys`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from framework.errors import ConfigError

__all__ = [
    "KEYS_VARIABLE",
    "KEY_CHECK_SIZE",
    "KEY_FILE_NAME",
    "KEY_SIZES",
    "NEW_KEY_SIZE",
    "Keyring",
    "check_id",
    "check_key",
    "key_check",
    "new_key_id",
    "retire",
    "rotate",
]

KEYS_VARIABLE = "CADRE_KEYS"
"""The environment variable ``EnvKeyProvider`` reads."""

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


def key_check(key: bytes) -> bytes:
    """A short fingerprint of ``key``: 4 bytes of HMAC-SHA256(key, "cadre key check").

    Stored in each blob's header, it tells a wrong key from a tampered blob without revealing
    anything useful about the key.
    """
    return hmac.new(key, _KEY_CHECK_LABEL, hashlib.sha256).digest()[:KEY_CHECK_SIZE]


def new_key_id() -> str:
    """A fresh key id: the UTC date and 6 random hex digits, e.g. ``k20250301-3fa9c1``."""
    return f"k{time.strftime('%Y%m%d', time.gmtime())}-{secrets.token_hex(3)}"


def check_id(key_id: object, source: str) -> str:
    """``key_id`` if it is a valid key id; ConfigError naming ``source`` otherwise."""
    if not isinstance(key_id, str) or not _KEY_ID.fullmatch(key_id):
        raise ConfigError(f"{source}: key id {key_id!r} is not valid; a key id is {_KEY_ID_RULE}")
    return key_id


def check_key(key_id: str, key: object, source: str) -> bytes:
    """``key`` if it is an AES key (16, 24 or 32 bytes); ConfigError naming ``source`` otherwise."""
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
        check_id(self.primary, source)
        checked = {
            check_id(key_id, source): check_key(key_id, key, source)
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
