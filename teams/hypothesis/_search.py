"""The search step: plan the queries, fan out one ``Send`` per source, keep what they find."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.messages import AIMessage
from langgraph.types import Send

from framework.engine.records import SourceError
from framework.engine.runtime import NodeContext
from framework.memory import EvidenceRecord, ResearchMemory
from teams.hypothesis.events import EvidenceFound, Searching, SourceFailed, emit
from teams.hypothesis.roles import HypothesisRoles
from teams.hypothesis.rules import pending_queries
from teams.hypothesis.sources import SourceOutcome, arun_source, run_source
from teams.hypothesis.state import HypothesisState, SourceInput

__all__ = ["Kept", "SourceBodies", "gather", "keep_evidence", "route_to_sources", "search_body"]


@dataclass(frozen=True, kw_only=True)
class Kept:
    """What a search kept: the run's evidence ids, those new to the run, the source errors."""

    ids: list[str]
    new: list[str]
    errors: list[SourceError]
    found: int


def keep_evidence(
    memory: ResearchMemory,
    outcomes: Iterable[SourceOutcome],
    known: Iterable[str],
    context: NodeContext,
) -> Kept:
    """Store the evidence of source calls in memory; near duplicates of stored evidence drop out."""
    records: list[EvidenceRecord] = []
    errors: list[SourceError] = []
    for found, error in outcomes:
        records.extend(found)
        if error is not None:
            errors.append(error)
    thread = context.thread_id or ""
    stamped = [r if r.stored_by else r.model_copy(update={"stored_by": thread}) for r in records]
    stored = set(memory.store_evidence(stamped))
    ids = [r.id for r in stamped if r.id in stored or memory.has_evidence(r.id)]
    ids = list(dict.fromkeys(ids))
    seen = set(known)
    return Kept(ids=ids, new=[i for i in ids if i not in seen], errors=errors, found=len(records))


def gather(
    roles: HypothesisRoles, queries: Sequence[str], known: Iterable[str], context: NodeContext
) -> Kept:
    """Run every source on every query, one after the other, and keep what they find."""
    outcomes = [run_source(tool, query) for tool in roles.searcher.sources for query in queries]
    return keep_evidence(roles.memory, outcomes, known, context)


def search_body(roles: HypothesisRoles) -> Any:
    """The body of the search node: the searcher's queries for this round."""

    def body(state: HypothesisState, context: NodeContext) -> dict[str, Any]:
        queries = list(
            dict.fromkeys(q for q in roles.searcher.queries(state, context) if q.strip())
        )
        emit(context, Searching(queries=list(queries), sources=list(roles.source_names)))
        note = f"search: {len(queries)} query(ies) over {', '.join(roles.source_names)}"
        return {
            "queries": queries,
            "searched": [*pending_queries(state), *queries],
            "search_id": uuid.uuid4().hex,
            "messages": [AIMessage(note, name="search")],
        }

    return body


def route_to_sources(roles: HypothesisRoles, source: str, supervisor: str) -> Any:
    """The router after the search node: one ``Send`` per source, or back to the supervisor."""

    def route(state: HypothesisState) -> list[Send] | Literal["supervisor"]:
        queries = state.get("queries") or []
        if not queries:
            return supervisor  # type: ignore[return-value]
        known = list(state.get("evidence_ids") or [])
        search_id = state.get("search_id", "")
        return [
            Send(
                source, SourceInput(source=name, queries=queries, search_id=search_id, known=known)
            )
            for name in roles.source_names
        ]

    return route


class SourceBodies:
    """The sync and async bodies of the source node: one source, every query of the round."""

    def __init__(self, roles: HypothesisRoles) -> None:
        self.roles = roles

    def run(self, payload: SourceInput, context: NodeContext) -> dict[str, Any]:
        """Search one source in a sync graph."""
        tool = self.roles.source(payload["source"])
        outcomes = [run_source(tool, query) for query in payload["queries"]]
        return self._update(payload, outcomes, context)

    async def arun(self, payload: SourceInput, context: NodeContext) -> dict[str, Any]:
        """Search one source in an async graph."""
        tool = self.roles.source(payload["source"])
        outcomes = [await arun_source(tool, query) for query in payload["queries"]]
        return self._update(payload, outcomes, context)

    def _update(
        self, payload: SourceInput, outcomes: list[SourceOutcome], context: NodeContext
    ) -> dict[str, Any]:
        kept = keep_evidence(self.roles.memory, outcomes, payload["known"], context)
        name = payload["source"]
        emit(context, EvidenceFound(source=name, found=kept.found, new=len(kept.new)))
        for error in kept.errors:
            emit(context, SourceFailed(source=name, query=error.query, error=error.error))
        note = f"source {name}: {kept.found} found, {len(kept.new)} new, {len(kept.errors)} failed"
        return {
            "evidence_ids": kept.ids,
            "new_evidence": len(kept.new),
            "errors": kept.errors,
            "messages": [AIMessage(note, name="source")],
        }
