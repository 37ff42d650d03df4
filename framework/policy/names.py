"""Names a policy file's rules give (tools, teams, nodes), checked against what a team has, so
a rule about a tool that does not exist (a typo: ``reorder_prat``) is refused, not silently
matching nothing while the real tool stays allowed (``cadre policies check --team-config``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

__all__ = ["NameReference", "TeamNames", "unknown_names"]

Named = Literal["tool", "team", "node"]


@dataclass(frozen=True, kw_only=True)
class NameReference:
    """A name (or ``fnmatch`` pattern) a rule gives, and where: ``FILE:LINE: location``."""

    what: Named
    pattern: str
    where: str


@dataclass(frozen=True, kw_only=True)
class TeamNames:
    """What a team has, by the names its policies match: the tools its workers call (and their
    MCP servers' own names for them), its teams (nested ones too) and its nodes."""

    tools: frozenset[str]
    teams: frozenset[str]
    nodes: frozenset[str]

    def of(self, what: Named) -> frozenset[str]:
        """The names of one sort."""
        return {"tool": self.tools, "team": self.teams, "node": self.nodes}[what]


def unknown_names(references: Iterable[NameReference], names: TeamNames) -> list[str]:
    """One problem per reference that matches none of the team's names of its sort."""
    problems = []
    for reference in references:
        known = names.of(reference.what)
        if any(fnmatchcase(name, reference.pattern) for name in known):
            continue
        there = ", ".join(sorted(known)) or "none"
        problems.append(
            f"{reference.where}: the team has no {reference.what} {reference.pattern!r} "
            f"(its {reference.what}s: {there})"
        )
    return problems
