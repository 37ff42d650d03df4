"""``team: FILE|NAME``: kinds whose tasks each run a whole team, nested in the run (another
team file, which the reader checks and includes, or an installed team)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from framework.engine.roles import Worker
from framework.kinds.base import KindSetup, KindType

__all__ = ["TeamKeys", "TeamKind"]


class TeamKeys(BaseModel):
    """How a team file declares a team kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    team: str | None = Field(default=None, min_length=1)
    """Another team file (a path ending in .yaml or .yml, or holding a /; relative to this
    file), or an installed team's name: each task runs that team, nested."""


class TeamKind(KindType[TeamKeys]):
    """``team:`` kinds: the team's nested worker (a
    :class:`~framework.engine.team_worker.TeamWorker`) each."""

    key = "team"
    spec = TeamKeys
    wanted = "a team"

    def team(self, spec: TeamKeys) -> str | None:
        """The team it names."""
        return spec.team

    def description(self, spec: TeamKeys) -> str:
        """A question for the team."""
        return f"a question for the {spec.team} team, which plans, researches and reviews it"

    def worker(self, spec: TeamKeys, setup: KindSetup) -> Worker:
        """The team, nested."""
        return setup.nested()
