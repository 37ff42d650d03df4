"""The research team: planner -> parallel corpus workers -> reviewer loop -> cited report.

Its names load on first use, so that importing one of its modules (a role prompt) imports
nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework._lazy import lazy_exports

if TYPE_CHECKING:
    from teams.research.graph import (
        DEFAULT_SETTINGS,
        build_research_team,
        model_roles,
        offline_roles,
    )

__all__ = ["DEFAULT_SETTINGS", "build_research_team", "model_roles", "offline_roles"]

__getattr__ = lazy_exports(
    __name__,
    {
        "teams.research.graph": (
            "DEFAULT_SETTINGS",
            "build_research_team",
            "model_roles",
            "offline_roles",
        ),
    },
)
