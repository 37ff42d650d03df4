"""Acronyms a question spells out: a question's "solid-state drive" is a text's "SSD"."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from teams.language.words import STOPWORDS

__all__ = ["spelled_out", "with_acronyms"]

_ACRONYM = re.compile(r"\b([A-Z][A-Z0-9]{2,5})s?\b")
"""An acronym as a text writes it: three to six capitals or digits, a plural "s" or not
("UUID", "SSDs")."""
_SEGMENT = re.compile(r"[A-Za-z][A-Za-z\s-]*[A-Za-z]")
"""A stretch of words not broken by punctuation; its words are split at spaces and hyphens."""
_WORD = re.compile(r"[A-Za-z]+")
_SKIPPED = frozenset({"of", "and", "for", "the", "to", "in", "on"})
"""Words an acronym may leave out ("Bureau of Investigation")."""


def spelled_out(acronym: str, words: Sequence[str]) -> bool:
    """Whether ``words`` abbreviate to ``acronym``: each gives the acronym's next letters, at
    least its first (``universally unique identifier`` gives ``UUID``: u, u, id), except the
    small words an acronym may leave out; the first and last words give letters, and none is
    another word of no meaning of its own.

    >>> spelled_out("UUID", ["universally", "unique", "identifier"])
    True
    >>> spelled_out("SSD", ["solid", "state", "drive"])
    True
    >>> spelled_out("SSD", ["solid", "state"])
    False
    >>> spelled_out("DNS", ["does", "not", "start"])
    False
    >>> spelled_out("AST", ["AnyIO", "stop"])
    False
    """
    letters = acronym.lower()
    lowered = [word.lower() for word in words]
    if len(lowered) < 2 or lowered[0] in _SKIPPED or lowered[-1] in _SKIPPED:
        return False
    if any(word in STOPWORDS and word not in _SKIPPED for word in lowered):
        return False  # "does not start" is no "DNS"
    if any(not word.isupper() and any(c.isupper() for c in word[1:]) for word in words):
        return False  # a name with capitals of its own: "AnyIO stop" is no "AST"

    def matches(at: int, word: int) -> bool:
        if word == len(lowered):
            return at == len(letters)
        current = lowered[word]
        if current in _SKIPPED and matches(at, word + 1):
            return True
        longest = min(len(current), len(letters) - at)
        return any(
            letters[at : at + size] == current[:size] and matches(at + size, word + 1)
            for size in range(1, longest + 1)
        )

    return matches(0, 0)


def with_acronyms(question: str, texts: Iterable[str]) -> str:
    """``question`` with each acronym of ``texts`` it spells out but does not write added in
    brackets after the words that spell it ("... on a solid-state drive (SSD) when ..."), so
    that its words meet the text's.

    >>> with_acronyms("How big is a universally unique identifier?", ["UUIDs are 16 bytes."])
    'How big is a universally unique identifier (UUID)?'
    """
    acronyms = {found.group(1) for text in texts for found in _ACRONYM.finditer(text)}
    written = {word.upper() for word in _WORD.findall(question)}
    by_initial: dict[str, list[str]] = {}  # only an acronym its first word opens is tried
    for acronym in sorted(acronyms - written):
        by_initial.setdefault(acronym[0].lower(), []).append(acronym)
    insertions: dict[int, str] = {}
    for segment in _SEGMENT.finditer(question):
        words = list(_WORD.finditer(segment.group()))
        for first, opening in enumerate(words):
            for acronym in by_initial.get(opening.group()[0].lower(), ()):
                for last in range(first + 1, min(len(words), first + 2 * len(acronym))):
                    run = [word.group() for word in words[first : last + 1]]
                    if spelled_out(acronym, run):
                        insertions.setdefault(segment.start() + words[last].end(), acronym)
    for at in sorted(insertions, reverse=True):
        question = f"{question[:at]} ({insertions[at]}){question[at:]}"
    return question
