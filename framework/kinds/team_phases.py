"""The ``phases:`` of a coordinator team file: an ordered list of steps around teams.

A phase is ``intake`` (the question normalized), ``team: FILE|NAME`` (a team run nested on the
question; ``name:`` names its step, by default the file's stem or the team's name) or
``assess: [risk, compliance]`` (the MetaCoordinator's assessors on what the teams found). See
docs/team-config.md, "Coordinators: ``phases:``".
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["ASSESSORS", "KIND_NAME", "PhaseSpec", "names_file", "step_problems"]

KIND_NAME = r"^[a-z][a-z0-9_-]{0,39}$"
"""A kind's name, and a phase's: lowercase letters, digits, ``_`` and ``-``."""

ASSESSORS = {"risk": "risk_assessment", "compliance": "compliance_check"}
"""The assessors an ``assess:`` phase may name -> the step each runs as."""

_SHAPES = "intake, team: FILE|NAME (with an optional name:) or assess: [risk, compliance]"


def names_file(team: str) -> bool:
    """Whether a ``team:`` value names a team file (else an installed team)."""
    return "/" in team or team.endswith((".yaml", ".yml"))


class PhaseSpec(BaseModel):
    """One phase of a coordinator file (``intake`` is written as the bare word)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    intake: bool = False
    team: str | None = Field(default=None, min_length=1)
    name: str | None = Field(default=None, pattern=KIND_NAME)
    assess: list[Literal["risk", "compliance"]] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, value: Any) -> Any:
        if value == "intake":
            return {"intake": True}
        keys = sorted(value) if isinstance(value, dict) else []
        if not keys or not set(keys) <= {"team", "name", "assess"}:
            shown = ", ".join(map(str, keys)) if keys else repr(value)
            raise ValueError(f"unknown phase {shown}: a phase is {_SHAPES}")
        return value

    @model_validator(mode="after")
    def _one(self) -> PhaseSpec:
        if self.intake:
            return self
        if (self.team is None) == (not self.assess):
            raise ValueError(f"a phase is one of {_SHAPES}")
        if self.name is not None and self.team is None:
            raise ValueError("name: names a team: phase only")
        return self

    @property
    def steps(self) -> list[str]:
        """The names of the steps it runs as."""
        if self.intake:
            return ["intake"]
        if self.team is None:
            return [ASSESSORS[name] for name in self.assess]
        default = PurePosixPath(self.team).stem if names_file(self.team) else self.team
        return [self.name or default]


def step_problems(phases: list[PhaseSpec]) -> list[tuple[int, str]]:
    """``(phase index, problem)`` for each step name that is no kind name or is taken, and for
    phases with no team."""
    problems: list[tuple[int, str]] = []
    seen = {"notes"}  # the step that appends the assessors' notes
    for index, phase in enumerate(phases):
        for step in phase.steps:
            if not re.match(KIND_NAME, step):
                problems.append((index, f"step name {step!r} is not a kind name: add name:"))
            elif step in seen:
                problems.append((index, f"step {step!r} is taken: give the phase another name:"))
            seen.add(step)
    if phases and all(phase.team is None for phase in phases):
        problems.append((0, "phases need at least one team: phase"))
    return problems
