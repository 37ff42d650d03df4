"""The extraction team's records and states.

A run fans out one ``Send`` per document to the document subgraph; each document's report comes
back into the run state. The state holds the records below as their JSON dumps (see
:func:`dump`).

| ExtractionState key | reducer |
|---|---|
| documents, question, final_answer | overwrite |
| reports | append (one per document, written by the saver) |

| DocumentState key | written by |
|---|---|
| document | the run (the ``Send``) |
| extraction | cartographer (overwrite) |
| verdict, revisions, needs_review | critic |
| kept, dropped | confidence_filter |
| reports | saver (append) |
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict, TypeVar

from pydantic import Field

from framework.engine.records import Record
from framework.engine.state import GovernedState

__all__ = [
    "Critique",
    "DocumentReport",
    "DocumentState",
    "EntityNote",
    "Extraction",
    "ExtractionState",
    "Triple",
    "Verdict",
    "dump",
    "read_record",
]

_R = TypeVar("_R", bound=Record)


class Triple(Record):
    """One relation the cartographer read: ``subject --predicate--> object``, how sure it is,
    the excerpt that says so and the line the excerpt starts on (0 when unknown)."""

    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)
    object: str = Field(min_length=1)
    confidence: float = Field(ge=0.0, le=1.0)
    evidence: str = ""
    line: int = Field(default=0, ge=0)


class EntityNote(Record):
    """What the cartographer says about an entity beyond its name: its type."""

    name: str = Field(min_length=1)
    type: str = ""


class Extraction(Record):
    """The cartographer's output, always this shape: triples, and optionally entities, claims
    and metadata; ``rejected`` says which parts of a model's output could not be used."""

    triples: tuple[Triple, ...] = ()
    entities: tuple[EntityNote, ...] = ()
    claims: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)
    rejected: tuple[str, ...] = ()


class Critique(Record):
    """One problem the critic found; ``triple`` is the index of the triple it concerns, None
    for the output as a whole."""

    message: str = Field(min_length=1)
    triple: int | None = Field(default=None, ge=0)


class Verdict(Record):
    """The critic's decision on an extraction; ``fallback`` says why a model critic's own
    judgement was not used (the rules decided alone)."""

    passed: bool
    critiques: tuple[Critique, ...] = ()
    fallback: str = ""

    def about(self, index: int) -> tuple[str, ...]:
        """The messages concerning triple ``index`` and the output as a whole."""
        return tuple(c.message for c in self.critiques if c.triple in (None, index))


class DocumentReport(Record):
    """What the extraction of one document saved."""

    path: str
    entities: tuple[str, ...] = ()
    """The ids of the entities saved."""
    relations: tuple[str, ...] = ()
    """The ids of the relations saved."""
    flagged: tuple[str, ...] = ()
    """The ids of the relations saved for manual review."""
    dropped: int = 0
    """Triples below the confidence threshold."""
    revisions: int = 0
    needs_review: bool = False
    critiques: tuple[str, ...] = ()
    """The critiques the extraction was left with."""


class DocumentState(TypedDict, total=False):
    """The state of one document's extraction; records are kept as their JSON dumps."""

    document: dict[str, Any]
    """A :class:`~teams.extraction.documents.Document`."""
    extraction: dict[str, Any]
    """An :class:`Extraction`."""
    verdict: dict[str, Any]
    """A :class:`Verdict`."""
    revisions: int
    needs_review: bool
    kept: list[int]
    """Indices of the triples that passed the confidence filter."""
    dropped: int
    reports: Annotated[list[dict[str, Any]], operator.add]
    """One :class:`DocumentReport`."""


class ExtractionState(GovernedState, total=False):
    """The state of an extraction run: the documents, each document's report, the summary."""

    question: str
    documents: list[dict[str, Any]]
    """:class:`~teams.extraction.documents.Document` dumps; left out, the team reads its corpus."""
    reports: Annotated[list[dict[str, Any]], operator.add]
    """:class:`DocumentReport` dumps, one per document."""
    final_answer: str


def read_record(state: Mapping[str, Any], key: str, kind: type[_R]) -> _R | None:
    """The record under ``key`` (validated from its dump), or None when there is none."""
    value = state.get(key)
    return None if value is None else kind.model_validate(value)


def dump(record: Record) -> dict[str, Any]:
    """A record as the state keeps it: its JSON dump (checkpoints revive framework records only,
    so a team's own records travel as plain data and are validated where they are read)."""
    return record.model_dump(mode="json")
