"""Channel values stored as deltas on the previous version of the same channel.

An appending reducer makes each version of a list channel the previous one plus a few items;
storing every version whole makes storage grow with the square of the steps. Here a new version
of a list is stored as *(items dropped from the front, items appended)* when it keeps the
previous version's items in order (an append, or a bounded append that drops the oldest), and a
new version of a dict as *(entries set, keys removed)* when at least half of it is unchanged.
A full value is stored again after ``snapshot_every`` deltas, or after one delta per
:data:`ITEMS_PER_DELTA` items of the value when that is more. Reading a value then applies at
most ``max(snapshot_every, items / ITEMS_PER_DELTA)`` deltas, no more work than decoding its
items; and the full values stored cost at most :data:`ITEMS_PER_DELTA` items per version on
average, so storage grows linearly with the steps, however long the list gets.

Lists and dicts of string keys are stored item by item (each item serialized on its own, see
:func:`pack_items`), so each item is serialized once per step, deltas are applied to the
serialized items, and only the items of the version read are deserialized. To tell whether a
new value extends the previous one, the encoder remembers the serialized items of the last
version it stored per (thread, namespace, channel), a bounded LRU; items are compared by their
serialized bytes, never by identity, so an item changed in place is seen as changed. With
nothing remembered (a new process, a forgotten channel) the value is stored whole.
"""

from __future__ import annotations

import struct
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from langgraph.checkpoint.serde.base import SerializerProtocol

__all__ = [
    "DICT_DELTA",
    "EMPTY",
    "FULL",
    "KINDS",
    "LIST_DELTA",
    "DeltaEncoder",
    "DeltaError",
    "StoredValue",
    "rebuild",
]

FULL: Final = "full"
"""A whole value."""
EMPTY: Final = "empty"
"""A channel version without a value (the channel was cleared)."""
LIST_DELTA: Final = "list+"
"""The base list without its first ``dropped`` items, plus ``appended`` items."""
DICT_DELTA: Final = "dict+"
"""The base dict without the ``removed`` keys, updated with the ``set`` entries."""
KINDS: Final = (FULL, EMPTY, LIST_DELTA, DICT_DELTA)

LIST_TYPE: Final = "cadre.items"
"""The type tag of a list stored item by item."""
DICT_TYPE: Final = "cadre.entries"
"""The type tag of a dict of string keys stored entry by entry."""

Typed = tuple[str, bytes]
Key = tuple[str, str, str]
"""(thread id, checkpoint namespace, channel)."""
Items = tuple[Typed, ...]
Entries = dict[str, Typed]
_U32 = struct.Struct(">I")

ITEMS_PER_DELTA: Final = 8
"""A value of n items is stored whole again after at most max(snapshot_every, n / 8) deltas."""


@dataclass(frozen=True, slots=True)
class _Shape:
    """What was last stored for one channel: its version, delta depth and serialized items."""

    version: str
    depth: int
    items: Items | Entries


@dataclass(frozen=True, slots=True)
class StoredValue:
    """One channel version as it will be stored: kind, delta base and payload."""

    kind: str
    base: str | None
    typed: Typed
    shape: _Shape | None


class DeltaEncoder:
    """Chooses how each new channel version is stored; not thread-safe (use under a lock).

    Args:
        snapshot_every: The most deltas between two full values of a channel (>= 1), for
            values of fewer than ``snapshot_every * ITEMS_PER_DELTA`` items.
        capacity: How many channels' last versions are remembered.
        budget: How many bytes of serialized items they hold at most (the least recently
            stored are forgotten first, so a server that ran huge values keeps none of them).
    """

    def __init__(
        self, snapshot_every: int, capacity: int = 4096, budget: int = 64 * 1024 * 1024
    ) -> None:
        self.snapshot_every = snapshot_every
        self.capacity = capacity
        self.budget = budget
        self._shapes: OrderedDict[Key, _Shape] = OrderedDict()
        self._sizes: dict[Key, int] = {}
        self._held = 0

    def encode(
        self, serde: SerializerProtocol, key: Key, version: str, value: Any, *, missing: bool
    ) -> StoredValue:
        """How to store ``value`` as ``version`` of ``key``'s channel (``missing``: no value)."""
        if missing:
            return StoredValue(EMPTY, None, ("empty", b""), None)
        previous = self._shapes.get(key)
        if previous is not None and previous.depth < self._most_deltas(previous):
            if type(value) is list and isinstance(previous.items, tuple):
                delta = _list_delta(serde, previous, previous.items, version, value)
            elif type(value) is dict and isinstance(previous.items, dict):
                delta = _dict_delta(serde, previous, previous.items, version, value)
            else:
                delta = None
            if delta is not None:
                return delta
        return self.full(serde, version, value)

    def _most_deltas(self, previous: _Shape) -> int:
        return max(self.snapshot_every, len(previous.items) // ITEMS_PER_DELTA)

    def full(self, serde: SerializerProtocol, version: str, value: Any) -> StoredValue:
        """``value`` stored whole: item by item (and remembered) if a list or a str-keyed dict."""
        if type(value) is list:
            items = tuple(serde.dumps_typed(item) for item in value)
            return StoredValue(
                FULL, None, (LIST_TYPE, pack_items(items)), _Shape(version, 0, items)
            )
        if type(value) is dict and all(type(k) is str for k in value):
            entries = {k: serde.dumps_typed(v) for k, v in value.items()}
            typed = (DICT_TYPE, pack_entries(entries))
            return StoredValue(FULL, None, typed, _Shape(version, 0, entries))
        return StoredValue(FULL, None, serde.dumps_typed(value), None)

    def stored(self, key: Key, value: StoredValue) -> None:
        """Remember what was committed for ``key`` (call after the transaction commits)."""
        self.forget(key)
        if value.shape is None:
            return
        self._shapes[key] = value.shape
        self._sizes[key] = _size(value.shape.items)
        self._held += self._sizes[key]
        while len(self._shapes) > self.capacity or self._held > self.budget:
            self.forget(next(iter(self._shapes)))

    def forget(self, key: Key) -> None:
        """Drop what is remembered for ``key`` (its stored version may differ)."""
        if self._shapes.pop(key, None) is not None:
            self._held -= self._sizes.pop(key)

    def forget_threads(self, thread_ids: Iterable[str]) -> None:
        """Drop what is remembered for every channel of these threads."""
        gone = set(thread_ids)
        for key in [key for key in self._shapes if key[0] in gone]:
            self.forget(key)


def _size(items: Items | Entries) -> int:
    """The bytes of serialized items a shape holds."""
    typed = items.values() if isinstance(items, dict) else items
    return sum(len(data) for _, data in typed)


def _list_delta(
    serde: SerializerProtocol, previous: _Shape, old: Items, version: str, value: list[Any]
) -> StoredValue | None:
    """``value`` as (dropped, appended) on ``old``, or None when it does not extend it."""
    if not value or not old:
        return None
    first = serde.dumps_typed(value[0])
    try:
        dropped = old.index(first)
    except ValueError:
        return None
    kept = len(old) - dropped
    if kept > len(value) or kept < len(value) - kept:  # not a prefix, or mostly new
        return None
    for offset in range(1, kept):
        if serde.dumps_typed(value[offset]) != old[dropped + offset]:
            return None
    added = tuple(serde.dumps_typed(item) for item in value[kept:])
    payload = _U32.pack(dropped) + pack_items(added)
    shape = _Shape(version, previous.depth + 1, old[dropped:] + added)
    return StoredValue(LIST_DELTA, previous.version, (LIST_DELTA, payload), shape)


def _dict_delta(
    serde: SerializerProtocol, previous: _Shape, old: Entries, version: str, value: dict[Any, Any]
) -> StoredValue | None:
    """``value`` as (removed, set) on ``old``, or None when too much of it changed."""
    if not all(type(k) is str for k in value):
        return None
    entries = {k: serde.dumps_typed(v) for k, v in value.items()}
    changed = {k: typed for k, typed in entries.items() if old.get(k) != typed}
    removed = [k for k in old if k not in value]
    if len(value) - len(changed) < len(changed) + len(removed):
        return None
    kept_order = [k for k in old if k in value]
    if list(value) != kept_order + [k for k in value if k not in old]:
        return None  # rebuilding would reorder the keys
    payload = pack_keys(removed) + pack_entries(changed)
    shape = _Shape(version, previous.depth + 1, entries)
    return StoredValue(DICT_DELTA, previous.version, (DICT_DELTA, payload), shape)


class DeltaError(ValueError):
    """A chain of stored rows that does not make a value (only an altered database has one)."""


def rebuild(serde: SerializerProtocol, links: Sequence[tuple[str, Typed]]) -> Any:
    """The value a chain of stored rows makes, newest first, ending on a full value.

    Deltas are applied to the serialized items; only the result's items are deserialized.

    Raises:
        DeltaError: The chain does not end on a full value, or a delta does not fit its base.
    """
    try:
        serialized = _apply(links)
    except (ValueError, IndexError, UnicodeDecodeError, struct.error) as exc:
        raise DeltaError(str(exc)) from None
    if isinstance(serialized, list):
        return [serde.loads_typed(item) for item in serialized]
    if isinstance(serialized, dict):
        return {k: serde.loads_typed(v) for k, v in serialized.items()}
    return serde.loads_typed(serialized)


def _apply(links: Sequence[tuple[str, Typed]]) -> list[Typed] | Entries | Typed:
    """The serialized items (or the serialized value) the chain makes."""
    kind, (type_, data) = links[-1]
    if kind != FULL:
        raise ValueError(f"the chain ends on a {kind!r} value, not a full one")
    if type_ == LIST_TYPE:
        items = list(unpack_items(data))
        for kind, (_, delta) in reversed(links[:-1]):
            if kind != LIST_DELTA:
                raise ValueError(f"a {kind!r} delta on a list")
            dropped = _U32.unpack_from(delta)[0]
            items = items[dropped:] + list(unpack_items(delta, _U32.size))
        return items
    if type_ == DICT_TYPE:
        entries = unpack_entries(data)
        for kind, (_, delta) in reversed(links[:-1]):
            if kind != DICT_DELTA:
                raise ValueError(f"a {kind!r} delta on a dict")
            removed, end = unpack_keys(delta)
            gone = set(removed)
            entries = {k: v for k, v in entries.items() if k not in gone}
            entries.update(unpack_entries(delta, end))
        return entries
    if len(links) > 1:
        raise ValueError(f"a delta on a value of type {type_!r}")
    return type_, data


# -- item framing: [u8 type length][type][u32 data length][data], keys [u32 length][utf-8] ------


def pack_items(items: Iterable[Typed]) -> bytes:
    """Serialized items, one after another."""
    parts: list[bytes] = []
    for type_, data in items:
        tag = type_.encode("ascii")
        parts += (bytes((len(tag),)), tag, _U32.pack(len(data)), data)
    return b"".join(parts)


def unpack_items(data: bytes, start: int = 0) -> Iterator[Typed]:
    """The items :func:`pack_items` wrote, from ``start`` to the end of ``data``."""
    at = start
    while at < len(data):
        tag_end = at + 1 + data[at]
        size = _U32.unpack_from(data, tag_end)[0]
        body = tag_end + _U32.size
        if body + size > len(data):
            raise ValueError("a stored item runs past the end of its value")
        yield data[at + 1 : tag_end].decode("ascii"), data[body : body + size]
        at = body + size


def pack_keys(keys: Sequence[str]) -> bytes:
    """A count, then each key length-prefixed."""
    encoded = [key.encode("utf-8") for key in keys]
    return _U32.pack(len(encoded)) + b"".join(_U32.pack(len(k)) + k for k in encoded)


def unpack_keys(data: bytes, start: int = 0) -> tuple[list[str], int]:
    """The keys :func:`pack_keys` wrote at ``start``, and where they end."""
    count = _U32.unpack_from(data, start)[0]
    at, keys = start + _U32.size, []
    for _ in range(count):
        size = _U32.unpack_from(data, at)[0]
        keys.append(data[at + _U32.size : at + _U32.size + size].decode("utf-8"))
        at += _U32.size + size
    return keys, at


def pack_entries(entries: Entries) -> bytes:
    """The keys, then the items in the same order."""
    return pack_keys(list(entries)) + pack_items(entries.values())


def unpack_entries(data: bytes, start: int = 0) -> Entries:
    """The entries :func:`pack_entries` wrote at ``start``."""
    keys, end = unpack_keys(data, start)
    items = list(unpack_items(data, end))
    if len(items) != len(keys):
        raise ValueError(f"{len(keys)} keys but {len(items)} items in a stored dict")
    return dict(zip(keys, items, strict=True))
