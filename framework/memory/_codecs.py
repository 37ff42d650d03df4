"""What a :class:`~framework.memory.store.SemanticStore` passes its texts and metadata through
on their way to disk: a plain transform, or authenticated encryption bound to each row."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

__all__ = ["PlainCodec", "RowCodec", "ValueCodec"]


class ValueCodec(Protocol):
    """Transforms text and metadata bytes on their way to and from disk, the same way for
    every row (compression, a test double).

    A value written through it is not bound to its row; for encryption at rest pass a
    :class:`RowCodec` instead. Vectors are not passed through the codec, so search keeps
    working on encoded stores.
    """

    def encode(self, data: bytes) -> bytes:
        """Bytes to write for ``data``."""
        ...

    def decode(self, data: bytes) -> bytes:
        """The original bytes of something :meth:`encode` wrote."""
        ...


@runtime_checkable
class RowCodec(Protocol):
    """Authenticated encryption with associated data, such as
    :class:`~framework.persistence.cipher.BlobCipher`.

    The store passes the identity of the row and column a value is written to as associated
    data, so a value moved to another row, column or store fails to open. A store that seals
    with one also keeps its keys and hashes keyed (see ``docs/persistence.md``).
    """

    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes:
        """Seal ``plaintext`` for the row ``associated_data`` names."""
        ...

    def decrypt(self, blob: bytes, associated_data: bytes) -> bytes:
        """Open ``blob``; a :class:`~framework.errors.CryptoError` unless it was sealed with the
        same ``associated_data`` and is intact."""
        ...

    def sealing(self) -> AbstractContextManager[Any]:
        """The block values are sealed and committed in (keys that change are held still)."""
        ...


class PlainCodec:
    """The identity codec: values are stored as they are."""

    def encode(self, data: bytes) -> bytes:
        """Return ``data`` unchanged."""
        return data

    def decode(self, data: bytes) -> bytes:
        """Return ``data`` unchanged."""
        return data
