"""Checkpointer factories. The serializer is pluggable (encryption plugs in here)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ormsgpack
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import EXT_CONSTRUCTOR_POS_ARGS, JsonPlusSerializer

from framework.persistence._revival import MOVED_MODULES, MOVED_RECORD_TYPES, RECORD_TYPES

if TYPE_CHECKING:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.types import Send

__all__ = [
    "MOVED_MODULES",
    "RECORD_TYPES",
    "CadreSerializer",
    "default_serializer",
    "sqlite_checkpointer",
]


class CadreSerializer(JsonPlusSerializer):
    """LangGraph's msgpack serializer, with ``Send``s packed ahead of it: the same bytes,
    without the runtime ``Protocol`` check LangGraph's encoder reaches them through (about
    8 µs per ``Send`` on Python 3.11; a fan-out stores each of its ``Send``s twice)."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """``(type, bytes)`` of ``obj``, as :class:`JsonPlusSerializer` writes it."""
        from langgraph.types import Send  # noqa: PLC0415 - heavy; readers of threads never write

        if type(obj) is Send:
            obj = self._packed(obj)
        elif type(obj) is list and any(type(item) is Send for item in obj):
            obj = [self._packed(item) if type(item) is Send else item for item in obj]
        return super().dumps_typed(obj)

    def _packed(self, send: Send) -> ormsgpack.Ext:
        args = (
            (send.node, send.arg) if send.timeout is None else (send.node, send.arg, send.timeout)
        )
        _, body = super().dumps_typed((type(send).__module__, type(send).__name__, args))
        return ormsgpack.Ext(EXT_CONSTRUCTOR_POS_ARGS, body)


def default_serializer(
    extra_types: Iterable[type | tuple[str, str]] = (),
) -> CadreSerializer:
    """cadre's msgpack serializer, reviving only cadre's records (and ``extra_types``)."""
    return CadreSerializer(
        allowed_msgpack_modules=[*RECORD_TYPES, *MOVED_RECORD_TYPES, *extra_types]
    )


def sqlite_checkpointer(path: Path, serde: SerializerProtocol | None = None) -> SqliteSaver:
    """A SQLite checkpointer at ``path`` (created with its folder), WAL mode."""
    from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: PLC0415 - tests and benches only

    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    return SqliteSaver(connection, serde=serde or default_serializer())
