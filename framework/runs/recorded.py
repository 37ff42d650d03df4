"""Where a thread's checkpoints record the run that started it, and the team read from there
without the spec's model (a listing of threads starts without importing pydantic)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

__all__ = ["METADATA_KEY", "recorded_team"]

METADATA_KEY = "cadre"
"""The run config metadata key under which a run records its
:class:`~framework.runs.spec.RunSpec` (one JSON string)."""


def recorded_team(metadata: Mapping[str, Any]) -> str | None:
    """The team of the spec recorded in a checkpoint's metadata; None when it holds none (its
    other fields are not read: :meth:`RunSpec.from_metadata` reads the whole spec)."""
    raw = metadata.get(METADATA_KEY)
    if not isinstance(raw, str):
        return None
    try:
        recorded = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    team = recorded.get("team") if isinstance(recorded, dict) else None
    return team if isinstance(team, str) else None
