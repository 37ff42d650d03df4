"""Teams composed from a team file (``cadre run --team-config FILE``): the research team's
roles with the worker kinds, tools, MCP servers and models the file declares."""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework import lazy_exports

if TYPE_CHECKING:
    from teams.configured.app import (
        FileTeam,
        team_from_file,
    )
    from teams.configured.planning import (
        RenamingPlanner,
    )

__all__ = [
    "FileTeam",
    "RenamingPlanner",
    "team_from_file",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "teams.configured.app": (
            "FileTeam",
            "team_from_file",
        ),
        "teams.configured.planning": ("RenamingPlanner",),
    },
)
