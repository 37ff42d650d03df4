"""Human approval as a policy: the design's optional moderator node, without a node.

Asks a human before the nodes it names run (in the teams it names), through the review
machinery: the request is listed by ``cadre reviews`` and decided by ``cadre approve`` or
``cadre reject``.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from framework.errors import ConfigError
from framework.policy import ALLOW, Call, Policy, Verdict, ask

__all__ = ["NodeApproval"]


class NodeApproval(Policy):
    """Asks a human before each execution of the matching nodes.

    Args:
        nodes: Patterns of node names (``memory_curator``, ``worker``).
        teams: Patterns of team names the nodes belong to (every team by default).
        question: What the reviewer is asked.
    """

    name = "approval"

    def __init__(
        self, nodes: Iterable[str], *, teams: Iterable[str] = ("*",), question: str = ""
    ) -> None:
        self.nodes = tuple(nodes)
        self.teams = tuple(teams)
        if not self.nodes:
            raise ConfigError("an approval policy needs the nodes it asks about: nodes=[...]")
        self.question = question

    def describe(self) -> str:
        """The nodes and teams it asks about."""
        return f"asks before {', '.join(self.nodes)} in teams {', '.join(self.teams)}"

    def before_node(self, call: Call) -> Verdict:
        """Ask before a matching node runs."""
        if not any(fnmatchcase(call.node, pattern) for pattern in self.nodes):
            return ALLOW
        if not any(fnmatchcase(call.team, pattern) for pattern in self.teams):
            return ALLOW
        return ask(self.question or f"may {call.team}/{call.node} run?")
