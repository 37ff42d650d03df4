"""The teams a server serves (the installed ones, then the team files of ``cadre serve
--team-config``) and their names as LangGraph's API gives them: an assistant name (a team
file's own name) and an assistant id (a fixed UUID of that name), either accepted wherever an
assistant id is."""

from __future__ import annotations

import functools
import uuid
from pathlib import Path

from starlette.exceptions import HTTPException

from framework.runs.teams import TEAM_FILE_PREFIX, available_teams, offered_team_files

__all__ = ["assistant_id", "assistant_name", "served_teams", "team_description", "team_of"]

_NAMESPACE = uuid.UUID("6f1c1c2e-52b1-4c8e-9f41-3b5f1cb1a0d7")


def assistant_name(team: str) -> str:
    """The assistant name (and graph id) of a team: a served team file's own name."""
    named = {offered: name for name, offered in offered_team_files().items()}
    return named.get(team, team)


def assistant_id(team: str) -> str:
    """The assistant id of a team."""
    return str(uuid.uuid5(_NAMESPACE, assistant_name(team)))


@functools.cache
def _installed() -> tuple[str, ...]:
    """The installed teams, listed once (reading every package's entry points is slow)."""
    return tuple(available_teams())


def served_teams() -> tuple[str, ...]:
    """The teams served: the installed ones, then the team files (``file:/abs/team.yaml``)."""
    return (*_installed(), *offered_team_files().values())


def team_of(assistant: str) -> str:
    """The team an assistant id (or a team name) names.

    Raises:
        HTTPException: 404 for an assistant that is not there.
    """
    for team in served_teams():
        if assistant in (team, assistant_name(team), assistant_id(team)):
            return team
    raise HTTPException(404, f"assistant {assistant} not found")


def team_description(team: str) -> str:
    """What a served team is, in words (a team file by its name: where it lies on the server
    is none of a caller's business)."""
    if assistant_name(team) != team:
        return f"the team of {Path(team.removeprefix(TEAM_FILE_PREFIX)).name}"
    return f"cadre's {team} team"
