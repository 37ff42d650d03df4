"""How a semantic store's rows look on disk: sealed and bound to their row, or as a plain
codec leaves them.

With a :class:`RowCodec` (the home's cipher) every value is sealed with associated data naming
its table, namespace, stored key and column, after the codec's own (the store's name, for a
bound cipher): a value moved to another row, column or store fails with ``TamperError``. Item
keys and source names are stored as keyed digests (:meth:`StoreValues.blind`), the real key
sealed inside the metadata; content hashes are keyed too. The digest key is a random secret
sealed in the store itself (see :mod:`framework.memory._sealing`).

A sealed item's metadata also holds the SHA-256 of its vector (:func:`vector_digest`), so the
vector is bound to its row too: every item read (a search's hits, a get) checks its stored
vector against it (:meth:`StoreValues.check_vector`). Rows written before store schema 4 have
none and are read as before; their vectors are embedded again and bound when next written.

With a :class:`ValueCodec` (plain, by default) keys, source records and hashes are stored as
given and values as the codec writes them; nothing binds a vector.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from framework.errors import ConfigError, CryptoError, PlaintextBlobError, TamperError
from framework.memory._codecs import PlainCodec, RowCodec, ValueCodec
from framework.memory._items import SourceRecord, StoreItem
from framework.memory._scope_keys import DataScopeKeys, is_scope_key, scope_of
from framework.persistence.cipher import BoundCipher, row_identity
from framework.persistence.data_keys import DataKeys

__all__ = ["ITEM", "SOURCE", "Row", "StoreValues", "blob_of", "sealed_text", "vector_digest"]

Row = tuple[str, str, str]
"""A row as its values' associated data names it: table, namespace, stored key."""

ITEM = "item"
"""The table name in an item value's associated data."""

SOURCE = "source"
"""The table name in a source record value's associated data."""

_BLIND_HEX = 32  # 128 bits: keyed digests standing for keys and source names


class StoreValues:
    """Seals, opens and names the rows of one store.

    Args:
        codec: A :class:`RowCodec`, a bound cipher (its cipher, after its associated data), a
            :class:`ValueCodec`, or None for :class:`PlainCodec`.
        label: The database, for messages.
    """

    def __init__(self, codec: ValueCodec | RowCodec | None, label: str) -> None:
        self.label = label
        self.codec: ValueCodec = PlainCodec()
        self.aead: RowCodec | None = None
        self.prefix = b""
        if isinstance(codec, BoundCipher):
            self.aead, self.prefix = codec.cipher, codec.associated_data
        elif isinstance(codec, RowCodec):
            self.aead = codec
        elif codec is not None:
            self.codec = codec
        self._load_key: Callable[[], bytes] | None = None
        self._digest_key: bytes | None = None
        self.scope_keys: DataScopeKeys | None = None
        """The scopes' data keys (a sealed store's, once opened)."""

    @property
    def sealed(self) -> bool:
        """Whether values are sealed to their rows (and keys and hashes keyed)."""
        return self.aead is not None

    def sealing(self) -> AbstractContextManager[Any]:
        """The block to seal and commit values in (see :meth:`RowCodec.sealing`); the scopes'
        keys are read afresh in it."""
        if self.scope_keys is not None:
            self.scope_keys.recheck()
        return self.aead.sealing() if self.aead is not None else nullcontext()

    def use_digest_key(self, load: Callable[[], bytes]) -> None:
        """Where the digest key comes from; called once, when first needed."""
        self._load_key = load

    def use_scope_keys(self, keys: DataKeys) -> None:
        """Seal the values of scopes' namespaces under their own data keys, kept in ``keys``."""
        if self.aead is not None:
            self.scope_keys = DataScopeKeys(keys, self._key)

    def _key(self) -> bytes:
        if self._digest_key is None:
            assert self._load_key is not None, "the store sets the digest key loader first"
            self._digest_key = self._load_key()
        return self._digest_key

    # -- digests ---------------------------------------------------------------------------

    def blind(self, table: str, ns: str, name: str) -> str:
        """The stored form of an item key or source name: a keyed digest when sealed."""
        if not self.sealed:
            return name
        digest = hmac.new(self._key(), row_identity(table, ns, name), hashlib.sha256)
        return digest.hexdigest()[:_BLIND_HEX]

    def content_hash(self, ns: str, stored_key: str, text: str) -> str:
        """What tells an unchanged text: SHA-256, keyed to the row when sealed."""
        plain = hashlib.sha256(text.encode("utf-8")).digest()
        return self.keyed_hash(ns, stored_key, plain) if self.sealed else plain.hex()

    def keyed_hash(self, ns: str, stored_key: str, plain: bytes) -> str:
        """HMAC-SHA256 of a row's plain SHA-256 (so an old plain hash can be converted)."""
        mac = hmac.new(self._key(), row_identity("content", ns, stored_key), hashlib.sha256)
        mac.update(plain)
        return mac.hexdigest()

    # -- values ----------------------------------------------------------------------------

    def seal(self, data: bytes, row: Row, column: str) -> bytes:
        """``data`` as written to ``column`` of ``row`` (under its scope's data key, in a
        scope's namespace)."""
        if self.aead is None:
            return self.codec.encode(data)
        sealer: RowCodec = self.aead
        scope = scope_of(tuple(row[1].split("/")))
        if scope is not None and self.scope_keys is not None:
            sealer = self.scope_keys.for_scope(scope)
        return sealer.encrypt(data, self.prefix + row_identity(*row, column))

    def open(self, stored: bytes | str, row: Row, column: str, shown: str | None = None) -> bytes:
        """The bytes :meth:`seal` wrote to ``column`` of ``row`` (base64 in a text column).

        Raises:
            CryptoError: It was moved from another row, column or store, altered, or is
                plaintext; the message names the row (``shown`` in place of its stored key).
        """
        if self.aead is None:
            return self.codec.decode(blob_of(stored))
        return self._opened(stored, self.prefix + row_identity(*row, column), row, column, shown)

    def open_unbound(self, blob: bytes, row: Row, column: str) -> bytes:
        """A value sealed by store schema 1, bound to the store only (for the upgrade)."""
        return self._opened(blob, self.prefix, row, column, None)

    def _opened(
        self, stored: bytes | str, associated_data: bytes, row: Row, column: str, shown: str | None
    ) -> bytes:
        assert self.aead is not None
        try:
            blob = blob_of(stored)
            opener: RowCodec = self.aead
            if self.scope_keys is not None and is_scope_key(blob):
                opener = self.scope_keys.for_blob(blob)
            return opener.decrypt(blob, associated_data)
        except CryptoError as error:
            table, ns, key = row
            raise type(error)(
                f"{self.label}: the {column} of {table} {shown or key!r} in namespace {ns!r} "
                f"cannot be read: {error}"
            ) from None

    # -- items -----------------------------------------------------------------------------

    def metadata_blob(
        self, ns: str, stored_key: str, item: StoreItem, vector: bytes | None = None
    ) -> bytes:
        """The metadata column of ``item`` (with its key and the digest of its ``vector``
        inside, when sealed)."""
        value: Any = item.metadata
        if self.sealed:
            value = {"key": item.key, "metadata": item.metadata}
            if vector is not None:
                value["vector"] = vector_digest(vector)
        try:
            raw = json.dumps(value, sort_keys=True, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                f"metadata of item {item.key!r} is not JSON-serialisable ({exc}); "
                "store strings, numbers, booleans, None, lists and dicts only"
            ) from exc
        return self.seal(raw.encode("utf-8"), (ITEM, ns, stored_key), "metadata")

    def key_and_metadata(
        self, ns: str, stored_key: str, blob: bytes, shown: str | None = None
    ) -> tuple[str, dict[str, Any]]:
        """The item's key and metadata from its metadata column."""
        key, metadata, _ = self.opened_metadata(ns, stored_key, blob, shown)
        return key, metadata

    def opened_metadata(
        self, ns: str, stored_key: str, blob: bytes, shown: str | None = None
    ) -> tuple[str, dict[str, Any], str | None]:
        """The item's key, metadata and vector digest (None: not sealed, or written before
        store schema 4) from its metadata column."""
        value = json.loads(self.open(blob, (ITEM, ns, stored_key), "metadata", shown))
        if not self.sealed:
            return stored_key, value, None
        return str(value["key"]), dict(value["metadata"]), value.get("vector")

    def check_vector(self, ns: str, key: str, digest: str | None, vector: bytes) -> None:
        """Refuse ``vector`` unless it is the one sealed with item ``key`` (``digest`` None:
        nothing to check it against).

        Raises:
            TamperError: It is not; the message names the row.
        """
        if digest is not None and not hmac.compare_digest(digest, vector_digest(vector)):
            raise TamperError(
                f"{self.label}: the vector of item {key!r} in namespace {ns!r} is not the one "
                "written with it: the database was altered outside cadre (it may have been "
                "swapped with another row's); delete the item and write it again, or restore "
                "the database from a backup"
            )

    def text(self, ns: str, stored_key: str, blob: bytes, shown: str | None = None) -> str:
        """The item's text from its text column."""
        return self.open(blob, (ITEM, ns, stored_key), "text", shown).decode("utf-8")

    # -- source records --------------------------------------------------------------------

    def source_row(self, ns: str, record: SourceRecord) -> tuple[str, str, str]:
        """The ``source``, ``content_hash`` and ``keys`` columns of ``record``."""
        keys = list(record.keys)
        if not self.sealed:
            return record.source, record.content_hash, json.dumps(keys)
        stored = self.blind(SOURCE, ns, record.source)
        row = (SOURCE, ns, stored)
        listed = json.dumps({"source": record.source, "keys": keys}, ensure_ascii=False)
        return (
            stored,
            sealed_text(self.seal(record.content_hash.encode("utf-8"), row, "content_hash")),
            sealed_text(self.seal(listed.encode("utf-8"), row, "keys")),
        )

    def source_record(self, ns: str, columns: tuple[str, str, str]) -> SourceRecord:
        """The record :meth:`source_row` wrote."""
        stored, digest, keys = columns
        if not self.sealed:
            return SourceRecord(source=stored, content_hash=digest, keys=tuple(json.loads(keys)))
        row = (SOURCE, ns, stored)
        listed = json.loads(self.open(keys, row, "keys"))
        return SourceRecord(
            source=str(listed["source"]),
            content_hash=self.open(digest, row, "content_hash").decode("utf-8"),
            keys=tuple(listed["keys"]),
        )


def vector_digest(vector: bytes) -> str:
    """What binds a vector to its row: the SHA-256 of its bytes (kept in the sealed metadata)."""
    return hashlib.sha256(vector).hexdigest()


def sealed_text(blob: bytes) -> str:
    """A sealed value as a text column holds it (base64)."""
    return base64.b64encode(blob).decode("ascii")


def blob_of(stored: bytes | str) -> bytes:
    """The sealed value of a blob column, or of a text column (base64).

    Raises:
        PlaintextBlobError: A text column holds something else than base64.
    """
    if not isinstance(stored, str):
        return bytes(stored)
    try:
        return base64.b64decode(stored.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise PlaintextBlobError(
            "the column holds text that is not a sealed value: plaintext is never read"
        ) from None
