"""The hypothesis team's state: the question, hypotheses, conflicts and evidence of one run.

| key            | reducer                                                          |
|----------------|------------------------------------------------------------------|
| question       | the first non-empty value is kept: never overwritten             |
| hypotheses     | keyed by hypothesis id                                           |
| conflicts      | keyed by conflict id                                             |
| evidence_ids   | append, each id once                                             |
| searched       | append, each query once                                          |
| undecided      | append, each conflict id once                                    |
| messages       | append (merged by message id), bounded                           |
| errors         | append                                                           |
| new_evidence   | summed (parallel sources add); the judge resets it with Overwrite |
| everything else| overwrite                                                        |

Hypotheses and conflicts are the records of :mod:`framework.memory.research`; the state holds
this run's copies, the memory holds them across runs.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Annotated, Literal, TypedDict, get_args

from langchain_core.messages import AnyMessage

from framework.engine.records import Evidence, SourceError
from framework.engine.state import MESSAGE_LIMIT, GovernedState, bounded_messages, merge_by_id
from framework.memory import Conflict, Hypothesis

__all__ = [
    "STEPS",
    "HypothesisState",
    "SourceInput",
    "Step",
    "add_count",
    "append_new",
    "keep_first",
]

Step = Literal["search", "judge", "resolve", "synthesize"]
"""What the supervisor sends the team to do next."""

STEPS: tuple[Step, ...] = get_args(Step)


def keep_first(current: str | None, update: str | None) -> str:
    """Keep the first non-empty value: the question of a run is never overwritten."""
    return current or update or ""


def append_new(current: list[str] | None, update: Iterable[str]) -> list[str]:
    """Append the values not present yet, in order."""
    return list(dict.fromkeys([*(current or []), *update]))


def add_count(current: int | None, update: int) -> int:
    """Sum counts written in one step by parallel branches."""
    return (current or 0) + update


class SourceInput(TypedDict):
    """What one ``Send`` carries to a source: its name, the queries, the run's evidence ids."""

    source: str
    queries: list[str]
    search_id: str
    known: list[str]


class HypothesisState(GovernedState, total=False):
    """The state of a hypothesis team run."""

    question: Annotated[str, keep_first]
    hypotheses: Annotated[dict[str, Hypothesis], merge_by_id]
    conflicts: Annotated[dict[str, Conflict], merge_by_id]
    evidence_ids: Annotated[list[str], append_new]
    messages: Annotated[list[AnyMessage], bounded_messages(MESSAGE_LIMIT)]
    next_step: Step
    iteration: int
    max_iterations: int
    errors: Annotated[list[SourceError], operator.add]
    new_evidence: Annotated[int, add_count]
    """Evidence and resolutions the judge has not weighed yet."""
    queries: list[str]
    """The queries of the current search round."""
    searched: Annotated[list[str], append_new]
    """Every query searched in this run."""
    undecided: Annotated[list[str], append_new]
    """Open conflicts the resolver found nothing to decide: they stay open in the report."""
    search_id: str
    report: str
    final_answer: str
    memory_note: str
    evidence: list[Evidence]
    """The run's evidence as framework records, for the phases after it (MetaCoordinator)."""
    held_back: list[str]
    """Findings the final check kept from being confirmed, each with the evidence against it."""
    decided_over: list[str]
    """What let a finding through the final check over evidence stating otherwise."""
