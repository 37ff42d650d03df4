"""Markdown footnotes: a note that opens with its predicate is said of the thing its mark
follows.

"The Corve viaduct[^1] carries the railway." and, below, "[^1]: Built by Silas Venn in 1851."
state that the Corve viaduct was built by Silas Venn in 1851, cited on the note's line. A mark
is left out of the sentence it stands in.

Example:
    >>> marked_things(["The Corve viaduct[^1] carries the railway."])
    {'1': 'Corve viaduct'}
    >>> footnote("[^1]: Built by Silas Venn in 1851.")
    ('1', 'Built by Silas Venn in 1851.')
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["footnote", "marked_things", "without_marks"]

_MARKED = re.compile(
    r"(?P<thing>[A-Z][\w'’-]*(?:\s+[A-Za-z][\w'’-]*){0,4})\[\^(?P<mark>[^\]\s]+)\]"
)
"""The words of a thing, opening with a capital, right before a footnote's mark."""
_NOTE = re.compile(r"^\[\^(?P<mark>[^\]\s]+)\]:\s*(?P<body>\S.*)$")
_MARK = re.compile(r"\[\^[^\]\s]+\](?!:)")
_ARTICLE = re.compile(r"^(?:The|A|An)\s+")


def marked_things(sentences: Iterable[str]) -> dict[str, str]:
    """Each footnote mark in ``sentences`` and the thing it follows (its article left out)."""
    return {
        found["mark"]: _ARTICLE.sub("", found["thing"])
        for sentence in sentences
        for found in _MARKED.finditer(sentence)
    }


def footnote(sentence: str) -> tuple[str, str] | None:
    """A footnote's mark and its text, when ``sentence`` is one ("[^1]: Built by ...")."""
    found = _NOTE.match(sentence.strip())
    return (found["mark"], found["body"]) if found else None


def without_marks(sentence: str) -> str:
    """``sentence`` without the footnote marks in it ("The Corve viaduct carries ...")."""
    return _MARK.sub("", sentence)
