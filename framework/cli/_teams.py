"""How the CLI names a thread's team (light to import: ``cadre threads`` lists teams)."""

from __future__ import annotations

from pathlib import Path

from framework.errors import ConfigError
from framework.kinds.team_names import DEFAULT_TEAM_NAME, TEAM_FILE_PREFIX

__all__ = ["declared_team", "shown_team"]


def shown_team(team: str) -> str:
    """How the CLI names a thread's team: an installed team's name; a team file's declared name
    (``configured`` when it declares none) and, for this machine's operator, the file (read,
    nothing it names imported)."""
    if not team.startswith(TEAM_FILE_PREFIX):
        return team
    path = team.removeprefix(TEAM_FILE_PREFIX)
    name = declared_team(team)
    return f"{name} ({path})" if name else f"a team file ({path})"


def declared_team(team: str) -> str:
    """The name a thread's team goes by: an installed team's name, a team file's declared name
    (``configured`` when it declares none); empty for a file that cannot be read."""
    if not team.startswith(TEAM_FILE_PREFIX):
        return team
    from framework.engine.config_file import read_yaml  # YAML: team files only

    try:
        _, _, data, _ = read_yaml(Path(team.removeprefix(TEAM_FILE_PREFIX)), "team file")
    except ConfigError:
        return ""
    name = data.get("name")
    return name if isinstance(name, str) and name else DEFAULT_TEAM_NAME
