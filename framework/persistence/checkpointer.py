"""Checkpointer factories. The serializer is pluggable (encryption plugs in here)."""

from __future__ import annotations

import importlib
import sqlite3
import sys
from collections.abc import Iterable, Mapping
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import ormsgpack
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import EXT_CONSTRUCTOR_POS_ARGS, JsonPlusSerializer

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

RECORD_TYPES: tuple[tuple[str, str], ...] = (
    ("framework.memory._research_records", "Conflict"),
    ("framework.memory._research_records", "EvidenceRecord"),
    ("framework.memory._research_records", "Hypothesis"),
    ("framework.memory._research_records", "HypothesisChange"),
    ("framework.memory._research_records", "ScoredEvidence"),
    ("framework.policy.records", "PolicyEntry"),
    ("framework.policy.records", "UsageRecord"),  # its module in older checkpoints
    ("framework.engine.records", "Evidence"),
    ("framework.engine.records", "Finding"),
    ("framework.engine.records", "MemoryFact"),
    ("framework.engine.records", "Plan"),
    ("framework.engine.records", "Provenance"),
    ("framework.engine.records", "ReviewVerdict"),
    ("framework.engine.records", "SourceError"),
    ("framework.engine.records", "Task"),
    ("framework.engine.records", "UsageRecord"),
    ("framework.engine.records", "WorkerResult"),
    ("framework.review.records", "AuditEntry"),
    ("framework.engine.state", "ResultReplacement"),
    ("framework.engine.state", "TaskReplacement"),
)
"""The record classes a checkpoint may hold, as (module, class) names: nothing else is revived
from the database, and reading a checkpoint imports only the modules its values need."""

MOVED_MODULES: Mapping[str, str] = {
    "framework.records": "framework.engine.records",
    "framework.state": "framework.engine.state",
}
"""Record modules that older checkpoints name by an earlier path, and where they live now: a
record a checkpoint names by its old module revives as the same class."""

_MOVED_RECORD_TYPES = tuple(
    (old, name)
    for old, new in MOVED_MODULES.items()
    for module, name in RECORD_TYPES
    if module == new
)


class _MovedModules(MetaPathFinder, Loader):
    """Imports an old module name of :data:`MOVED_MODULES` as the module it moved to, when a
    checkpoint first names it (LangGraph's reader imports a record's module by name)."""

    def find_spec(
        self, fullname: str, path: Any = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MOVED_MODULES:
            return None
        return ModuleSpec(fullname, self)

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return importlib.import_module(MOVED_MODULES[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module was imported under its new name."""


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())


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
        allowed_msgpack_modules=[*RECORD_TYPES, *_MOVED_RECORD_TYPES, *extra_types]
    )


def sqlite_checkpointer(path: Path, serde: SerializerProtocol | None = None) -> SqliteSaver:
    """A SQLite checkpointer at ``path`` (created with its folder), WAL mode."""
    from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: PLC0415 - tests and benches only

    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    return SqliteSaver(connection, serde=serde or default_serializer())
