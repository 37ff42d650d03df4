"""The cartographer: reads a document into triples, and revises them after the critic's
critiques.

Offline it reads the document's sentences, key-value lines and table rows
(:mod:`teams.extraction.reader`); a revision leaves out the triples the critic refused and,
when the previous output was empty, reads with the relaxed patterns too. The model-backed
cartographer asks for structured output; whatever shape the answer has is normalised
(:func:`normalised_extraction`), and a failed call becomes an empty output with the failure in
``rejected``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, Field

from framework.errors import brief
from framework.knowledge import entity_id
from framework.memory import normalised
from teams.extraction.documents import Document
from teams.extraction.normalise import normalised_extraction
from teams.extraction.prompts import CARTOGRAPHER_SYSTEM, cartographer_request
from teams.extraction.reader import document_triples
from teams.extraction.state import Critique, EntityNote, Extraction, Triple

__all__ = [
    "Cartographer",
    "EntityDraft",
    "ExtractionDraft",
    "ModelCartographer",
    "PatternCartographer",
    "TripleDraft",
]


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
        for triple, note in document_triples(document, relaxed):
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
