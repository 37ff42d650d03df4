"""A question a document asks and the fragment that answers it, as a question-and-answer page
writes them: "**Who carved the Lund font?** The mason Piers Garth, in 1412." states that Piers
Garth carved the Lund font, in 1412.

Example:
    >>> answered(asked("Who carved the Lund font?"), "The mason Piers Garth, in 1412.")
    'The mason Piers Garth carved the Lund font in 1412.'
"""

from __future__ import annotations

import re

__all__ = ["answered", "asked"]

_WHO = re.compile(r"^\s*Who\s+(?P<rest>[a-z][\w'’-]*\s+[^?]+?)\s*\?\s*$")
"""A question about who did something: "Who carved the Lund font?"."""
_FRAGMENT = re.compile(
    r"^(?P<who>(?:The|A|An|[A-Z][\w'’-]*)(?:\s+[\w'’-]+){0,5}?)\s*(?:,\s*(?P<tail>[^.;]+))?[.!]?$"
)
"""An answer without a verb: who, then what it adds after a comma ("The mason Piers Garth,
in 1412.")."""
_VERB_LIKE = re.compile(r"\b(?:is|are|was|were|has|have|had|did|does|do)\b|\w+ed\b")


def asked(sentence: str) -> str:
    """What ``sentence`` asks who did ("carved the Lund font"), or ""."""
    found = _WHO.match(sentence)
    return found["rest"] if found else ""


def answered(question: str, fragment: str) -> str:
    """``fragment`` read as the answer to who ``question`` (what :func:`asked` gave), as a
    sentence; "" when it is no such answer (a sentence with a verb of its own, no name)."""
    found = _FRAGMENT.match(fragment.strip())
    if not question or found is None or _VERB_LIKE.search(found["who"]):
        return ""
    tail = f" {found['tail'].strip()}" if found["tail"] else ""
    return f"{found['who']} {question}{tail}."
