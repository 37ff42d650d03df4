"""A question a document asks and the fragment that answers it, as a question-and-answer page
writes them: "**Who carved the Lund font?** The mason Piers Garth, in 1412." states that Piers
Garth carved the Lund font, in 1412; so does "Who built the Orm tower? Ellen Marsh did, in
1760.", the answer's auxiliary standing for the question's verb, and "You built the Orm tower,
didn't you? Ellen Marsh did." A name in apposition after a noun that is no name ("My
grandfather, Henry Rudd, in 1902.") is who did it.

Example:
    >>> answered(asked("Who carved the Lund font?"), "The mason Piers Garth, in 1412.")
    'The mason Piers Garth carved the Lund font in 1412.'
"""

from __future__ import annotations

import re

__all__ = ["answered", "asked", "names_in_apposition", "stands_for_verb"]

_WHO = re.compile(r"^\s*Who\s+(?P<rest>[a-z][\w'’-]*\s+[^?]+?)\s*\?\s*$")
"""A question about who did something: "Who carved the Lund font?"."""
_FRAGMENT = re.compile(
    r"^(?P<who>(?:The|A|An|[A-Z][\w'’-]*)(?:\s+[\w'’-]+){0,5}?)\s*(?:,\s*(?P<tail>[^.;]+))?[.!]?$"
)
"""An answer without a verb: who, then what it adds after a comma ("The mason Piers Garth,
in 1412.")."""
_VERB_LIKE = re.compile(r"\b(?:is|are|was|were|has|have|had|did|does|do)\b|\w+ed\b")
_STANDING_VERB = re.compile(r"\s+(?:did|does|do|was|were|had|has|have)$")
"""An auxiliary that stands for the question's verb after the answer's name ("Ellen Marsh
did")."""


_YOU = re.compile(
    r"^\s*You\s+(?!(?:can|could|will|would|should|may|might|must|need|are|were|have)\b)"
    r"(?P<rest>[a-z][\w'’-]*\s+[^?,]+?)\s*(?:,\s*\w+(?:n't|n’t)?\s+you)?\s*\?\s*$"
)
"""A question put to the one who did something: "You designed the Orme pier, didn't you?"."""
_APPOSED = re.compile(r"^(?P<name>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)+)\s*(?:,\s*(?P<tail>.+))?$")
"""A name in apposition after a noun that is no name ("My grandfather, Henry Rudd, in 1902")."""


def asked(sentence: str) -> str:
    """What ``sentence`` asks who did ("carved the Lund font"), or ""."""
    found = _WHO.match(sentence) or _YOU.match(sentence)
    return found["rest"] if found else ""


def _apposed(who: str, tail: str) -> tuple[str, str]:
    """The name in apposition after ``who`` when ``who`` names no one ("My grandfather,
    Henry Rudd": Henry Rudd), with what follows it; ``(who, tail)`` otherwise."""
    named = any(word[:1].isupper() for word in who.split()[1:])
    found = None if named else _APPOSED.match(tail)
    return (found["name"], found["tail"] or "") if found else (who, tail)


def stands_for_verb(fragment: str) -> bool:
    """Whether ``fragment`` answers by a name and an auxiliary standing for the question's verb
    ("Ellen Marsh did, in 1760."), which no other reading of it should outrank."""
    found = _FRAGMENT.match(fragment.strip())
    return found is not None and _STANDING_VERB.search(found["who"]) is not None


def names_in_apposition(fragment: str) -> bool:
    """Whether ``fragment`` answers by a noun that is no name and the name in apposition after
    it ("My grandfather, Henry Rudd, in 1902."), which no reading of it as "is" should outrank."""
    found = _FRAGMENT.match(fragment.strip())
    if found is None or _VERB_LIKE.search(found["who"]):
        return False
    return _apposed(found["who"], (found["tail"] or "").strip())[0] != found["who"]


def answered(question: str, fragment: str) -> str:
    """``fragment`` read as the answer to who ``question`` (what :func:`asked` gave), as a
    sentence; "" when it is no such answer (a sentence with a verb of its own, no name)."""
    found = _FRAGMENT.match(fragment.strip())
    who = _STANDING_VERB.sub("", found["who"]) if found else ""  # "Ellen Marsh did"
    if not question or found is None or _VERB_LIKE.search(who):
        return ""
    who, tail = _apposed(who, (found["tail"] or "").strip())
    return f"{who} {question}{' ' if tail else ''}{tail}."
