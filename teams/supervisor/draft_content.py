"""The draft_content step: prose from what the lookups found, every line citing ``path:line``.

Offline, :class:`TemplateWriter` writes one section per lookup that found something: how a
path links two entities, what is known about an entity, the entities of a type, or the facts
closest to the question. With a model, :class:`ModelWriter` asks for cited claims and keeps
those that cite a listed source. A drafting error is recorded and the run goes on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.errors import GraphBubbleUp

from framework.errors import ModelError, brief
from framework.runtime import NodeContext
from teams.answer_layout import claim_heading
from teams.research.schemas import ReportDraft, StructuredCall
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


def _fact(relation: FoundRelation) -> str:
    return _sentence(f"{statement(relation)}{cite(relation['sources'])}")


def _path(path: Sequence[FoundRelation]) -> str:
    hops = "; then ".join(f"{statement(r)}{cite(r['sources'])}" for r in path)
    ends = f"{path[0]['subject']} reaches {path[-1]['object']}"
    return _sentence(f"{ends} in {len(path)} step(s): {hops}")


def _section(result: QueryResult) -> list[str]:
    """The section of a useful lookup: its heading, a blank line, its cited sentences."""
    kind, terms = result["query"]["kind"], result["query"]["terms"]
    if kind == "paths":
        heading = f"How {terms[0]} and {terms[1]} are linked"
        lines = [_path(path) for path in result["paths"]]
    elif kind == "entities":
        heading = f"Entities of type {terms[0]}"
        lines = [
            _sentence(f"{e['name']} is a {e['type']}{cite(e['sources'])}")
            for e in result["entities"]
        ]
    else:
        heading = f"About {terms[0]}" if kind == "relations" else "What the graph holds"
        lines = [_fact(relation) for relation in result["relations"]]
    return [f"## {heading}", "", *lines]


class TemplateWriter:
    """The offline writer: one section per useful lookup, one cited sentence per fact."""

    def draft(self, state: SupervisorState, context: NodeContext) -> Drafted:
        """The sections, blank lines between them."""
        sections = ["\n".join(_section(result)) for result in useful_results(state)]
        return Drafted(text="\n\n".join(sections))


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
