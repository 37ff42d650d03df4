"""The critic: passes an extraction or fails it with critiques.

The rules (always applied) fail an output with rejected parts, an empty output from a document
that has sentences, a triple without evidence or whose evidence is not in the document (a list
item's evidence joins its lead-in and the item: each part must be), a
subject or object the document does not mention, and a duplicate triple. The model-backed critic
adds its own judgement through structured output and falls back to the rules alone when its
answer is unusable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, Field

from framework.errors import brief
from framework.knowledge import entity_id
from framework.memory import normalised
from teams.extraction.documents import Document, bare, plain, quoted_parts
from teams.extraction.prompts import CRITIC_SYSTEM, critic_request
from teams.extraction.state import Critique, Extraction, Triple, Verdict
from teams.research.schemas import StructuredCall

__all__ = ["Critic", "CritiqueDraft", "ModelCritic", "RuleCritic", "VerdictDraft", "rule_critiques"]


@runtime_checkable
class Critic(Protocol):
    """Reviews the extraction of a document."""

    def review(self, document: Document, extraction: Extraction) -> Verdict:
        """Pass the extraction, or fail it with critiques."""
        ...


def rule_critiques(document: Document, extraction: Extraction) -> list[Critique]:
    """What the rules find wrong with ``extraction``; empty when nothing."""
    text = document.plain_text()
    found = [Critique(message=f"unusable output: {note}") for note in extraction.rejected]
    if not extraction.triples and next(document.sentences(), None) is not None:
        found.append(Critique(message="empty output: the document has sentences but no triple"))
    seen: dict[tuple[str, str, str], int] = {}
    for index, triple in enumerate(extraction.triples):
        found.extend(_triple_critiques(index, triple, text, seen))
    return found


_NAME_CHANGE = re.compile(r"\b(?:née|nee|born|formerly)\b", re.I)
"""Words that give a name another surname ("Martha Greaves (née Pollard)")."""


def _grounded(name: str, evidence: str, text: str) -> bool:
    """Whether ``name`` is in ``text`` (apostrophes aside: "the girls' school" names Girls
    school), or, in evidence that gives a name another surname, each of its words is in it
    ("Martha Greaves (née Pollard)" names Martha Pollard)."""
    if bare(name) in bare(text):
        return True
    said = set(re.findall(r"[\w'’-]+", plain(evidence)))
    renamed = _NAME_CHANGE.search(evidence) is not None
    return renamed and all(word in said for word in plain(name).split())


def _triple_critiques(
    index: int, triple: Triple, text: str, seen: dict[tuple[str, str, str], int]
) -> Iterator[Critique]:
    if not triple.evidence.strip():
        yield Critique(message="missing evidence", triple=index)
    elif not all(plain(part) in text for part in quoted_parts(triple.evidence)):
        yield Critique(message="the evidence is not an excerpt of the document", triple=index)
    for role, name in (("subject", triple.subject), ("object", triple.object)):
        if not _grounded(name, triple.evidence, text):
            yield Critique(message=f"the {role} {name!r} is not in the text", triple=index)
    key = (entity_id(triple.subject), normalised(triple.predicate), entity_id(triple.object))
    if key in seen:
        yield Critique(message=f"duplicates triple {seen[key]}", triple=index)
    else:
        seen[key] = index


class RuleCritic:
    """The offline critic: the rules alone."""

    def review(self, document: Document, extraction: Extraction) -> Verdict:
        """Pass when the rules find nothing."""
        found = rule_critiques(document, extraction)
        return Verdict(passed=not found, critiques=tuple(found))


class CritiqueDraft(BaseModel):
    """One problem, and the index of the triple it concerns (null: the whole output)."""

    message: str
    triple: int | None = Field(default=None, description="index of the triple, null for all")


class VerdictDraft(BaseModel):
    """The critic model's answer."""

    passed: bool
    critiques: list[CritiqueDraft] = Field(default_factory=list)


class ModelCritic:
    """The rules, then the model's judgement; the rules decide alone when the model fails or
    answers in an unusable shape (``Verdict.fallback`` says why)."""

    def __init__(self, model: BaseChatModel, system: str = CRITIC_SYSTEM) -> None:
        self._ask = StructuredCall(model, VerdictDraft, system)

    def review(self, document: Document, extraction: Extraction) -> Verdict:
        """Fail when the rules or the model find a problem."""
        found = rule_critiques(document, extraction)
        try:
            draft = self._ask(critic_request(document, extraction, found))
        except GraphBubbleUp:
            raise
        except Exception as error:  # an unusable answer or a failed call: the rules decide
            return Verdict(passed=not found, critiques=tuple(found), fallback=brief(error))
        judged = [] if draft.passed else _judged(draft, len(extraction.triples))
        return Verdict(passed=not found and draft.passed, critiques=(*found, *judged))


def _judged(draft: VerdictDraft, triples: int) -> list[Critique]:
    judged = [
        Critique(
            message=" ".join(c.message.split()),
            triple=c.triple if c.triple is not None and 0 <= c.triple < triples else None,
        )
        for c in draft.critiques
        if c.message.strip()
    ]
    return judged or [Critique(message="the critic failed the extraction without a reason")]
