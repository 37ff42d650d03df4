"""What a checkpoint may revive: cadre's record classes, by the module and name a checkpoint
stores, and the modules older checkpoints name by an earlier path.

Light to import (no LangGraph): both serializers read it, LangGraph's
(:func:`framework.persistence.checkpointer.default_serializer`) and the one that shows threads
(:mod:`framework.persistence._stored`). Importing it lets an old module name import as the module
it moved to.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

__all__ = ["MOVED_MODULES", "MOVED_RECORD_TYPES", "RECORD_TYPES"]

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

MOVED_RECORD_TYPES: tuple[tuple[str, str], ...] = tuple(
    (old, name)
    for old, new in MOVED_MODULES.items()
    for module, name in RECORD_TYPES
    if module == new
)
"""The record classes of :data:`RECORD_TYPES` under the module names older checkpoints use."""


class _MovedModules(MetaPathFinder, Loader):
    """Imports an old module name of :data:`MOVED_MODULES` as the module it moved to, when a
    checkpoint first names it (a reader imports a record's module by name)."""

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
