"""One sealed blob for all the pending writes of one ``put_writes`` call.

A fan-out task writes its result and a trigger in one call; sealing each write alone costs a
cipher setup per write. In an encrypted database the writes of a call of two or more ordinary
writes are sealed together in the row of its first write (the *head*, a frame of type
:data:`BUNDLE_TYPE` listing every member's index, channel and value); each other row holds a
*member marker* naming the head's index and the call (a random id the head's list repeats).
The rows stay one per (task, index), so which write is kept on a conflict is decided per row as
before, and the head's sealed list authenticates its members: a marker moved to another row or
left from another call, or a member row deleted, fails with TamperError.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Sequence

from framework.errors import TamperError

__all__ = [
    "BUNDLE_TYPE",
    "Bundle",
    "Member",
    "is_member_marker",
    "member_marker",
    "new_call_id",
    "pack",
    "read_marker",
    "unpack",
]

BUNDLE_TYPE = "cadre.bundle"
"""The frame type of a head row's sealed value."""

_MARKER = b"\x00cadre-bundle-member\x00"
_INDEX = struct.Struct(">q")
_LENGTH = struct.Struct(">I")
CALL_ID_SIZE = 8

Typed = tuple[str, bytes]
Member = tuple[int, str, Typed]
"""A write in a bundle: its index, its channel, and its serialized value."""
Bundle = tuple[bytes, dict[int, tuple[str, Typed]]]
"""A head's call id, and index -> (channel, serialized value) of its members."""


def new_call_id() -> bytes:
    """A random id for one ``put_writes`` call."""
    return os.urandom(CALL_ID_SIZE)


def member_marker(head: int, call_id: bytes) -> bytes:
    """The value of a member row whose write is sealed in the head row at index ``head``."""
    return b"".join((_MARKER, _INDEX.pack(head), call_id))


def is_member_marker(blob: bytes) -> bool:
    """Whether ``blob`` is a member marker (it holds no value; never a cipher blob)."""
    return blob.startswith(_MARKER)


def read_marker(marker: bytes) -> tuple[int, bytes]:
    """The head index and call id a member marker names."""
    if len(marker) != len(_MARKER) + _INDEX.size + CALL_ID_SIZE:
        raise TamperError("a pending write's bundle marker is damaged")
    head_at = len(_MARKER)
    call_at = head_at + _INDEX.size
    return int(_INDEX.unpack_from(marker, head_at)[0]), marker[call_at:]


def pack(members: Sequence[Member], call_id: bytes) -> Typed:
    """The head's frame: the call id, then every member's index, channel, type and bytes."""
    parts: list[bytes] = [call_id]
    for index, channel, (type_, data) in members:
        parts.append(_INDEX.pack(index))
        for field in (channel.encode("utf-8"), type_.encode("ascii"), data):
            parts += (_LENGTH.pack(len(field)), field)
    return BUNDLE_TYPE, b"".join(parts)


def unpack(data: bytes) -> Bundle:
    """The call id and index -> (channel, serialized value) of a head's frame.

    Raises:
        TamperError: The frame does not decode (it authenticated, so it was written wrong).
    """
    members: dict[int, tuple[str, Typed]] = {}
    at = CALL_ID_SIZE
    try:
        while at < len(data):
            (index,) = _INDEX.unpack_from(data, at)
            at += _INDEX.size
            fields: list[bytes] = []
            for _ in range(3):
                (length,) = _LENGTH.unpack_from(data, at)
                at += _LENGTH.size
                fields.append(data[at : at + length])
                at += length
            channel, type_, value = fields
            members[index] = (channel.decode("utf-8"), (type_.decode("ascii"), value))
    except (struct.error, UnicodeDecodeError) as exc:
        raise TamperError(f"a bundle of pending writes does not decode ({exc})") from None
    if at != len(data):
        raise TamperError("a bundle of pending writes is truncated")
    return data[:CALL_ID_SIZE], members
