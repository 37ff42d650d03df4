"""Checkpointer factories. The serializer is pluggable (encryption plugs in here)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from framework.memory import Conflict, EvidenceRecord, Hypothesis, HypothesisChange, ScoredEvidence
from framework.records import (
    Evidence,
    Finding,
    MemoryFact,
    Plan,
    Provenance,
    ReviewVerdict,
    SourceError,
    Task,
    WorkerResult,
)
from framework.review.records import AuditEntry
from framework.state import ResultReplacement, TaskReplacement

__all__ = ["RECORD_TYPES", "default_serializer", "sqlite_checkpointer"]

RECORD_TYPES: tuple[type, ...] = (
    AuditEntry,
    Conflict,
    Evidence,
    EvidenceRecord,
    Finding,
    Hypothesis,
    HypothesisChange,
    MemoryFact,
    Plan,
    Provenance,
    ResultReplacement,
    ReviewVerdict,
    ScoredEvidence,
    SourceError,
    Task,
    TaskReplacement,
    WorkerResult,
)
"""The record classes a checkpoint may hold; nothing else is revived from the database."""


def default_serializer(extra_types: Iterable[type] = ()) -> JsonPlusSerializer:
    """LangGraph's msgpack serializer, reviving only cadre's records (and ``extra_types``)."""
    return JsonPlusSerializer(allowed_msgpack_modules=[*RECORD_TYPES, *extra_types])


def sqlite_checkpointer(path: Path, serde: SerializerProtocol | None = None) -> SqliteSaver:
    """A SQLite checkpointer at ``path`` (created with its folder), WAL mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    return SqliteSaver(connection, serde=serde or default_serializer())
