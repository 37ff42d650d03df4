"""Authenticated encryption of blobs (AES-OCB), each bound to the row it is stored at.

:class:`BlobCipher` seals bytes under the keyring's primary key and opens them under any key of
the keyring. The caller passes the row's identity as associated data (see :func:`row_identity`):
a blob opened at another row, edited or truncated fails with :class:`TamperError`. Nothing is
ever read as plaintext: a blob without the header is refused with :class:`PlaintextBlobError`.

Blob format (version 1)::

    offset    size  field
    0         4     magic b"\\xfeCDR"
    4         1     format version (1: AES-OCB, 15-byte nonce, 16-byte tag)
    5         1     n, the length of the key id
    6         n     key id (ASCII)
    6+n       4     key check: HMAC-SHA256(key, "cadre key check")[:4]
    10+n      15    nonce (random)
    25+n      16    tag
    41+n      ...   ciphertext (as long as the plaintext)

The authenticated associated data is the header (bytes ``0 .. 10+n``), then the caller's
associated data, then the padding ``0x80 00..`` up to a whole 16-byte block, so an edited header
fails as well. The key check tells a wrong key (:class:`WrongKeyError`) from a tampered blob.
Nonces are random: at 120 bits, a repeat under one key is not a concern for any realistic number
of blobs.

AES-OCB was chosen by measurement: with a new cipher object per blob it costs about 14 µs per
1 KiB blob here, against ~34 µs for GCM and CCM and ~100 µs for EAX and SIV (``bench/cipher.py``,
``docs/benchmarks/encryption.md``). Each key's OCB is set up once (:mod:`._ocb`: OpenSSL's,
about 1 µs per small blob).

A cipher may *follow* its keys (:class:`KeyFollow`): writers seal inside
:meth:`BlobCipher.sealing`, which reloads the keys when their source (the key file) changed, holds
it still until the blob is committed, and has a guard record each key before its first blob; a
blob under a key the cipher lacks makes it reload once before it gives up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

from framework.errors import (
    PlaintextBlobError,
    TamperError,
    UnknownKeyError,
    UnsupportedFormatError,
    WrongKeyError,
)
from framework.persistence._follow import Follower, KeyFollow, KeyGuard
from framework.persistence._ocb import Ocb, ocb
from framework.persistence.keys import KEY_CHECK_SIZE, KeyProvider, Keyring, key_check

__all__ = [
    "FORMAT_VERSION",
    "MAGIC",
    "MODE_NAME",
    "BlobCipher",
    "BoundCipher",
    "KeyFollow",
    "KeyGuard",
    "key_id_of",
    "row_identity",
]

MAGIC = b"\xfeCDR"
"""The first bytes of every sealed blob (0xFE never starts UTF-8 text)."""

FORMAT_VERSION = 1
"""The blob format this module writes (and the only one it reads)."""

MODE_NAME = "AES-OCB"
"""The authenticated mode of format version 1."""

NONCE_SIZE = 15
TAG_SIZE = 16
_VERSION_AT = len(MAGIC)
_ID_LENGTH_AT = _VERSION_AT + 1
_ID_AT = _ID_LENGTH_AT + 1
_PADDING = tuple(b"\x80" + bytes(15 - used) for used in range(16))
"""Padding by the length used in the last 16-byte block: 0x80 then zeros (ISO/IEC 7816-4)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Key:
    key_id: str
    key: bytes = field(repr=False)
    check: bytes
    header: bytes
    ocb: Ocb = field(repr=False)


@dataclass(frozen=True, slots=True)
class _Ring:
    keyring: Keyring
    keys: Mapping[bytes, _Key]
    primary: _Key


def _ring(keyring: Keyring) -> _Ring:
    keys: dict[bytes, _Key] = {}
    for key_id, key in keyring.keys.items():
        raw_id = key_id.encode("ascii")
        check = key_check(key)
        header = MAGIC + bytes((FORMAT_VERSION, len(raw_id))) + raw_id + check
        keys[raw_id] = _Key(key_id=key_id, key=key, check=check, header=header, ocb=ocb(key))
    return _Ring(keyring=keyring, keys=keys, primary=keys[keyring.primary.encode("ascii")])


def row_identity(*parts: str | bytes | int) -> bytes:
    """Associated data naming one row, e.g. ``row_identity("checkpoint", thread, ns, id)``.

    Each part is length-prefixed, so ``("a:b", "c")`` and ``("a", "b:c")`` differ. Strings are
    UTF-8, integers their decimal text.
    """
    out = bytearray()
    for part in parts:
        raw = part if isinstance(part, bytes) else str(part).encode("utf-8")
        out += len(raw).to_bytes(4, "big")
        out += raw
    return bytes(out)


def _authenticated(header: bytes, associated_data: bytes) -> bytes:
    """The data OCB authenticates: header, caller's data, padding to a whole 16-byte block.

    The padding is unambiguous (always one 0x80 byte, then zeros); it is part of the format.
    """
    used = (len(header) + len(associated_data)) % 16
    return b"".join((header, associated_data, _PADDING[used]))


def _header_end(blob: bytes) -> int:
    """Check magic and version; return where the key check ends (the authenticated header)."""
    if blob[: len(MAGIC)] != MAGIC:
        if blob and len(blob) < len(MAGIC) and MAGIC.startswith(blob):
            raise TamperError(f"blob is truncated: {len(blob)} bytes, inside its header")
        raise PlaintextBlobError(
            "blob has no cadre encryption header: it is plaintext or foreign data, and is "
            "refused; data written without encryption cannot be read from an encrypted store"
        )
    if len(blob) <= _ID_LENGTH_AT:
        raise TamperError(f"blob is truncated: {len(blob)} bytes, inside its header")
    version = blob[_VERSION_AT]
    if version != FORMAT_VERSION:
        raise UnsupportedFormatError(
            f"blob is in encryption format version {version}; this cadre reads version "
            f"{FORMAT_VERSION} only (was it written by a newer cadre?)"
        )
    end = _ID_AT + blob[_ID_LENGTH_AT] + KEY_CHECK_SIZE
    if len(blob) < end + NONCE_SIZE + TAG_SIZE:
        raise TamperError(
            f"blob is truncated: {len(blob)} bytes, shorter than its header, nonce and tag"
        )
    return end


def key_id_of(blob: bytes) -> str:
    """The id of the key ``blob`` was written under, read from its header without decrypting.

    Raises:
        PlaintextBlobError: ``blob`` has no cadre header.
        UnsupportedFormatError: Its format version is unknown.
        TamperError: It is truncated or its key id is not text.
    """
    end = _header_end(blob)
    return _decode_id(blob[_ID_AT : end - KEY_CHECK_SIZE])


def _decode_id(raw: bytes) -> str:
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        raise TamperError(f"blob header was altered: its key id {raw!r} is not text") from None


class BlobCipher:
    """Seals and opens blobs with the keys of a :class:`Keyring`; thread-safe. Its keys change
    only when it follows them (``follow``).

    Every blob gets a random 15-byte nonce; each key's AES-OCB is set up once.

    Args:
        keyring: The primary key writes; every key reads.
        follow: Keeps up with keys other processes change (see :meth:`sealing`); None keeps
            ``keyring`` for good.
    """

    def __init__(self, keyring: Keyring, follow: KeyFollow | None = None) -> None:
        self._ring = _ring(keyring)
        self._follower = Follower(follow) if follow is not None else None

    @classmethod
    def from_provider(cls, provider: KeyProvider) -> BlobCipher:
        """A cipher over ``provider.load()`` (called once).

        Raises:
            ConfigError: The provider's keys are missing, malformed or of the wrong length.
        """
        return cls(provider.load())

    def __repr__(self) -> str:
        return f"BlobCipher({MODE_NAME}, {self.keyring!r})"

    @property
    def keyring(self) -> Keyring:
        """The keys in use now."""
        return self._ring.keyring

    @property
    def primary_key_id(self) -> str:
        """The id of the key new blobs are written under."""
        return self._ring.primary.key_id

    def sealing(self) -> AbstractContextManager[None]:
        """Seal and commit blobs inside this block: with a :class:`KeyFollow`, a new keyring is
        saved first, the keys are reloaded if their source changed and held still until the
        block ends (``cadre keys retire`` waits), and the guard records the primary key.

        Raises:
            ConfigError: The keys' source is gone or malformed, or the guard refused the keys
                (nothing was sealed).
        """
        return self._follower.sealing(self) if self._follower is not None else nullcontext()

    def refresh(self) -> bool:
        """Reload the keys if their source changed since they were read; whether it did.

        Raises:
            ConfigError: The source is gone or malformed, or the guard refused the new keys.
        """
        return self._follower is not None and self._follower.refresh(self)

    def _install(self, keyring: Keyring) -> None:
        """Use ``keyring`` from now on (its :class:`Follower` reloaded it)."""
        self._ring = _ring(keyring)

    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes:
        """Seal ``plaintext`` under the primary key, bound to ``associated_data``.

        Args:
            plaintext: The bytes to protect.
            associated_data: The identity of the row the blob is written to (see
                :func:`row_identity`); not stored, it must be passed again to decrypt.

        Returns:
            The blob: header, nonce, tag and ciphertext.

        Raises:
            ConfigError: As :meth:`sealing`, which a following cipher enters when its caller
                did not.
        """
        follower = self._follower
        if follower is not None and not follower.sealing_here():
            with follower.sealing(self):
                return self.encrypt(plaintext, associated_data)
        entry = self._ring.primary
        nonce = os.urandom(NONCE_SIZE)
        tag, ciphertext = entry.ocb.seal(
            nonce, plaintext, _authenticated(entry.header, associated_data)
        )
        return b"".join((entry.header, nonce, tag, ciphertext))

    def decrypt(self, blob: bytes, associated_data: bytes) -> bytes:
        """Open ``blob``, which must have been sealed with the same ``associated_data``.

        Raises:
            PlaintextBlobError: ``blob`` has no cadre header (plaintext is never returned).
            UnsupportedFormatError: Its format version is unknown.
            UnknownKeyError: Its key id is not in the keyring, reloaded from a changed source
                (the message names it).
            WrongKeyError: The keyring's key under that id is not the one it was sealed with.
            TamperError: It was edited, truncated, or sealed for another row.
        """
        try:
            entry, end = self._entry(blob)
        except UnknownKeyError:
            if not self.refresh():  # another process rotated and re-encrypted meanwhile?
                raise
            entry, end = self._entry(blob)
        nonce_end = end + NONCE_SIZE
        tag_end = nonce_end + TAG_SIZE
        try:
            return entry.ocb.open(
                blob[end:nonce_end],
                blob[tag_end:],
                blob[nonce_end:tag_end],
                _authenticated(blob[:end], associated_data),
            )
        except ValueError:
            raise TamperError(
                f"blob under key {entry.key_id!r} failed authentication: it does not belong at "
                "this row (copied from another thread, checkpoint or channel) or it was altered "
                "or truncated"
            ) from None

    def reencrypt(self, blob: bytes, associated_data: bytes) -> bytes:
        """``blob`` under the primary key: the same bytes if it already is, once verified.

        Raises:
            CryptoError: As :meth:`decrypt`.
        """
        plaintext = self.decrypt(blob, associated_data)
        if self._entry(blob)[0] is self._ring.primary:
            return blob
        return self.encrypt(plaintext, associated_data)

    def bind(self, associated_data: bytes) -> BoundCipher:
        """A codec sealing every value with the fixed ``associated_data`` (a ``ValueCodec``)."""
        return BoundCipher(self, associated_data)

    def _entry(self, blob: bytes) -> tuple[_Key, int]:
        end = _header_end(blob)
        raw_id = blob[_ID_AT : end - KEY_CHECK_SIZE]
        entry = self._ring.keys.get(raw_id)
        if entry is None:
            key_id = _decode_id(raw_id)
            raise UnknownKeyError(
                f"blob was written under key {key_id!r}, which the loaded keyring does not hold "
                f"(it holds {list(self.keyring.ids)}); load the keyring that has {key_id!r}"
            )
        if blob[end - KEY_CHECK_SIZE : end] != entry.check:
            raise WrongKeyError(
                f"blob was written under key {entry.key_id!r}, but the key loaded under that id "
                "is a different one (its key check does not match); load the original key "
                f"{entry.key_id!r} (or the blob's header was altered)"
            )
        return entry, end


class BoundCipher:
    """A :class:`BlobCipher` with fixed associated data, usable as a store's ``ValueCodec``.

    Every value gets the same associated data, so values can be told from other stores' (bind
    something naming the store) but not from each other within the store.

    Args:
        cipher: Seals and opens.
        associated_data: Bound to every value.
    """

    def __init__(self, cipher: BlobCipher, associated_data: bytes) -> None:
        self.cipher = cipher
        self.associated_data = associated_data

    def encode(self, data: bytes) -> bytes:
        """Seal ``data``."""
        return self.cipher.encrypt(data, self.associated_data)

    def decode(self, data: bytes) -> bytes:
        """Open a blob :meth:`encode` wrote.

        Raises:
            CryptoError: As :meth:`BlobCipher.decrypt`.
        """
        return self.cipher.decrypt(data, self.associated_data)
