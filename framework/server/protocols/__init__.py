"""The agent protocols ``cadre serve`` speaks besides LangGraph's API, each through the same
gate and run path (:mod:`._turns`): A2A, MCP and AG-UI (see docs/protocols.md)."""

from __future__ import annotations

from framework.server.protocols._turns import (
    Door,
    Outcome,
    ServedTeam,
    answer,
    ask,
    door_of,
    events,
    outcome,
    served,
    served_team,
)

__all__ = [
    "Door",
    "Outcome",
    "ServedTeam",
    "answer",
    "ask",
    "door_of",
    "events",
    "outcome",
    "served",
    "served_team",
]
