"""How one row's blob is sealed and opened, and what of the metadata stays in plaintext.

Every blob column holds a *frame* (the serializer's type tag, then its bytes), sealed with
:class:`BlobCipher` when the database is encrypted. The associated data of a blob names its row
and binds the row's plaintext columns: a blob copied to another thread, checkpoint, channel,
version or task write fails with :class:`TamperError`, and so does a row whose plaintext
columns were edited (its parent id, metadata, delta base or channel).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from framework.errors import ConfigError, CryptoError, TamperError
from framework.persistence._schema import upsert
from framework.persistence.cipher import MAGIC, BlobCipher, key_id_of, row_identity

__all__ = [
    "PUBLIC_METADATA_KEYS",
    "TABLES",
    "THREAD_KEY_PREFIX",
    "BlobTable",
    "RowCodec",
    "ThreadKeys",
    "blob_ad",
    "checkpoint_ad",
    "chunk_ad",
    "describe_row",
    "is_thread_key",
    "manifest_ad",
    "merge_metadata",
    "split_metadata",
    "thread_key_id",
    "upsert_into",
    "write_ad",
]


class ThreadKeys(Protocol):
    """Where threads' own data keys are kept, as rows need it (a
    :class:`~framework.persistence.data_keys.DataKeys`)."""

    def cipher(self, key_id: str) -> BlobCipher:
        """The cipher of ``key_id``'s data key (made when it has none)."""
        ...

    def opener(self, blob: bytes) -> BlobCipher:
        """The cipher of the data key ``blob`` is sealed under."""
        ...


Typed = tuple[str, bytes]

THREAD_KEY_PREFIX = "thread-"
"""The key ids of threads' data keys (see :mod:`framework.persistence.data_keys`)."""

_THREAD_KEY_HEX = 24

PUBLIC_METADATA_KEYS: Mapping[str, type] = {
    "source": str,
    "step": int,
    "parents": dict,
    "run_id": str,
}
"""The metadata kept in the plaintext column (and filterable in SQL), with the type it must
have; everything else (configurable values, run metadata) goes into the sealed body."""


def checkpoint_ad(
    thread_id: str, checkpoint_ns: str, checkpoint_id: str, parent_id: str | None, metadata: str
) -> bytes:
    """The associated data of a checkpoint's body: its row and its plaintext columns."""
    return row_identity(
        "checkpoint", thread_id, checkpoint_ns, checkpoint_id, parent_id or "", metadata
    )


def blob_ad(  # noqa: PLR0917 - a row's columns, in order (see TABLES)
    thread_id: str, checkpoint_ns: str, channel: str, version: str, kind: str, base: str | None
) -> bytes:
    """The associated data of one channel value (full, delta on ``base``, or empty)."""
    return row_identity("blob", thread_id, checkpoint_ns, channel, version, kind, base or "")


def write_ad(  # noqa: PLR0917 - a row's columns, in order (see TABLES)
    thread_id: str,
    checkpoint_ns: str,
    checkpoint_id: str,
    task_id: str,
    idx: int,
    channel: str,
    task_path: str,
) -> bytes:
    """The associated data of one pending write."""
    return row_identity(
        "write", thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, task_path
    )


def manifest_ad(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> bytes:
    """The associated data of a checkpoint's manifest (see ``_manifests``)."""
    return row_identity("manifest", thread_id, checkpoint_ns, checkpoint_id)


def chunk_ad(thread_id: str, digest: str) -> bytes:
    """The associated data of a chunk of a large value (see ``_chunks``)."""
    return row_identity("chunk", thread_id, digest)


_ROW_FIELDS: Mapping[str, tuple[str, ...]] = {
    "checkpoint": ("thread", "namespace", "checkpoint"),
    "blob": ("thread", "namespace", "channel", "version"),
    "write": ("thread", "namespace", "checkpoint", "task", "index", "channel"),
    "manifest": ("thread", "namespace", "checkpoint"),
    "chunk": ("thread", "chunk"),
}
"""What names a row of each kind, in the order of its associated data (see the ``*_ad``)."""


def describe_row(associated_data: bytes) -> str:
    """The row an associated data names, as people read it: ``checkpoint row (thread t1,
    namespace top, checkpoint 1ef...)``; only its leading parts, never values."""
    parts: list[str] = []
    at = 0
    while at + 4 <= len(associated_data):
        size = int.from_bytes(associated_data[at : at + 4], "big")
        parts.append(associated_data[at + 4 : at + 4 + size].decode("utf-8", "replace"))
        at += 4 + size
    kind, *values = parts or ["?"]
    named = [
        f"{field} {value or 'top' if field == 'namespace' else value}"
        for field, value in zip(_ROW_FIELDS.get(kind, ()), values, strict=False)
    ]
    return f"{kind} row ({', '.join(named)})" if named else f"{kind} row"


@dataclass(frozen=True, kw_only=True)
class BlobTable:
    """A table with one sealed column: what to select to rebuild each row's associated data.

    ``columns`` starts with ``thread_id``, its first ``key`` columns are the primary key, and
    ``ad`` takes the selected values in that order.
    """

    name: str
    blob_column: str
    columns: tuple[str, ...]
    key: int
    ad: Callable[..., bytes]


TABLES: tuple[BlobTable, ...] = (
    BlobTable(
        name="cadre_checkpoints",
        blob_column="body",
        columns=("thread_id", "checkpoint_ns", "checkpoint_id", "parent_id", "metadata"),
        key=3,
        ad=checkpoint_ad,
    ),
    BlobTable(
        name="cadre_blobs",
        blob_column="value",
        columns=("thread_id", "checkpoint_ns", "channel", "version", "kind", "base_version"),
        key=4,
        ad=blob_ad,
    ),
    BlobTable(
        name="cadre_writes",
        blob_column="value",
        columns=(
            "thread_id",
            "checkpoint_ns",
            "checkpoint_id",
            "task_id",
            "idx",
            "channel",
            "task_path",
        ),
        key=5,
        ad=write_ad,
    ),
    BlobTable(
        name="cadre_manifests",
        blob_column="value",
        columns=("thread_id", "checkpoint_ns", "checkpoint_id"),
        key=3,
        ad=manifest_ad,
    ),
    BlobTable(
        name="cadre_chunks",
        blob_column="value",
        columns=("thread_id", "digest"),
        key=2,
        ad=chunk_ad,
    ),
)
"""Every table with a sealed column, for copying threads, key status and re-encryption."""


def upsert_into(table: BlobTable, *, replace: bool) -> str:
    """An insert of a whole row of ``table``: a row already there is replaced or kept."""
    return upsert(table.name, (*table.columns, table.blob_column), table.key, replace=replace)


class RowCodec:
    """Frames a serializer's ``(type, bytes)`` and seals it, or the reverse.

    Args:
        cipher: Seals every frame; None stores frames as they are (a plaintext database).
        data_keys: Where each thread's own data key is kept: with them, a thread's blobs are
            sealed under its key (so erasing the thread can destroy it); blobs sealed under the
            keyring's keys (before) are still opened with ``cipher``.
    """

    def __init__(self, cipher: BlobCipher | None, data_keys: ThreadKeys | None = None) -> None:
        self.cipher = cipher
        self.data_keys = data_keys if cipher is not None else None
        self._threads: dict[str, BlobCipher] = {}

    def seal(self, typed: Typed, associated_data: bytes) -> bytes:
        """The stored form of ``typed`` at the row named by ``associated_data``."""
        type_, data = typed
        tag = type_.encode("ascii")
        frame = b"".join((bytes((len(tag),)), tag, data))
        if self.cipher is None:
            return frame
        return self._sealer(associated_data).encrypt(frame, associated_data)

    def open(self, blob: bytes, associated_data: bytes) -> Typed:
        """The ``(type, bytes)`` sealed at this row.

        Raises:
            CryptoError: The blob is plaintext in an encrypted database, tampered, moved, or
                under an unknown or wrong key, or its thread's data key was destroyed.
            ConfigError: A sealed blob in a plaintext database.
        """
        if self.cipher is not None:
            try:
                if not blob:
                    raise TamperError("the blob is empty (0 bytes): it was cleared or truncated")
                frame = self._opener(blob).decrypt(blob, associated_data)
            except CryptoError as error:
                raise type(error)(f"{describe_row(associated_data)}: {error}") from error
        elif blob.startswith(MAGIC):
            raise ConfigError(
                "an encrypted blob was found in a checkpoint database marked unencrypted; it "
                "was copied from another database and cannot be read here"
            )
        else:
            frame = blob
        if not frame or len(frame) < 1 + frame[0]:
            raise TamperError(f"stored value is truncated: {len(frame)} bytes, inside its frame")
        end = 1 + frame[0]
        return frame[1:end].decode("ascii", "replace"), frame[end:]

    def reseal(self, blob: bytes, old_ad: bytes, new_ad: bytes) -> bytes:
        """``blob`` moved to another row: opened at ``old_ad``, sealed for ``new_ad`` (under
        the new row's thread key, with data keys)."""
        if self.cipher is None:
            return blob
        frame = self._opener(blob).decrypt(blob, old_ad)
        return self._sealer(new_ad).encrypt(frame, new_ad)

    def _sealer(self, associated_data: bytes) -> BlobCipher:
        assert self.cipher is not None
        if self.data_keys is None:
            return self.cipher
        thread_id = _thread_of(associated_data)
        known = self._threads.get(thread_id)
        if known is None:
            known = self._threads[thread_id] = self.data_keys.cipher(thread_key_id(thread_id))
        return known

    def forget(self, thread_ids: Iterable[str]) -> None:
        """Drop the cached keys of these threads (their keys were destroyed)."""
        for thread_id in thread_ids:
            self._threads.pop(thread_id, None)

    def _opener(self, blob: bytes) -> BlobCipher:
        assert self.cipher is not None
        if self.data_keys is not None and is_thread_key(blob):
            return self.data_keys.opener(blob)
        return self.cipher


def thread_key_id(thread_id: str) -> str:
    """The id of a thread's data key: a digest of the thread id (which its rows hold in
    plaintext anyway)."""
    digest = hashlib.sha256(thread_id.encode("utf-8")).hexdigest()[:_THREAD_KEY_HEX]
    return f"{THREAD_KEY_PREFIX}{digest}"


def is_thread_key(blob: bytes) -> bool:
    """Whether ``blob`` is sealed under a thread's data key (its header names one)."""
    try:
        return key_id_of(blob).startswith(THREAD_KEY_PREFIX)
    except CryptoError:
        return False


def _thread_of(associated_data: bytes) -> str:
    """The thread a row's associated data names (every kind names it second)."""
    kind_size = int.from_bytes(associated_data[:4], "big")
    at = 4 + kind_size
    size = int.from_bytes(associated_data[at : at + 4], "big")
    return associated_data[at + 4 : at + 4 + size].decode("utf-8")


def split_metadata(metadata: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The plaintext metadata column (allowlisted keys, JSON) and the private rest.

    A public key whose value has not the expected type (a ``parents`` that is not a mapping of
    strings, a ``run_id`` that is not a string) goes to the private part.
    """
    public: dict[str, Any] = {}
    private: dict[str, Any] = {}
    for key, value in metadata.items():
        expected = PUBLIC_METADATA_KEYS.get(key)
        if expected is not None and _is_public(value, expected):
            public[key] = value
        else:
            private[key] = value
    return json.dumps(public, sort_keys=True, separators=(",", ":")), private


def _is_public(value: Any, expected: type) -> bool:
    if expected is dict:
        return isinstance(value, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        )
    if expected is int:
        return type(value) is int
    return isinstance(value, expected)


def merge_metadata(public: str, private: Mapping[str, Any]) -> dict[str, Any]:
    """The full metadata: the sealed private part with the plaintext column over it."""
    merged = dict(private)
    merged.update(json.loads(public))
    return merged
