"""The draft_content step: prose from what the lookups found, every line citing ``path:line``.

Offline, :class:`TemplateWriter` writes how a path links the two entities a question names,
the relations that answer the question as whole sentences, and the entities of a type it asks
for; when nothing answers, it says so. With a model, :class:`ModelWriter` asks for cited
claims and keeps those that cite a listed source. A drafting error is recorded and the run goes on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.errors import GraphBubbleUp

from framework.engine.runtime import NodeContext
from framework.errors import ModelError, brief
from framework.memory import normalised
from teams.language.answer_layout import claim_heading, note_section
from teams.language.quotations import quoted_clauses
from teams.research.schemas import ReportDraft, StructuredCall
from teams.supervisor.answering import answering_chains, focus_words, relation_sentence
from teams.supervisor.prompts import DRAFTER_SYSTEM, drafter_request
from teams.supervisor.rules import useful_results
from teams.supervisor.state import (
    FoundRelation,
    QueryResult,
    StepError,
    SupervisorState,
    relations_in,
    statement,
)

__all__ = [
    "Drafted",
    "ModelWriter",
    "TemplateWriter",
    "Writer",
    "cite",
    "cited_sources",
    "draft_content_body",
    "known_sources",
]

_CITED = re.compile(r"`([^`\s]+:\d+)`")
_CAPITALISED = re.compile(r"(?<=\s)[A-Z][\w'’-]*")
"""A capitalised word after a question's first: a name, or part of one."""


@dataclass(frozen=True, kw_only=True)
class Drafted:
    """A draft: Markdown sections whose every line cites its sources, and notes about it."""

    text: str
    notes: tuple[str, ...] = ()


@runtime_checkable
class Writer(Protocol):
    """Writes the draft from the state's useful results."""

    def draft(self, state: SupervisorState, context: NodeContext) -> Drafted:
        """Return the draft."""
        ...


def cite(sources: Sequence[str]) -> str:
    """`` (`a.md:3`, `b.md:5`)``, or "" for no sources."""
    return f" ({', '.join(f'`{source}`' for source in sources)})" if sources else ""


def cited_sources(text: str) -> list[str]:
    """The ``path:line`` sources cited in ``text``, each once, in order."""
    return list(dict.fromkeys(_CITED.findall(text)))


def known_sources(results: Sequence[QueryResult]) -> list[str]:
    """Every source the results name, each once, in order."""
    sources = [s for r in results for e in r["entities"] for s in e["sources"]]
    sources += [s for r in results for relation in relations_in(r) for s in relation["sources"]]
    return list(dict.fromkeys(sources))


def _sentence(text: str) -> str:
    """``text`` with a capital first letter and a full stop."""
    return f"{text[:1].upper()}{text[1:]}."


def _said(relation: FoundRelation, named: Sequence[str]) -> str:
    """The relation as a cited sentence, quoting its evidence when that says it otherwise: the
    clauses that hold its names and the question's (``named``), when the rest names someone
    else (:func:`~teams.language.quotations.quoted_clauses`)."""
    sentence = relation_sentence(relation)
    names = (relation["subject"], relation["object"], *named)
    evidence = quoted_clauses(" ".join(relation["evidence"].split()), names)
    same = normalised(evidence).rstrip(".") == normalised(sentence)
    quoted = f': "{evidence}"' if evidence and not same else ""
    return f"{sentence}{quoted}{cite(relation['sources'])}."


def _path(path: Sequence[FoundRelation]) -> str:
    hops = "; then ".join(
        f"{relation_sentence(r, opening=False)}{cite(r['sources'])}" for r in path
    )
    ends = f"{path[0]['subject']} reaches {path[-1]['object']}"
    return _sentence(f"{ends} in {len(path)} step(s): {hops}")


def _named(results: Sequence[QueryResult]) -> list[str]:
    """The names of the entities the question names (the terms of the entity lookups)."""
    terms = (
        t
        for r in results
        if r["query"]["kind"] in ("relations", "paths")
        for t in r["query"]["terms"]
    )
    return list(dict.fromkeys(terms))


def _nothing(state: SupervisorState, results: Sequence[QueryResult]) -> str:
    """Why nothing answers: what the question asks about, and what the graph holds instead."""
    names = _named(results)
    asked = focus_words(state.get("question", ""), names)
    held = len({statement(r) for result in results for r in relations_in(result)})
    about = f" about {' and '.join(names)}" if names else " close to the question"
    on = f", none on {', '.join(asked)}" if asked else ""
    return (
        f"Nothing in the knowledge graph answers this question: it holds {held} "
        f"relation(s){about}{on}."
    )


class TemplateWriter:
    """The offline writer: the paths between the entities the question names, the relations
    that answer it (:func:`teams.supervisor.answering.answering_chains`) as whole cited
    sentences, and the entities of a type it asks for; else a note that nothing answers."""

    def draft(self, state: SupervisorState, context: NodeContext) -> Drafted:
        """The answer's sections, blank lines between them."""
        results = useful_results(state)
        sections: list[list[str]] = []
        for result in results:
            terms = result["query"]["terms"]
            if result["query"]["kind"] == "paths" and result["paths"]:
                heading = f"## How {terms[0]} and {terms[1]} are linked"
                sections.append([heading, "", *(_path(path) for path in result["paths"])])
            elif result["query"]["kind"] == "entities":
                found = [
                    _sentence(f"{e['name']} is a {e['type']}{cite(e['sources'])}")
                    for e in result["entities"]
                ]
                sections.append([f"## Entities of type {terms[0]}", "", *found])
        relations = [r for result in results for r in result["relations"]]
        chains = [
            tuple(path)
            for result in results
            if result["query"]["kind"] == "relations"
            for path in result["paths"]
        ]
        named, question = _named(results), state.get("question", "")
        answers = answering_chains(question, named, relations, chains)
        quoting = [*named, *_CAPITALISED.findall(question)]
        lines = list(dict.fromkeys(_said(r, quoting) for chain in answers for r in chain))
        if lines:
            sections.insert(0, ["## Answer", "", *(f"- {line}" for line in lines)])
        if not sections:
            notes = note_section("Not answered by the corpus", [_nothing(state, results)])
            return Drafted(text="\n".join(notes).rstrip())
        return Drafted(text="\n\n".join("\n".join(section) for section in sections))


class ModelWriter:
    """Asks the model for cited claims; a claim citing an unlisted source is left out.

    Args:
        model: Any chat model with ``with_structured_output``.
        system: The system prompt (the registry's current ``supervisor.drafter`` prompt).
    """

    def __init__(self, model: BaseChatModel, system: str = DRAFTER_SYSTEM) -> None:
        self._ask = StructuredCall(model, ReportDraft, system)

    def draft(self, state: SupervisorState, context: NodeContext) -> Drafted:
        """The model's sections, with the claims it could not source left out and noted.

        Raises:
            ModelError: No claim of the model's answer cites a listed source.
        """
        known = set(known_sources(useful_results(state)))
        answer = self._ask(drafter_request(state))
        sections, dropped = [], 0
        for section in answer.sections:
            claims = [c for c in section.claims if c.text.strip()]
            kept = [c for c in claims if c.source in known]
            dropped += len(claims) - len(kept)
            if kept:
                texts = [(" ".join(c.text.split()).rstrip("."), c.source) for c in kept]
                lines = [_sentence(f"{text}{cite([source])}") for text, source in texts]
                sections.append(
                    "\n".join([f"## {claim_heading(section.heading, 'Answer')}", "", *lines])
                )
        if not sections:
            raise ModelError("the model's draft has no claim citing a listed source")
        notes = [f"{dropped} drafted claim(s) left out: they cite no listed source"]
        return Drafted(text="\n\n".join(sections), notes=tuple(notes) if dropped else ())


def draft_content_body(writer: Writer) -> Any:
    """The body of the draft_content node: the writer's draft, or the error it raised."""

    def failed(why: str, context: NodeContext) -> dict[str, Any]:
        context.emit("draft", failed=why)
        note = AIMessage(f"drafting failed: {why}", name="draft_content")
        return {"errors": [StepError(step="draft_content", error=why)], "messages": [note]}

    def body(state: SupervisorState, context: NodeContext) -> dict[str, Any]:
        try:
            drafted = writer.draft(state, context)
        except GraphBubbleUp:
            raise
        except Exception as error:  # reported; the supervisor decides what comes next
            return failed(brief(error), context)
        if not drafted.text.strip():
            return failed("the writer returned an empty draft", context)
        sources = cited_sources(drafted.text)
        context.emit("draft", lines=len(drafted.text.splitlines()), sources=len(sources))
        note = f"drafted {len(drafted.text.splitlines())} line(s) citing {len(sources)} source(s)"
        return {
            "draft": drafted.text,
            "notes": list(drafted.notes),
            "messages": [AIMessage(note, name="draft_content")],
        }

    return body
