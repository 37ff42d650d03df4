"""The research team: planner -> parallel corpus workers -> reviewer loop -> cited report."""

from __future__ import annotations

from teams.research.graph import (
    DEFAULT_SETTINGS,
    build_research_team,
    model_roles,
    offline_roles,
)

__all__ = ["DEFAULT_SETTINGS", "build_research_team", "model_roles", "offline_roles"]
