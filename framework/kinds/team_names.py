"""How a team file's team is named: the prefix a run records it under, and the name of a file
that declares none (light to import: ``cadre threads`` names teams with it)."""

from __future__ import annotations

__all__ = ["DEFAULT_TEAM_NAME", "TEAM_FILE_PREFIX"]

TEAM_FILE_PREFIX = "file:"
"""A team name of this form names a team file (``file:/abs/team.yaml``): a run records it, so a
resume or a review decision builds the same team from the same file."""
DEFAULT_TEAM_NAME = "configured"
"""The name of a team file that declares none."""
