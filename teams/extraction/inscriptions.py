"""An inscription quoted in capitals under a sentence that names what it is carved on:

    The stone above the basin of the Ambler fountain is carved with these words:

    > ERECTED BY THOMAS WRAY MDCCCXLII

says that the Ambler fountain was erected by Thomas Wray. The capitals are read as words of a
sentence (names keep their capital, the other words none), a year in Roman numerals is left
out (the text does not write the figure a relation would name), and the thing is the last name
the lead-in gives ("the Ambler fountain").

Example:
    >>> inscription("ERECTED BY THOMAS WRAY MDCCCXLII")
    'Erected by Thomas Wray.'
    >>> inscribed_thing("The stone above the basin of the Ambler fountain is carved with:")
    'Ambler fountain'
"""

from __future__ import annotations

import re

__all__ = ["inscribed_thing", "inscription"]

_CAPITALS = re.compile(r"^[A-Z][A-Z'’.,\s-]*[A-Z.]$")
_SMALL = frozenset("by in of the and to for at on a an with from this these his her its".split())
"""Words that stay in lower case when an inscription is read."""
_ROMAN_YEAR = re.compile(r"^M{1,2}[MDCLXVI]{2,}$")
_NAMED = re.compile(r"\b((?:[A-Z][\w'’-]*\s+)+[a-z]+)\b")
"""A thing named by capitalised words and a common noun ("Ambler fountain")."""
_DETERMINER = re.compile(r"^(?:The|A|An|This|That|Its|Their)\s+")


def _word(word: str, first: bool) -> str:
    if word.lower() in _SMALL and not first:
        return word.lower()
    return word[:1] + word[1:].lower()


def inscription(sentence: str) -> str:
    """An inscription written in capitals as a sentence ("Erected by Thomas Wray."),
    or "" for a sentence not in capitals (of fewer than three words)."""
    text = sentence.strip().lstrip("> ").rstrip(".")
    if len(text.split()) < 3 or not _CAPITALS.match(text):
        return ""
    words = [word for word in text.split() if not _ROMAN_YEAR.match(word)]
    return " ".join(_word(word, index == 0) for index, word in enumerate(words)) + "."


def inscribed_thing(lead: str) -> str:
    """The thing a lead-in names last by capitalised words and a noun, or ""."""
    named = [_DETERMINER.sub("", found) for found in _NAMED.findall(lead)]
    named = [name for name in named if name[:1].isupper()]
    return named[-1] if named else ""
