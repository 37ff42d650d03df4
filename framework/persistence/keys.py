"""Encryption keys: a keyring, where it comes from, and how it changes.

A :class:`Keyring` holds one primary key (every new blob is written under it) and older keys kept
for reading. Keys come from a :class:`KeyProvider`:

* :class:`EnvKeyProvider` reads ``CADRE_KEYS="k2:BASE64,k1:BASE64"`` (the first is primary);
* :class:`FileKeyProvider` reads a JSON key file under the data home (mode 0600; a data home
  makes it with one random key when the first blob is sealed, never while it holds data);
* :class:`CallableKeyProvider` calls a function of yours, the hook for an external KMS.

Every provider checks the keys when they are loaded, so a key of the wrong length is refused at
start, not at the first write. :func:`rotate` adds a new primary, :func:`retire` drops a key that
no blob uses any more (``cadre keys status`` tells which are in use). A key file may change while
a process uses it: a :class:`KeySource` (the key file is one) lets a cipher notice and follow.
"""

from __future__ import annotations

import base64
import binascii
import os
import shlex
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

from framework.database.home import DataHome
from framework.errors import ConfigError
from framework.persistence._keyfile import FileKeyProvider
from framework.persistence._keyring import (
    KEY_CHECK_SIZE,
    KEY_FILE_NAME,
    KEY_SIZES,
    KEYS_VARIABLE,
    NEW_KEY_SIZE,
    Keyring,
    check_id,
    check_key,
    key_check,
    new_key_id,
    retire,
    rotate,
)

__all__ = [
    "KEYS_VARIABLE",
    "KEY_CHECK_SIZE",
    "KEY_FILE_NAME",
    "KEY_SIZES",
    "NEW_KEY_SIZE",
    "CallableKeyProvider",
    "EnvKeyProvider",
    "FileKeyProvider",
    "KeyProvider",
    "KeySource",
    "Keyring",
    "default_key_provider",
    "key_check",
    "new_key_id",
    "parse_keys",
    "retire",
    "rotate",
]

_ENV_FORM = (
    f"{KEYS_VARIABLE} must read 'ID:BASE64KEY[,ID:BASE64KEY...]', the first being the primary "
    f'key, e.g. {KEYS_VARIABLE}="k2:$(openssl rand -base64 32),k1:..."'
)
_JQ_KEYS = (
    """jq -r '.primary as $p | .keys as $k | [$p] + (($k | keys_unsorted) - [$p]) """
    """| map(. + ":" + $k[.]) | join(",")'"""
)
"""Prints the keys of the key file it is given in the form of ``$CADRE_KEYS``."""


@runtime_checkable
class KeyProvider(Protocol):
    """Where a keyring comes from."""

    def load(self) -> Keyring:
        """Load and check the keyring.

        Raises:
            ConfigError: The keys are missing, malformed or of the wrong length.
        """
        ...


@runtime_checkable
class KeySource(Protocol):
    """Keys that other processes may change while this one uses them: the key file.

    :class:`FileKeyProvider` is one. A cipher following a source checks :meth:`stamp` before
    it seals and when a blob names a key it lacks, and reloads when it changed.
    """

    def load(self) -> Keyring:
        """Load and check the keyring (ConfigError when it is missing or malformed)."""
        ...

    def stamp(self) -> object:
        """A cheap token that changes whenever the keys may have changed (None: no keys)."""
        ...

    def sealing(self) -> AbstractContextManager[None]:
        """Held while a blob is sealed and committed: the keys do not change meanwhile."""
        ...

    def changing(self) -> AbstractContextManager[None]:
        """Held while the keys change, once the blobs being sealed are committed."""
        ...

    def save_new(self, keyring: Keyring) -> bool:
        """Save ``keyring`` unless keys exist already; whether it was saved."""
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
            ConfigError: It is unset, empty, a file path (the message shows how to make the
                value from a key file) or malformed (the message shows the expected form, never
                a key), an id repeats, or a key has the wrong length.
        """
        environ = self._environ if self._environ is not None else os.environ
        value = environ.get(self.variable, "").strip()
        if not value:
            raise ConfigError(f"{self.variable} is not set; {_ENV_FORM}")
        _refuse_path(value, self.variable)
        return parse_keys(value, source=self.variable)


def _refuse_path(value: str, variable: str) -> None:
    """Refuse a file path where the keys themselves belong (a copy of ``keys.json``, say).

    Raises:
        ConfigError: ``value`` names a file (or a ``.json`` one): what to put there instead.
    """
    if ":" in value or not (value.endswith(".json") or os.path.exists(value)):
        return  # (base64 has no ".", so no key ends so)
    raise ConfigError(
        f"{variable} holds a path ({value!r}), not keys: it takes 'ID:BASE64KEY[,ID:BASE64KEY"
        f"...]', the first being the primary; make it from the key file with "
        f'{variable}="$({_JQ_KEYS} {shlex.quote(value)})", or unset it to use keys.json in the '
        "data home"
    )


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
        check_id(key_id, where)
        if key_id in keys:
            raise ConfigError(f"{where}: key id {key_id!r} appears twice; each id names one key")
        try:
            key = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise ConfigError(
                f"{where}: the key of {key_id!r} is not valid base64; {_ENV_FORM}"
            ) from None
        keys[key_id] = check_key(key_id, key, where)
    primary = next(iter(keys))
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
    """``CADRE_KEYS`` when it is set, else the key file ``keys.json`` under the data home (not
    created by :meth:`~FileKeyProvider.load`: ``framework.runs.stores.home_cipher`` makes it when
    the home's first blob is sealed)."""
    environ = environ if environ is not None else os.environ
    if environ.get(KEYS_VARIABLE, "").strip():
        return EnvKeyProvider(environ=environ)
    return FileKeyProvider(home.root / KEY_FILE_NAME, create=False)
