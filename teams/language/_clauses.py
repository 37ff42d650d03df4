"""What a value is the value of: the content words beside it in its clause.

In "The Ness tower, built in 1820, is 30 m tall." the year stands beside "built" and the
height beside "tall": a clause ends at a comma, semicolon, colon, dash or full stop, and
before "which", "who", "where"... Two values of one kind are about the same attribute when
their words share a stem ("built in 1820" and "was built in 1822").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from teams.language.words import STOPWORDS, stem

__all__ = ["surroundings"]

_BREAK = re.compile(r"[,;:—]|[.!?]\s|\s[-–]\s")
_OPENS_CLAUSE = frozenset(
    "which who whose whom where whereas although though while because unless".split()
)
_BESIDE = 2
"""Content words read on each side of a value."""
_PASSED = frozenset("later afterwards earlier following next previous preceding year".split())
"""Words of a relative date ("a decade later (1974)"): they say when, not of what."""


_SKIPPED = STOPWORDS | _PASSED


def surroundings(
    text: str, tokens: Sequence[tuple[int, int]], values: Sequence[tuple[int, int]]
) -> list[tuple[frozenset[str], int]]:
    """For each value (its first and past-last token), the stems of up to two content words on
    each side of it in its clause, and the number of that clause; ``tokens`` are the character
    spans of the tokens."""
    words = [text[start:end] for start, end in tokens]
    clause = _clauses(text, tokens, words)
    taken = {index for first, last in values for index in range(first, last)}

    def content(index: int) -> bool:
        word = words[index]
        name = index > 0 and word[:1].isupper()
        lower = word.lower()
        return word.isalpha() and len(word) > 1 and not name and lower not in _SKIPPED

    found: list[tuple[frozenset[str], int]] = []
    for first, last in values:
        beside: list[str] = []
        for step, start in ((-1, first - 1), (1, last)):
            index, seen = start, 0
            while 0 <= index < len(words) and clause[index] == clause[first] and seen < _BESIDE:
                if index not in taken and content(index):
                    beside.append(stem(words[index].lower()))
                    seen += 1
                index += step
        found.append((frozenset(beside), clause[first]))
    return found


def _clauses(text: str, tokens: Sequence[tuple[int, int]], words: Sequence[str]) -> list[int]:
    """The clause number of each token."""
    numbers, current = [], 0
    for index, (start, _) in enumerate(tokens):
        if index:
            gap = text[tokens[index - 1][1] : start]
            if _BREAK.search(gap) or words[index].lower() in _OPENS_CLAUSE:
                current += 1
        numbers.append(current)
    return numbers
