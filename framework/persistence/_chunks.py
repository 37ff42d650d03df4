"""Large values stored once per thread: content-defined chunks shared between blobs.

The same long text travels through a run in many values: a task description is in the plan, in
the tasks channel, in its ``Send``, in a review request, in the reviewer's edit and in the audit
trail. A serialized value of :data:`MIN_CHUNKED` bytes or more that holds a long string is cut
where its content says
(a rolling hash over a small window, so the same text is cut the same way wherever it sits) into
chunks of about :data:`AVERAGE_CHUNK` bytes; each chunk is stored once per thread in
``cadre_chunks``, keyed by a keyed digest of its bytes, and the value's own row holds only the
list of digests (:data:`REFERENCE_TYPE`). Reading puts the value back together.

The digest is an HMAC under a key derived from the keyring's primary key (plain SHA-256 in a
plaintext database), so the table confirms no guessed text; a chunk row is sealed bound to its
thread and digest, so a chunk moved to another digest fails to open. A missing chunk is an
:class:`IncompleteCheckpointError`. Chunks no value of the thread refers to any more are deleted
when cadre deletes checkpoints (:func:`collect`).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING

from framework.database import Database
from framework.errors import IncompleteCheckpointError, TamperError
from framework.persistence._rows import RowCodec, chunk_ad

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "AVERAGE_CHUNK",
    "MIN_CHUNKED",
    "REFERENCE_TYPE",
    "ChunkRow",
    "Chunker",
    "referenced_digests",
    "split",
]

MIN_CHUNKED = 4096
"""Serialized values this big or bigger are stored in chunks."""

AVERAGE_CHUNK = 1024
"""The average chunk size the cut points aim at (a power of two)."""

MIN_CHUNK = 256
MAX_CHUNK = 16 * 1024
MIN_STRING = 512
"""Strings this long are chunks of their own (and their inside is cut as any long run)."""
_STRING_HEADER = re.compile(rb"[\xda\xdb]")
_WINDOW = 32
_BLOCK = 1 << 20
"""Bytes whose cut points are worked out at once."""

REFERENCE_TYPE = "cadre.chunks"
"""The serializer type of a value stored in chunks: its row holds the list of digests."""

ChunkRow = tuple[str, str, bytes]
"""(thread id, digest, sealed chunk): a ``cadre_chunks`` row."""

Typed = tuple[str, bytes]


def split(data: bytes, anchors: set[int] | None = None) -> list[bytes]:
    """``data`` cut where its content says: at both ends of every long string in it (a
    msgpack ``str16``/``str32`` of :data:`MIN_STRING` bytes or more), so the same text is the
    same chunks wherever it is embedded, and inside long runs where the sum of a byte value
    table over the last 32 bytes has its low bits zero (at least :data:`MIN_CHUNK` and at most
    :data:`MAX_CHUNK` bytes apart). Any cut is safe: the chunks always join back to ``data``.
    ``anchors``: the string bounds, when already found."""
    anchors = _string_bounds(data) if anchors is None else anchors
    rolling = _rolling_cuts(data)
    cuts: list[int] = []
    last = 0
    for cut in sorted({*anchors, *rolling}):
        if cut <= last or cut >= len(data):
            continue
        while cut - last > MAX_CHUNK:
            last += MAX_CHUNK
            cuts.append(last)
        if cut in anchors or cut - last >= MIN_CHUNK:
            cuts.append(cut)
            last = cut
    while len(data) - last > MAX_CHUNK:
        last += MAX_CHUNK
        cuts.append(last)
    bounds = [0, *cuts, len(data)]
    return [data[start:end] for start, end in itertools.pairwise(bounds) if end > start]


@cache
def _gear() -> npt.NDArray[np.uint32]:
    """A fixed random value per byte: the same bytes are cut the same way by every process
    (numpy is imported here: reading a value back needs no cutting)."""
    import numpy as np  # noqa: PLC0415

    return (
        np.random.default_rng(0x6361647265)
        .integers(0, 2**31, size=256, dtype=np.int64)
        .astype(np.uint32)
    )


def _rolling_cuts(data: bytes) -> list[int]:
    """Every offset ``p`` where the table's sum over ``data[p - 32:p]`` has its low bits zero.

    Worked out :data:`_BLOCK` bytes at a time (each block reads the 32 bytes before it), in
    wrapping 32-bit sums (only the low bits are compared), so a value of any size needs a
    few megabytes of scratch, not eight times its size per array."""
    import numpy as np  # noqa: PLC0415 - see _gear

    gear = _gear()
    view = np.frombuffer(data, dtype=np.uint8)
    cuts: list[int] = []
    for block in range(0, len(data), _BLOCK):
        low = max(0, block - _WINDOW)
        sums = np.cumsum(gear[view[low : block + _BLOCK]], dtype=np.uint32)
        window = sums[_WINDOW:] - sums[:-_WINDOW]
        found = np.flatnonzero((window & (AVERAGE_CHUNK - 1)) == 0) + (low + _WINDOW + 1)
        cuts.extend(found.tolist())
    return cuts


def _string_bounds(data: bytes) -> set[int]:
    """Where long msgpack strings of ``data`` start and end (a byte that only looks like a
    string header gives a needless cut, never a wrong value)."""
    bounds: set[int] = set()
    for match in _STRING_HEADER.finditer(data):
        at = match.start()
        width = 2 if data[at] == 0xDA else 4
        size = int.from_bytes(data[at + 1 : at + 1 + width], "big")
        begin = at + 1 + width
        if size >= MIN_STRING and begin + size <= len(data):
            bounds.update((begin, begin + size))
    return bounds


class Chunker:
    """Stores large values in chunks and puts them back together, on one database.

    Args:
        db: The database (the caller holds its lock where it reads or writes).
        codec: Seals and opens chunk rows; its cipher's primary key keys the digests.
    """

    def __init__(self, db: Database, codec: RowCodec) -> None:
        self.db = db
        self.codec = codec

    def _digest(self, thread_id: str, data: bytes) -> str:
        cipher = self.codec.cipher
        if cipher is None:
            return hashlib.sha256(thread_id.encode() + b"\0" + data).hexdigest()[:32]
        secret = cipher.keyring.keys[cipher.primary_key_id]
        key = hmac.new(secret, b"cadre chunk digests", hashlib.sha256).digest()
        return hmac.new(key, thread_id.encode() + b"\0" + data, hashlib.sha256).hexdigest()[:32]

    def pack(self, thread_id: str, typed: Typed) -> tuple[Typed, list[ChunkRow]]:
        """``typed`` as stored: unchanged when small, else a reference to its chunks, with the
        chunk rows to insert (insert them in the transaction that stores the reference, keeping
        a row already there). Call inside ``cipher.sealing()``."""
        type_, data = typed
        if len(data) < MIN_CHUNKED or type_ == REFERENCE_TYPE:
            return typed, []
        anchors = _string_bounds(data)
        if not anchors:  # no long text in it: lists and dicts of small items are deltas already
            return typed, []
        rows: dict[str, ChunkRow] = {}
        digests: list[str] = []
        for piece in split(data, anchors):
            digest = self._digest(thread_id, piece)
            digests.append(digest)
            if digest not in rows:
                sealed = self.codec.seal(("chunk", piece), chunk_ad(thread_id, digest))
                rows[digest] = (thread_id, digest, sealed)
        return (REFERENCE_TYPE, _encode(type_, len(data), digests)), list(rows.values())

    def insert(self, rows: Sequence[ChunkRow]) -> None:
        """Store chunk rows, keeping those already there (call inside a write transaction)."""
        if rows:
            self.db.executemany(
                "INSERT INTO cadre_chunks (thread_id, digest, value) VALUES (?, ?, ?) "
                "ON CONFLICT (thread_id, digest) DO NOTHING",
                rows,
            )

    def unpack(self, thread_id: str, typed: Typed, where: str) -> Typed:
        """The value ``typed`` refers to, put back together (``typed`` itself when it is no
        reference); ``where`` names the value in errors.

        Raises:
            IncompleteCheckpointError: A chunk it names is missing.
            CryptoError: A chunk is tampered, moved or under an unknown key.
        """
        if typed[0] != REFERENCE_TYPE:
            return typed
        type_, size, digests = _decode(typed[1], where)
        parts: list[bytes] = []
        for digest in digests:
            row = self.db.execute(
                "SELECT value FROM cadre_chunks WHERE thread_id = ? AND digest = ?",
                (thread_id, digest),
            ).fetchone()
            if row is None:
                raise IncompleteCheckpointError(
                    f"{where} of thread {thread_id} is incomplete: its chunk {digest} is "
                    "missing; rows were deleted from the database outside cadre (restore it "
                    "from a backup)"
                )
            parts.append(self.codec.open(bytes(row[0]), chunk_ad(thread_id, digest))[1])
        data = b"".join(parts)
        if len(data) != size:
            raise TamperError(f"{where} of thread {thread_id}: its chunks do not add up")
        return type_, data

    def collect(self, thread_id: str, referenced: Iterable[str]) -> int:
        """Delete the thread's chunks no value refers to (``referenced``: the digests its values
        still name); how many were deleted."""
        keep = set(referenced)
        stored = [
            str(digest)
            for (digest,) in self.db.execute(
                "SELECT digest FROM cadre_chunks WHERE thread_id = ?", (thread_id,)
            ).fetchall()
        ]
        dead = [(thread_id, digest) for digest in stored if digest not in keep]
        self.db.executemany("DELETE FROM cadre_chunks WHERE thread_id = ? AND digest = ?", dead)
        return len(dead)


def referenced_digests(typed: Typed) -> list[str]:
    """The chunk digests a stored value names (none when it is no reference)."""
    if typed[0] != REFERENCE_TYPE:
        return []
    return _decode(typed[1], "a value")[2]


_DIGEST_BYTES = 16


def _encode(type_: str, size: int, digests: Sequence[str]) -> bytes:
    """A reference: the value's type, its size and its chunks' digests (16 bytes each)."""
    tag = type_.encode()
    head = len(tag).to_bytes(1, "big") + tag + size.to_bytes(8, "big")
    return head + b"".join(bytes.fromhex(digest) for digest in digests)


def _decode(data: bytes, where: str) -> tuple[str, int, list[str]]:
    """(type, size, digests) of a reference.

    Raises:
        TamperError: It is not a reference cadre wrote.
    """
    tag_end = 1 + (data[0] if data else 0)
    body = data[tag_end + 8 :]
    if not data or len(data) < tag_end + 8 or len(body) % _DIGEST_BYTES:
        raise TamperError(f"{where}: its chunk list does not decode")
    type_ = data[1:tag_end].decode("ascii", "replace")
    size = int.from_bytes(data[tag_end : tag_end + 8], "big")
    digests = [body[at : at + _DIGEST_BYTES].hex() for at in range(0, len(body), _DIGEST_BYTES)]
    return type_, size, digests
