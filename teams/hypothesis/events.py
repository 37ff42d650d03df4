"""The hypothesis team's typed events, for UIs and the CLI.

Nodes emit them on LangGraph's ``custom`` stream as plain dicts (``{"event": name, ...}``);
:func:`parse_event` turns such a dict back into its model, and :func:`stream_events` runs a
compiled team and yields only its typed events.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Literal

from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from framework.engine.runtime import NodeContext

__all__ = [
    "ConflictFound",
    "ConflictResolved",
    "EvidenceFound",
    "HypothesisEvent",
    "HypothesisUpdated",
    "NextStep",
    "ReportWritten",
    "Searching",
    "SourceFailed",
    "Started",
    "emit",
    "parse_event",
    "stream_events",
]


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    team: str = ""
    node: str = ""


class Started(_Event):
    """The run began; ``memory_note`` says what it starts from."""

    event: Literal["started"] = "started"
    question: str
    memory_note: str


class NextStep(_Event):
    """The supervisor chose the next step (``fallback`` says why the rule decided, if it did)."""

    event: Literal["next_step"] = "next_step"
    step: str
    reason: str
    fallback: str | None = None


class Searching(_Event):
    """A search round began over the configured sources."""

    event: Literal["searching"] = "searching"
    queries: list[str]
    sources: list[str]


class EvidenceFound(_Event):
    """One source answered: how much it found, how much was new to memory."""

    event: Literal["evidence_found"] = "evidence_found"
    source: str
    found: int
    new: int


class SourceFailed(_Event):
    """One source failed for one query; the run goes on without its evidence."""

    event: Literal["source_failed"] = "source_failed"
    source: str
    query: str
    error: str


class HypothesisUpdated(_Event):
    """A hypothesis was proposed or changed status or confidence."""

    event: Literal["hypothesis_updated"] = "hypothesis_updated"
    id: str
    statement: str
    status: str
    confidence: float


class ConflictFound(_Event):
    """Two pieces of evidence disagree."""

    event: Literal["conflict_found"] = "conflict_found"
    id: str
    description: str


class ConflictResolved(_Event):
    """A conflict was resolved by decisive evidence (``resolved_by``) or a judgment (None)."""

    event: Literal["conflict_resolved"] = "conflict_resolved"
    id: str
    resolution: str
    resolved_by: str | None = None


class ReportWritten(_Event):
    """The report is written."""

    event: Literal["report"] = "report"
    confirmed: int
    chars: int


HypothesisEvent = Annotated[
    Started
    | NextStep
    | Searching
    | EvidenceFound
    | SourceFailed
    | HypothesisUpdated
    | ConflictFound
    | ConflictResolved
    | ReportWritten,
    Field(discriminator="event"),
]
_ADAPTER: TypeAdapter[HypothesisEvent] = TypeAdapter(HypothesisEvent)


def emit(context: NodeContext, event: _Event) -> None:
    """Emit ``event`` on the run's custom stream (the context adds team and node)."""
    payload = event.model_dump(exclude={"team", "node"})
    context.emit(payload.pop("event"), **payload)


def parse_event(payload: Mapping[str, Any]) -> HypothesisEvent | None:
    """The typed event of a custom-stream payload; None for other teams' events."""
    try:
        return _ADAPTER.validate_python(payload)
    except ValidationError:
        return None


def stream_events(
    app: Any, inputs: Mapping[str, Any] | None, config: RunnableConfig
) -> Iterator[HypothesisEvent]:
    """Run a compiled team (or a coordinator around it) and yield its hypothesis events."""
    for _, payload in app.stream(inputs, config, stream_mode="custom", subgraphs=True):
        event = parse_event(payload)
        if event is not None:
            yield event
