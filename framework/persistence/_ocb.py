"""AES-OCB (RFC 7253, 16-byte tag) under one key, set up once and used for every blob.

OpenSSL's OCB through ``cryptography`` (:class:`AESOCB3`) keeps the expanded key in one object:
a small blob costs about 1 µs, against about 20 µs for pycryptodome, whose cipher objects are
single-use and expand the key each time. Where the OpenSSL that ``cryptography`` links offers
no OCB (a FIPS build), pycryptodome's is used. Both are RFC 7253, so each opens what the other
sealed: the choice changes no stored byte.
"""

from __future__ import annotations

from functools import cache
from typing import Protocol

from cryptography.exceptions import InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives.ciphers.aead import AESOCB3

__all__ = ["Ocb", "ocb"]


class Ocb(Protocol):
    """Seals and opens under one key; a failed check raises :class:`ValueError`."""

    def seal(self, nonce: bytes, plaintext: bytes, associated_data: bytes) -> tuple[bytes, bytes]:
        """The tag and the ciphertext."""
        ...

    def open(self, nonce: bytes, ciphertext: bytes, tag: bytes, associated_data: bytes) -> bytes:
        """The plaintext, or :class:`ValueError` when the tag does not match."""
        ...


class _OpenSslOcb:
    def __init__(self, key: bytes) -> None:
        self._aead = AESOCB3(key)

    def seal(self, nonce: bytes, plaintext: bytes, associated_data: bytes) -> tuple[bytes, bytes]:
        sealed = self._aead.encrypt(nonce, plaintext, associated_data)
        return sealed[-16:], sealed[:-16]

    def open(self, nonce: bytes, ciphertext: bytes, tag: bytes, associated_data: bytes) -> bytes:
        try:
            return self._aead.decrypt(nonce, ciphertext + tag, associated_data)
        except InvalidTag:
            raise ValueError("MAC check failed") from None


class _PyCryptodomeOcb:
    def __init__(self, key: bytes) -> None:
        self._key = key

    def seal(self, nonce: bytes, plaintext: bytes, associated_data: bytes) -> tuple[bytes, bytes]:
        from Crypto.Cipher import AES  # noqa: PLC0415 - only where OpenSSL lacks OCB

        cipher = AES.new(self._key, AES.MODE_OCB, nonce=nonce)
        cipher.update(associated_data)
        ciphertext, tag = cipher.encrypt_and_digest(plaintext)
        return tag, ciphertext

    def open(self, nonce: bytes, ciphertext: bytes, tag: bytes, associated_data: bytes) -> bytes:
        from Crypto.Cipher import AES  # noqa: PLC0415

        cipher = AES.new(self._key, AES.MODE_OCB, nonce=nonce)
        cipher.update(associated_data)
        return cipher.decrypt_and_verify(ciphertext, tag)


@cache
def _openssl_has_ocb() -> bool:
    try:
        _OpenSslOcb(bytes(32))
    except UnsupportedAlgorithm:
        return False
    return True


def ocb(key: bytes) -> Ocb:
    """AES-OCB under ``key`` (16, 24 or 32 bytes), through OpenSSL where it offers OCB."""
    return _OpenSslOcb(key) if _openssl_has_ocb() else _PyCryptodomeOcb(key)
