"""The kind-type table: every type of worker kind a team file may declare, by its key.

Adding a kind type is one module (a :class:`~framework.kinds.base.KindType`) and one line in
:data:`KIND_TYPES`; user code adds one at run time with :func:`register_kind_type` (or by
setting ``KIND_TYPES[key]``), before the team files that use it are read. :func:`read_kind`
reads one kind of a file through the table: its own keys and those of exactly one kind type.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from framework.errors import ConfigError
from framework.kinds.a2a_agent import A2AKind
from framework.kinds.base import KindType
from framework.kinds.builtin import BuiltinKind
from framework.kinds.nested_team import TeamKind
from framework.kinds.remote_graph import RemoteGraphKind
from framework.kinds.team_phases import KIND_NAME
from framework.kinds.tool_calling import ToolsKind

__all__ = ["KIND_FIELDS", "KIND_TYPES", "read_kind", "register_kind_type"]

KIND_TYPES: dict[str, KindType[Any]] = {
    kind_type.key: kind_type
    for kind_type in (
        BuiltinKind(),
        ToolsKind(),
        TeamKind(),
        RemoteGraphKind(),
        A2AKind(),
    )
}
"""Kind type key -> the kind type, in the order error messages name them."""


class _Named(BaseModel):
    """The keys every kind has first: its name and description."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=KIND_NAME)
    description: str = ""


class _Capped(BaseModel):
    """The key every kind has last: its cap."""

    max_parallel: int | None = Field(default=None, ge=1)


KIND_FIELDS = (*_Named.model_fields, *_Capped.model_fields)
"""The keys of every kind, whatever its type."""


def register_kind_type(kind_type: KindType[Any]) -> KindType[Any]:
    """Add ``kind_type`` to the table (replacing one of the same key).

    Raises:
        ConfigError: It declares a key that every kind has, or that another kind type declares.
    """
    taken = {
        key: other.key
        for other in KIND_TYPES.values()
        if other.key != kind_type.key
        for key in other.keys
    }
    taken.update(dict.fromkeys(KIND_FIELDS, "every kind"))
    clashes = [f"{key} (of {taken[key]})" for key in kind_type.keys if key in taken]
    if clashes:
        raise ConfigError(
            f"kind type {kind_type.key!r} declares keys that are taken: {', '.join(clashes)}"
        )
    KIND_TYPES[kind_type.key] = kind_type
    return kind_type


def read_kind(value: Any) -> tuple[dict[str, Any], KindType[Any], BaseModel]:
    """One kind of a team file: its own keys (name, description, max_parallel), its kind type
    and that type's keys.

    Raises:
        ValidationError: A key is unknown or holds a wrong value (each at its location).
        ValueError: It declares no kind type, or several.
    """
    kind_types = tuple(KIND_TYPES.values())
    read = _kind_model(kind_types).model_validate(value)
    return (
        {key: getattr(read, key) for key in KIND_FIELDS},
        *_one_type(read, kind_types),
    )


def _one_type(
    read: BaseModel, kind_types: Sequence[KindType[Any]]
) -> tuple[KindType[Any], BaseModel]:
    """The one kind type ``read`` declares, and its keys."""
    specs = [
        (kind_type, kind_type.spec.model_construct(**{k: getattr(read, k) for k in kind_type.keys}))
        for kind_type in kind_types
    ]
    declared = [(kind_type, spec) for kind_type, spec in specs if kind_type.declared(spec)]
    if len(declared) > 1:
        labels = [kind_type.label or kind_type.key for kind_type in kind_types]
        raise ValueError(f"a kind is one of {_either(labels)}, not several")
    if not declared:
        raise ValueError(f"a kind needs {_either([t.wanted or t.key for t in kind_types])}")
    return declared[0]


def _either(words: Sequence[str]) -> str:
    """``a, b or c``."""
    return f"{', '.join(words[:-1])} or {words[-1]}" if len(words) > 1 else "".join(words)


@lru_cache(maxsize=8)
def _kind_model(kind_types: tuple[KindType[Any], ...]) -> type[BaseModel]:
    """The model of one kind with the keys of every kind type in ``kind_types`` (named as the
    kind record is, so that a value that is no mapping reads the same)."""
    bases = (_Capped, *(kind_type.spec for kind_type in reversed(kind_types)), _Named)
    return create_model("KindSpec", __base__=bases)
