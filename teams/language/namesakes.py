"""A page about a namesake of what a question asks about: "Corbury in Wenmoor is not to be
confused with Corbury in Tallshire." answers nothing about Corbury in Tallshire.

Example:
    >>> about_namesake("Corbury in Wenmoor is not to be confused with Corbury in Tallshire.",
    ...                "How many bells does the church at Corbury in Tallshire have?")
    True
"""

from __future__ import annotations

import re

from teams.language.words import keywords, stem

__all__ = ["about_namesake"]

_CONFUSED = re.compile(
    r"(?P<own>[^.;:\n]+?)\s+(?:is|are|was|were)\s+not\s+to\s+be\s+(?:confused|mistaken)\s+"
    r"(?:with|for)\s+(?:the\s+)?(?P<other>[^.;:\n]+)",
    re.IGNORECASE,
)


def about_namesake(text: str, question: str) -> bool:
    """Whether ``text`` says what it is about is not to be confused with something the question
    names: a word that tells the other apart is in the question ("Tallshire"), and none that
    tells the page's own subject apart ("Wenmoor")."""
    asked = {stem(word) for word in keywords(question)}
    for found in _CONFUSED.finditer(text):
        own = {stem(word) for word in keywords(found["own"])}
        other = {stem(word) for word in keywords(found["other"])}
        if asked & (other - own) and not asked & (own - other):
            return True
    return False
