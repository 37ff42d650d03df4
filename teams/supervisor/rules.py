"""The supervisor's default routing rule, and the check a model's choice must pass.

The rule, in order:

1. a draft exists -> finish;
2. the step bound is reached -> finish;
3. a planned lookup is left -> query_memory;
4. a lookup found something -> draft_content (finish once drafting failed
   :data:`MAX_DRAFT_ATTEMPTS` times);
5. otherwise the graph holds nothing on the question -> finish.
"""

from __future__ import annotations

from framework.engine.runtime import NodeContext
from teams.supervisor.queries import describe
from teams.supervisor.state import (
    DecisionRecord,
    Query,
    QueryResult,
    Step,
    SupervisorState,
    found_anything,
)

__all__ = [
    "DEFAULT_MAX_STEPS",
    "MAX_DRAFT_ATTEMPTS",
    "RuleSupervisor",
    "draft_failures",
    "next_step_by_rule",
    "pending_queries",
    "step_bound",
    "unfit",
    "useful_results",
]

DEFAULT_MAX_STEPS = 8
"""Supervisor decisions before the team must finish."""
MAX_DRAFT_ATTEMPTS = 2
"""Failed drafts before the team finishes without one."""


def pending_queries(state: SupervisorState) -> list[Query]:
    """The planned lookups not run yet, in order."""
    return (state.get("queries") or [])[len(state.get("results") or []) :]


def useful_results(state: SupervisorState) -> list[QueryResult]:
    """The results that found something."""
    return [result for result in state.get("results") or [] if found_anything(result)]


def draft_failures(state: SupervisorState) -> int:
    """How many drafts failed in this run."""
    return sum(1 for error in state.get("errors") or [] if error["step"] == "draft_content")


def step_bound(state: SupervisorState, default: int = DEFAULT_MAX_STEPS) -> int:
    """The state's step bound (``max_steps``), or ``default`` when it has none."""
    return state.get("max_steps") or default


def _decision(step: Step, reason: str) -> DecisionRecord:
    return DecisionRecord(step=step, reason=reason, fallback=None)


def next_step_by_rule(state: SupervisorState, max_steps: int = DEFAULT_MAX_STEPS) -> DecisionRecord:
    """The step the rule chooses for ``state``."""
    if state.get("draft"):
        return _decision("finish", "the draft is ready")
    bound = step_bound(state, max_steps)
    if state.get("steps", 0) >= bound:
        return _decision("finish", f"reached the bound of {bound} steps")
    pending = pending_queries(state)
    if pending:
        return _decision("query_memory", f"next lookup: {describe(pending[0])}")
    useful = useful_results(state)
    failures = draft_failures(state)
    if useful and failures >= MAX_DRAFT_ATTEMPTS:
        return _decision("finish", f"drafting failed {failures} times")
    if useful:
        return _decision("draft_content", f"{len(useful)} lookup(s) found something to draft")
    return _decision("finish", "no lookup found anything on the question")


def unfit(state: SupervisorState, step: Step) -> str | None:
    """Why ``step`` cannot run now (a model's choice the rule must replace), or None."""
    if step == "query_memory" and not pending_queries(state):
        return "the model chose query_memory with no lookup left to run"
    if step == "draft_content" and not useful_results(state):
        return "the model chose draft_content with nothing found to draft from"
    return None


class RuleSupervisor:
    """The offline supervisor: follows the routing rule."""

    def decide(
        self, state: SupervisorState, rule: DecisionRecord, context: NodeContext
    ) -> DecisionRecord:
        """Return the rule's decision."""
        return rule
