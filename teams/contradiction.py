"""An offline test of whether two statements are about the same thing and whether they disagree.

Shared by the MetaCoordinator's risk assessment and the hypothesis team's judge and resolver.
Two statements are about the same thing when they share most of their content words; they
disagree when, about the same thing, one negates what the other states, or each gives a number
or date the other does not.

Example:
    >>> disagreement("The bridge opened in 1932.", "The bridge opened in 1936.")
    'different numbers (1932, 1936)'
    >>> agrees("The bridge opened in 1932.", "Records show the bridge opened in 1932.")
    True
"""

from __future__ import annotations

import re

from teams.research.text import keywords

__all__ = ["DEFAULT_OVERLAP", "agrees", "disagreement", "same_subject"]

DEFAULT_OVERLAP = 0.6
"""Share of the shorter statement's content words the other must contain to be on its subject."""

_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")
_MONTH = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|never|no longer|cannot|can't|doesn't|don't|isn't|won't)\b", re.I)


def same_subject(first: str, second: str, overlap: float = DEFAULT_OVERLAP) -> bool:
    """Whether the two statements share at least ``overlap`` of the shorter one's content words."""
    words_a, words_b = set(keywords(first)), set(keywords(second))
    if not words_a or not words_b:
        return False
    return len(words_a & words_b) / min(len(words_a), len(words_b)) >= overlap


def disagreement(first: str, second: str, overlap: float = DEFAULT_OVERLAP) -> str | None:
    """Why the two statements disagree about the same subject, or ``None`` when they do not.

    A statement that adds a number the other lacks (a detail) does not disagree with it; each
    must give a number or date the other does not.
    """
    if not same_subject(first, second, overlap):
        return None
    if bool(_NEGATION.search(first)) != bool(_NEGATION.search(second)):
        return "one negates what the other states"
    figures_a, figures_b = _figures(first), _figures(second)
    if figures_a - figures_b and figures_b - figures_a:
        differing = sorted(figures_a ^ figures_b)
        kind = "numbers" if all(f[0].isdigit() for f in differing) else "numbers or dates"
        return f"different {kind} ({', '.join(differing)})"
    return None


def agrees(first: str, second: str, overlap: float = DEFAULT_OVERLAP) -> bool:
    """Whether the two statements are about the same subject and do not disagree."""
    return same_subject(first, second, overlap) and disagreement(first, second, overlap) is None


def _figures(text: str) -> set[str]:
    numbers = {number.replace(",", "") for number in _NUMBER.findall(text)}
    return numbers | {month.lower() for month in _MONTH.findall(text)}
