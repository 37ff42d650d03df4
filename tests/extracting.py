"""The offline extraction of a small Markdown text, and a question asked of what it extracted,
for the extraction tests."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from framework.engine.builder import compile_team
from framework.knowledge import KnowledgeGraph
from framework.memory import SemanticStore
from framework.runs.runner import run_team
from teams.extraction import (
    PatternCartographer,
    RuleCritic,
    build_extraction_team,
    document_of,
    offline_roles,
)
from teams.supervisor import build_supervisor_team
from teams.supervisor import offline_roles as supervisor_roles
from teams.supervisor.state import FoundRelation

__all__ = ["Expected", "answer", "found_relation", "triples"]

Expected = set[tuple[str, str, str, int]]
"""Triples as ``(subject, predicate, object, line)``."""


def triples(text: str) -> tuple[Expected, set[tuple[str, str]]]:
    """What the offline cartographer reads from ``text`` as ``notes.md`` (which the critic
    passes), and the entity types it notes."""
    document = document_of("notes.md", text)
    extraction = PatternCartographer().extract(document, None, ())
    assert RuleCritic().review(document, extraction).passed  # every name and excerpt is there
    found = {(t.subject, t.predicate, t.object, t.line) for t in extraction.triples}
    return found, {(e.name, e.type) for e in extraction.entities}


def answer(text: str, question: str, store: SemanticStore) -> str:
    """The offline answer to ``question`` after ``text`` (as ``notes.md``) is extracted."""
    graph = KnowledgeGraph(store)
    team = compile_team(build_extraction_team(offline_roles(graph)), checkpointer=InMemorySaver())
    document = document_of("notes.md", text).model_dump()
    run_team(team, {"question": "map", "documents": [document]}, "t-extract")
    asking = compile_team(build_supervisor_team(supervisor_roles(graph)))
    state: dict[str, Any] = asking.invoke({"question": question})
    return str(state["final_answer"])


def found_relation(
    subject: str, predicate: str, thing: str, evidence: str, source: str = "notes.md:3"
) -> FoundRelation:
    """A relation as the answering step receives it, quoted from ``evidence`` at ``source``."""
    return FoundRelation(
        subject=subject,
        predicate=predicate,
        object=thing,
        evidence=evidence,
        confidence=0.6,
        status="",
        sources=[source],
    )
