"""The supervisor's routing rule over the structured state, and the offline supervisor and
searcher that follow it.

The rule, in order:

1. the iteration bound is reached -> synthesize;
2. a conflict is open and the resolver has not tried it yet -> resolve;
3. something lacks evidence (the question not searched yet in this run, or a hypothesis with
   neither supporting nor contradicting evidence not searched yet) -> search;
4. at least ``enough_new`` new evidence (or resolutions) since the last judge -> judge;
5. every hypothesis is confirmed or refuted -> synthesize;
6. otherwise nothing is left to do -> synthesize.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.tools import BaseTool

from framework.engine.runtime import NodeContext
from teams.hypothesis.state import HypothesisState
from teams.hypothesis.verdicts import Decision

__all__ = [
    "DEFAULT_ENOUGH_NEW",
    "DEFAULT_MAX_ITERATIONS",
    "QueryPlanner",
    "RuleSupervisor",
    "conflicts_to_resolve",
    "iteration_bound",
    "next_step_by_rule",
    "open_conflicts",
    "pending_queries",
]

DEFAULT_MAX_ITERATIONS = 8
"""Work rounds (search, judge, resolve) before the supervisor must synthesize."""
DEFAULT_ENOUGH_NEW = 1
"""New evidence that makes another judge round worthwhile."""
_SETTLED = ("confirmed", "refuted")


def open_conflicts(state: HypothesisState) -> list[str]:
    """Ids of the state's open conflicts, in order."""
    return [cid for cid, c in (state.get("conflicts") or {}).items() if c.status == "open"]


def conflicts_to_resolve(state: HypothesisState) -> list[str]:
    """Ids of the open conflicts the resolver has not found undecidable, in order."""
    undecided = set(state.get("undecided") or [])
    return [cid for cid in open_conflicts(state) if cid not in undecided]


def pending_queries(state: HypothesisState) -> list[str]:
    """What still lacks evidence, as queries not yet searched in this run.

    The question until it has been searched, then the statement of each hypothesis that has
    neither supporting nor contradicting evidence.
    """
    searched = set(state.get("searched") or [])
    wanted = [state.get("question", "")]
    wanted += [
        h.statement
        for h in (state.get("hypotheses") or {}).values()
        if not h.supporting and not h.contradicting
    ]
    return [query for query in dict.fromkeys(wanted) if query.strip() and query not in searched]


def iteration_bound(state: HypothesisState, default: int = DEFAULT_MAX_ITERATIONS) -> int:
    """The state's iteration bound (``max_iterations``), or ``default`` when it has none."""
    return state.get("max_iterations") or default


def next_step_by_rule(
    state: HypothesisState,
    *,
    enough_new: int = DEFAULT_ENOUGH_NEW,
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
) -> Decision:
    """The step the rule chooses for ``state`` (``max_iterations`` when the state has none)."""
    bound = iteration_bound(state, max_iterations)
    if state.get("iteration", 0) >= bound:
        return Decision(step="synthesize", reason=f"reached the bound of {bound} iterations")
    conflicts = conflicts_to_resolve(state)
    if conflicts:
        return Decision(step="resolve", reason=f"{len(conflicts)} open conflict(s)")
    pending = pending_queries(state)
    if pending:
        return Decision(step="search", reason=f"{len(pending)} query(ies) lack evidence")
    new = state.get("new_evidence", 0)
    if new >= enough_new:
        return Decision(step="judge", reason=f"{new} new piece(s) of evidence to weigh")
    hypotheses = (state.get("hypotheses") or {}).values()
    if all(h.status in _SETTLED for h in hypotheses):
        return Decision(step="synthesize", reason="every hypothesis is confirmed or refuted")
    return Decision(step="synthesize", reason="nothing left to search, weigh or resolve")


class RuleSupervisor:
    """The offline supervisor: follows the routing rule."""

    def decide(self, state: HypothesisState, rule: Decision, context: NodeContext) -> Decision:
        """Return the rule's decision."""
        return rule


@dataclass(frozen=True)
class QueryPlanner:
    """The offline searcher: searches what lacks evidence (:func:`pending_queries`).

    Args:
        sources: The sources to search, each a LangChain tool taking ``{"query": str}``.
        max_queries: Queries per round.
    """

    sources: Sequence[BaseTool]
    max_queries: int = 4

    def queries(self, state: HypothesisState, context: NodeContext) -> list[str]:
        """The pending queries, at most ``max_queries``."""
        return pending_queries(state)[: self.max_queries]
