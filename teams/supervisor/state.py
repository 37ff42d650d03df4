"""The memory supervisor team's state: the question, the queries and their results, the draft.

| key       | reducer                                                         |
|-----------|-----------------------------------------------------------------|
| messages  | the last 10 messages plus a running summary (:mod:`.messages`)  |
| results   | append (one per query run)                                      |
| decisions | append (one per supervisor step)                                |
| errors    | append                                                          |
| notes     | append                                                          |
| everything else | overwrite                                                 |

Results hold plain data (names, ``path:line`` sources), not graph records, so a checkpoint
revives them as they were written.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict, get_args

from framework.engine.records import Evidence
from framework.engine.state import GovernedState
from teams.supervisor.messages import MessageWindow, add_to_window

__all__ = [
    "QUERY_KINDS",
    "STEPS",
    "DecisionRecord",
    "FoundEntity",
    "FoundRelation",
    "Query",
    "QueryKind",
    "QueryResult",
    "Step",
    "StepError",
    "SupervisorState",
    "found_anything",
    "relations_in",
    "statement",
]

Step = Literal["query_memory", "draft_content", "finish"]
"""What the supervisor sends the team to do next."""
STEPS: tuple[Step, ...] = get_args(Step)

QueryKind = Literal["paths", "relations", "entities", "semantic"]
"""Paths between two entities, relations of one, entities of a type, relations like a text."""
QUERY_KINDS: tuple[QueryKind, ...] = get_args(QueryKind)


class Query(TypedDict):
    """One lookup in the knowledge graph.

    ``terms`` are two entity names (paths), one (relations), a type (entities) or a text
    (semantic).
    """

    kind: QueryKind
    terms: list[str]


class FoundEntity(TypedDict):
    """An entity as the team cites it."""

    name: str
    type: str
    sources: list[str]


class FoundRelation(TypedDict):
    """A relation as the team cites it: display names, evidence and ``path:line`` sources."""

    subject: str
    predicate: str
    object: str
    evidence: str
    confidence: float
    status: str
    sources: list[str]


class QueryResult(TypedDict):
    """What one query found; ``error`` is "" unless the lookup failed (then nothing is found)."""

    query: Query
    entities: list[FoundEntity]
    relations: list[FoundRelation]
    paths: list[list[FoundRelation]]
    error: str


class DecisionRecord(TypedDict):
    """One supervisor step: the step, why, and why the rule decided instead of the model."""

    step: Step
    reason: str
    fallback: str | None


class StepError(TypedDict):
    """A step that failed and how; the run went on."""

    step: str
    error: str


class SupervisorState(GovernedState, total=False):
    """The state of a memory supervisor run."""

    question: str
    messages: Annotated[MessageWindow, add_to_window]
    queries: list[Query]
    """The lookups planned from the question, tried in order."""
    results: Annotated[list[QueryResult], operator.add]
    decisions: Annotated[list[DecisionRecord], operator.add]
    errors: Annotated[list[StepError], operator.add]
    notes: Annotated[list[str], operator.add]
    """What a step left out and why (a drafted claim citing no listed source...)."""
    next_step: Step
    steps: int
    """Supervisor decisions so far."""
    max_steps: int
    draft: str
    """The drafted prose (Markdown lines, each citing its sources); "" until drafted."""
    final_answer: str
    evidence: list[Evidence]
    """The cited relations as framework evidence, for the phases after the team."""


def found_anything(result: QueryResult) -> bool:
    """Whether a lookup found what it looked for: paths, relations, or entities of a type."""
    if result["query"]["kind"] == "entities":
        return bool(result["entities"])
    return bool(result["relations"] or result["paths"])


def relations_in(result: QueryResult) -> list[FoundRelation]:
    """Every relation of a result: those found alone, then those on its paths."""
    return [*result["relations"], *(relation for path in result["paths"] for relation in path)]


def statement(relation: FoundRelation) -> str:
    """The relation as a plain statement: ``subject predicate object``."""
    return f"{relation['subject']} {relation['predicate']} {relation['object']}"
