"""Checkpoint values read for showing threads, without LangGraph's runtime.

LangGraph's serializer (:func:`framework.persistence.checkpointer.default_serializer`) revives
LangChain's messages and LangGraph's own types, and importing it imports LangChain's runnables
and messages (about a quarter of a second; ``langgraph.types`` as much again when a checkpoint
holds a ``Send`` or an ``Interrupt``). :class:`StoredFormSerializer` reads the same frames
(LangGraph's msgpack extension codes) and revives what ``cadre threads``, ``show`` and
``reviews`` read, importing none of that:

* cadre's records (:data:`~framework.persistence._revival.RECORD_TYPES`) and the standard
  library's types LangGraph revives (dates, UUIDs, decimals, sets, paths...), as LangGraph
  revives them;
* a ``Send`` and an ``Interrupt`` as :class:`StoredSend` and :class:`StoredInterrupt`, which
  carry the same attributes;
* any other class (LangChain's messages, LangGraph's other types) in the form it is stored: its
  constructor's arguments, which is what LangGraph returns for a class outside its allowlist.

A frame it does not know (JSON or pickle, a numpy array, LangGraph's delta snapshot, an
``Interrupt`` of an older shape) is read by LangGraph's serializer instead, imported then.
``tests/test_fast_show.py`` checks both against each other on threads of every kind.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import ormsgpack

from framework.errors import ConfigError
from framework.persistence._revival import MOVED_RECORD_TYPES, RECORD_TYPES

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.base import SerializerProtocol

__all__ = ["STANDARD_TYPES", "StoredFormSerializer", "StoredInterrupt", "StoredSend"]

STANDARD_TYPES: frozenset[tuple[str, str]] = frozenset(
    {
        ("datetime", "datetime"),
        ("datetime", "date"),
        ("datetime", "time"),
        ("datetime", "timedelta"),
        ("datetime", "timezone"),
        ("uuid", "UUID"),
        ("decimal", "Decimal"),
        ("builtins", "set"),
        ("builtins", "frozenset"),
        ("collections", "deque"),
        ("ipaddress", "IPv4Address"),
        ("ipaddress", "IPv4Interface"),
        ("ipaddress", "IPv4Network"),
        ("ipaddress", "IPv6Address"),
        ("ipaddress", "IPv6Interface"),
        ("ipaddress", "IPv6Network"),
        ("pathlib", "Path"),
        ("pathlib", "PosixPath"),
        ("pathlib", "WindowsPath"),
        ("pathlib._local", "Path"),
        ("pathlib._local", "PosixPath"),
        ("pathlib._local", "WindowsPath"),
        ("zoneinfo", "ZoneInfo"),
        ("re", "compile"),
    }
)
"""The standard library's types LangGraph revives from any checkpoint (the standard library's
part of its safe list)."""
_METHODS = frozenset({("datetime", "datetime", "fromisoformat")})
"""The (module, class, method) calls LangGraph makes to revive a value."""

_SINGLE_ARG, _POS_ARGS, _KW_ARGS, _METHOD, _PYDANTIC_V1, _PYDANTIC_V2 = range(6)
"""LangGraph's msgpack extension codes (``langgraph.checkpoint.serde.jsonplus``); the others
(a numpy array, a delta snapshot) are left to LangGraph's serializer."""
_KNOWN = frozenset(range(6))
_BUILDERS: Mapping[int, Callable[[Any, Any], Any]] = {
    _SINGLE_ARG: lambda kind, arg: kind(arg),
    _POS_ARGS: lambda kind, args: kind(*args),
    _KW_ARGS: lambda kind, kwargs: kind(**kwargs),
}
"""How a class is called with the arguments stored under each constructor code."""
_MODELS = {_PYDANTIC_V1: "construct", _PYDANTIC_V2: "model_construct"}
"""A pydantic model's constructor without validation, under each model code."""
_SEND = ("langgraph.types", "Send")
_INTERRUPT = ("langgraph.types", "Interrupt")
_INTERRUPT_FIELDS = frozenset({"value", "id", "response_schema"})


@dataclass(frozen=True, slots=True)
class StoredSend:
    """A LangGraph ``Send`` as stored: the node it runs and the node's input."""

    node: str
    arg: Any
    timeout: Any = None


@dataclass(frozen=True, slots=True)
class StoredInterrupt:
    """A LangGraph ``Interrupt`` as stored: the value a node paused with, and its id."""

    value: Any
    id: str
    response_schema: Any = None


class _UnknownFrameError(Exception):
    """A frame this module leaves to LangGraph's serializer."""


class StoredFormSerializer:
    """Reads checkpoint frames as the module docstring says (what
    :func:`~framework.persistence.checkpointer.default_serializer` revives); writes nothing.

    Args:
        records: Revive cadre's records; False leaves them in their stored form too (their
            fields), so that reading imports no pydantic (a listing of threads reads no more).
    """

    def __init__(self, *, records: bool = True) -> None:
        revived = (*RECORD_TYPES, *MOVED_RECORD_TYPES) if records else ()
        self.allowed = frozenset({*STANDARD_TYPES, *revived})
        self._fallback: SerializerProtocol | None = None

    def dumps_typed(self, obj: Any) -> NoReturn:
        """Refused: this serializer only reads."""
        raise ConfigError("the stored-form serializer only reads checkpoints; write with a saver")

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """The value of a ``(type, bytes)`` frame."""
        kind, body = data
        if kind == "null":
            return None
        if kind == "bytes":
            return body
        if kind == "bytearray":
            return bytearray(body)
        if kind == "msgpack":
            unknown: list[int] = []
            value = _unpack(body, self._reviver(unknown))
            if not unknown:
                return value
        return self._langgraph().loads_typed(data)

    def _langgraph(self) -> SerializerProtocol:
        """LangGraph's serializer with the same allowlist (imports LangGraph's runtime)."""
        if self._fallback is None:
            from framework.persistence.checkpointer import default_serializer  # noqa: PLC0415

            self._fallback = default_serializer()
        return self._fallback

    def _reviver(self, unknown: list[int]) -> Callable[[int, bytes], Any]:
        """The extension hook of one read; a frame it does not know is noted in ``unknown``
        (an exception raised in the hook does not reach the caller of ``unpackb``)."""

        def hook(code: int, data: bytes) -> Any:
            try:
                return self._revive(code, _unpack(data, hook))
            except Exception:  # _UnknownFrameError, or a frame of another shape: LangGraph reads it
                unknown.append(code)
                return None

        return hook

    def _revive(self, code: int, stored: Any) -> Any:
        if code not in _KNOWN:
            raise _UnknownFrameError
        module, name, args = stored[0], stored[1], stored[2]
        twin = _twin(code, (module, name), args)
        if twin is not None:
            return twin
        if code == _METHOD:
            allowed = (module, name, stored[3]) in _METHODS
            return (
                _rebuilt(stored, lambda kind: getattr(kind, stored[3])(args)) if allowed else args
            )
        if (module, name) not in self.allowed:
            return args  # LangGraph's answer for a class outside its allowlist
        if code in _MODELS:
            return _model(stored, _MODELS[code])
        return _rebuilt(stored, lambda kind: _BUILDERS[code](kind, args))


def _twin(code: int, kind: tuple[str, str], args: Any) -> StoredSend | StoredInterrupt | None:
    """A ``Send`` or an ``Interrupt`` as stored; None for another class."""
    if kind == _SEND and code == _POS_ARGS:
        return StoredSend(args[0], args[1], args[2] if len(args) > 2 else None)
    if kind == _INTERRUPT and code == _KW_ARGS:
        if not {"value", "id"} <= set(args) <= _INTERRUPT_FIELDS:
            raise _UnknownFrameError  # an older shape: LangGraph works its id out
        return StoredInterrupt(**args)
    return None


def _unpack(data: bytes, hook: Callable[[int, bytes], Any]) -> Any:
    return ormsgpack.unpackb(data, ext_hook=hook, option=ormsgpack.OPT_NON_STR_KEYS)


def _rebuilt(stored: Any, build: Callable[[Any], Any]) -> Any:
    """``build(the class)``; the stored arguments when that fails (as LangGraph returns them)."""
    try:
        return build(getattr(importlib.import_module(stored[0]), stored[1]))
    except Exception:  # LangGraph keeps the stored data of any failure
        return stored[2]


def _model(stored: Any, construct: str) -> Any:
    """A pydantic model validated from its fields, else constructed without validation, else
    its fields (LangGraph's order of attempts)."""
    try:
        kind = getattr(importlib.import_module(stored[0]), stored[1])
        try:
            return kind(**stored[2])
        except Exception:  # as LangGraph: constructed without validation
            return getattr(kind, construct)(**stored[2])
    except Exception:  # as LangGraph: the fields
        return stored[2]
