"""Terms a document defines for a party and then uses in its place, as agreements and contracts
do: "Jago Bolitho, mason, of Redruth ("the Builder")" defines "the Builder", so "The Builder
shall build the schoolroom" says that Jago Bolitho shall build it.

Example:
    >>> terms = defined_terms('... and Ann Roe, mason, of Truro ("the Builder").')
    >>> terms
    {'Builder': 'Ann Roe'}
    >>> with_defined_terms("1. The Builder shall build the hall.", terms)
    '1. Ann Roe shall build the hall.'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["defined_terms", "with_defined_terms"]

_DEFINING = re.compile(
    r"(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})(?:,[^,()\"“”]{1,60})*\s*"
    r"\(\s*(?:hereinafter\s+)?(?:called\s+|referred\s+to\s+as\s+)?[\"“](?:the\s+)?"
    r"(?P<term>[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,2})[\"”]\s*\)"
)
"""A party named, then described, then the term it is defined as in quotes in brackets."""


def defined_terms(text: str) -> dict[str, str]:
    """Each term ``text`` defines for a named party ("Builder"), with that party's name."""
    return {found["term"]: found["name"] for found in _DEFINING.finditer(text)}


def with_defined_terms(sentence: str, terms: Mapping[str, str]) -> str:
    """``sentence`` with each defined term it uses ("the Builder") as the party's name; its
    definition (the term in quotes) is left as it is."""
    for term, name in terms.items():
        sentence = re.sub(
            rf"(?<![\"“\w])(?:[Tt]he\s+)?{re.escape(term)}\b(?![\"”])", name, sentence
        )
    return sentence
