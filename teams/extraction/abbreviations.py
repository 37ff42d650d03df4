"""Abbreviations a document defines in brackets, so a relation stated with one is a relation
of the thing it stands for.

"The Northern Rivers Authority (NRA) manages the weir." and "The NRA (Northern Rivers
Authority) manages the weir." both define NRA: its letters are the initials of the long form's
words (capitalised ones, or all of them: "Bureau of Meteorology (BoM)", "Department of Energy
(DOE)"). The definition is a relation of its own ("NRA stands for Northern Rivers Authority"),
the brackets are left out when the sentence is read, and "The NRA was set up in 1974" later
reads as a relation of the Northern Rivers Authority.

Example:
    >>> defined("The Northern Rivers Authority (NRA) manages the Tarn weir.")
    [('NRA', 'Northern Rivers Authority')]
    >>> without_definitions("The Northern Rivers Authority (NRA) manages the Tarn weir.")
    'The Northern Rivers Authority manages the Tarn weir.'
"""

from __future__ import annotations

import re

__all__ = ["defined", "without_definitions"]

_SHORT = r"[A-Z][A-Za-z&]*[A-Z]s?"
_LONG_FIRST = re.compile(rf"(?P<long>[A-Z][^()]*?)\s*\((?P<short>{_SHORT})\)")
_SHORT_FIRST = re.compile(rf"\b(?P<short>{_SHORT})\s*\((?P<long>[A-Z][^()]*)\)")
_JOINING = frozenset("of and for the on in & de".split())
"""Words a long form may hold that its abbreviation skips."""


def _initials(words: list[str]) -> tuple[str, str]:
    """The initials of the capitalised words, and of every word, in capitals."""
    capitals = "".join(word[0] for word in words if word[0].isupper())
    return capitals, "".join(word[0] for word in words).upper()


def _long_form(words: list[str], short: str) -> str:
    """The shortest run of ``words``, ending with the last, whose initials spell ``short``
    (its capitals); "" when none does."""
    letters = "".join(letter for letter in short if letter.isupper())
    for start in range(len(words) - 1, -1, -1):
        run = words[start:]
        if run[0].lower() in _JOINING:
            continue
        if letters in _initials(run):
            return " ".join(run)
    return ""


def defined(sentence: str) -> list[tuple[str, str]]:
    """``(abbreviation, long form)`` of each abbreviation the sentence defines in brackets."""
    found = []
    for match in _LONG_FIRST.finditer(sentence):
        long = _long_form(match.group("long").split(), match.group("short"))
        if long:
            found.append((match.group("short"), long))
    for match in _SHORT_FIRST.finditer(sentence):
        words = match.group("long").split()
        if _long_form(words, match.group("short")) == " ".join(words):
            found.append((match.group("short"), " ".join(words)))
    return found


def without_definitions(sentence: str) -> str:
    """``sentence`` without the brackets that define an abbreviation."""
    for short, long in defined(sentence):
        for bracket in (f"({short})", f"({long})"):
            sentence = re.sub(rf"\s*{re.escape(bracket)}", "", sentence, count=1)
    return sentence
