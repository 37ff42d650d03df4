"""The cartographer: reads a document into triples, and revises them after the critic's
critiques.

Offline it reads sentences with the patterns of :mod:`teams.extraction.patterns`, a leading
pronoun standing for the subject before it (or the heading's subject); a revision
leaves out the triples the critic refused and, when the previous output was empty, reads with
the relaxed patterns too. The model-backed cartographer asks for structured output; whatever
shape the answer has is normalised (:func:`normalised_extraction`), and a failed call becomes an
empty output with the failure in ``rejected``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, Field

from framework.errors import brief
from framework.knowledge import entity_id
from framework.memory import normalised
from teams.extraction.documents import LIST_JOIN, Document, plain, unmarked
from teams.extraction.normalise import normalised_extraction
from teams.extraction.patterns import Reading, noun_phrases, read_sentence
from teams.extraction.prompts import CARTOGRAPHER_SYSTEM, cartographer_request
from teams.extraction.state import Critique, EntityNote, Extraction, Triple

__all__ = [
    "Cartographer",
    "EntityDraft",
    "ExtractionDraft",
    "ModelCartographer",
    "PatternCartographer",
    "TripleDraft",
]

_EVIDENCE_CHARS = 300


@runtime_checkable
class Cartographer(Protocol):
    """Extracts the triples of a document; on a revision it sees its previous output and the
    critic's critiques of it."""

    def extract(
        self, document: Document, previous: Extraction | None, critiques: Sequence[Critique]
    ) -> Extraction:
        """The document's extraction."""
        ...


def _key(triple: Triple) -> tuple[str, str, str]:
    return entity_id(triple.subject), normalised(triple.predicate), entity_id(triple.object)


def _singular(name: str) -> str:
    """``name`` with a regular plural last word made singular (only by cutting its end, so the
    name stays in the text)."""
    head, _, last = name.rpartition(" ")
    if (
        len(last) > 3
        and last[1:].islower()
        and last.endswith("s")
        and not last.endswith(("ss", "us", "is", "ies"))
    ):
        cut = 2 if last.endswith(("sses", "shes", "ches", "xes")) else 1
        last = last[:-cut]
    return f"{head} {last}".strip()


def _stated(sentence: str, *names: str) -> bool:
    """Whether every name appears in the sentence as written (markup aside)."""
    said = plain(sentence)
    return all(plain(name) in said for name in names)


def _excerpt(sentence: str) -> str:
    if len(sentence) <= _EVIDENCE_CHARS:
        return sentence
    return sentence[:_EVIDENCE_CHARS].rsplit(" ", 1)[0]


_PRONOUN = re.compile(r"^(?:It|They|He|She)\b")
_POSSESSIVE = re.compile(r"^(?:Its|Their|His|Her)\b")
_HEADING_WORDS = 5


def _heading_subject(heading: str) -> str:
    """What a short heading names ("The Corran ferry": Corran ferry), or ""."""
    words = heading.strip(" #:").split()
    while words and words[0].lower() in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words) if 0 < len(words) <= _HEADING_WORDS else ""


def _resolved(sentence: str, antecedent: str) -> str:
    """``sentence`` with a leading "It", "They", "He" or "She" replaced by ``antecedent``
    (and "Its", "Their"... by its possessive)."""
    if not antecedent:
        return sentence
    if _POSSESSIVE.match(sentence):
        return _POSSESSIVE.sub(f"{antecedent}'s", sentence, count=1)
    return _PRONOUN.sub(antecedent, sentence, count=1)


def _item_readings(lead: list[Reading], item: str) -> list[Reading]:
    """The readings of a list item under a lead-in that states a relation ("serves three
    towns:"): the lead-in's subject and predicate with each thing the item names."""
    main = lead[0]
    things = noun_phrases(item.split(LIST_JOIN, 1)[1])
    return [Reading(main.subject, main.predicate, thing, main.confidence) for thing in things]


def _readings(document: Document, relaxed: bool) -> Iterator[tuple[Triple, EntityNote | None]]:
    """Every section's readings; a leading pronoun reads as the subject of the sentence before
    (or, opening a section, what its heading names), a list item as its lead-in's object."""
    for section in document.sections:
        antecedent = _heading_subject(section.heading)
        lead: list[Reading] = []
        for line, sentence in section.sentences():
            text = _resolved(unmarked(sentence), antecedent)
            if LIST_JOIN in text and lead:
                readings = _item_readings(lead, text)
            else:
                readings = read_sentence(text.replace(f":{LIST_JOIN}", " "), relaxed=relaxed)
            if text.endswith(":"):
                lead = read_sentence(text.rstrip(":"), relaxed=relaxed)
            if readings and LIST_JOIN not in text:
                antecedent = readings[0].subject
            for reading in readings:
                subject, thing = _singular(reading.subject), _singular(reading.object)
                if entity_id(subject) == entity_id(thing) or not _stated(text, subject, thing):
                    continue
                triple = Triple(
                    subject=subject,
                    predicate=reading.predicate,
                    object=thing,
                    confidence=reading.confidence,
                    evidence=_excerpt(sentence),
                    line=line,
                )
                kind = _singular(reading.subject_type)
                yield triple, EntityNote(name=subject, type=kind) if kind else None


class PatternCartographer:
    """The offline cartographer: sentence patterns, confidence from how explicit they are."""

    def extract(
        self, document: Document, previous: Extraction | None, critiques: Sequence[Critique]
    ) -> Extraction:
        """Every relation the patterns read, each once; a revision drops the refused ones."""
        revising = previous is not None and bool(critiques)
        relaxed = revising and previous is not None and not previous.triples
        refused = _refused(previous, critiques) if revising else set()
        triples: dict[tuple[str, str, str], Triple] = {}
        notes: dict[str, EntityNote] = {}
        for triple, note in _readings(document, relaxed):
            key = _key(triple)
            if key not in refused:
                triples.setdefault(key, triple)
                if note is not None:
                    notes.setdefault(entity_id(note.name), note)
        return Extraction(triples=tuple(triples.values()), entities=tuple(notes.values()))


def _refused(previous: Extraction | None, critiques: Sequence[Critique]) -> set[tuple[str, ...]]:
    triples = previous.triples if previous is not None else ()
    return {
        _key(triples[c.triple])
        for c in critiques
        if c.triple is not None and c.triple < len(triples)
    }


class TripleDraft(BaseModel):
    """One relation the document states."""

    subject: str
    predicate: str = Field(description="a short verb phrase")
    object: str
    confidence: float = Field(description="0 to 1: how explicitly the text states it")
    evidence: str = Field(description="a verbatim excerpt of the sentence that states it")
    line: int | None = Field(default=None, description="the line number shown before it")


class EntityDraft(BaseModel):
    """An entity with the type the text gives it."""

    name: str
    type: str | None = None


class ExtractionDraft(BaseModel):
    """The cartographer model's answer."""

    triples: list[TripleDraft] = Field(default_factory=list)
    entities: list[EntityDraft] = Field(default_factory=list)
    claims: list[str] = Field(default_factory=list)


class ModelCartographer:
    """Asks a chat model for an :class:`ExtractionDraft` and normalises what it answers."""

    def __init__(self, model: BaseChatModel, system: str = CARTOGRAPHER_SYSTEM) -> None:
        self.system = system
        self._ask = model.with_structured_output(ExtractionDraft, include_raw=True)

    def extract(
        self, document: Document, previous: Extraction | None, critiques: Sequence[Critique]
    ) -> Extraction:
        """The model's triples; on a revision the request holds the previous ones and the
        critiques."""
        request = cartographer_request(document, previous, critiques)
        try:
            answer = self._ask.invoke([SystemMessage(self.system), HumanMessage(request)])
        except GraphBubbleUp:
            raise
        except Exception as error:  # a failed call: an empty output the critic will refuse
            return Extraction(rejected=(f"the model failed: {brief(error)}",))
        return normalised_extraction(_answer(answer), document)


def _answer(answer: Any) -> Any:
    """What the model answered: the parsed draft, else its raw tool arguments or text."""
    if not isinstance(answer, Mapping):
        return answer
    if answer.get("parsed") is not None:
        return answer["parsed"]
    raw = answer.get("raw")
    calls = getattr(raw, "tool_calls", None) or []
    return calls[0].get("args") if calls else getattr(raw, "content", None)
