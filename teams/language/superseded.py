"""A value a sentence gives as superseded ("Previously was 8KiB, now 16KiB", "changed from 30 to
60", "(was 5)", "up from 12"), left out of a quote that answers what the value is now: the
answer states the value in force, never the one it replaced."""

from __future__ import annotations

import re

__all__ = ["asks_what_was", "without_superseded"]

_SUPERSEDED = re.compile(
    r"\b(?:previously|formerly|originally|until now)\b,?\s+(?:it\s+|this\s+)?"
    r"(?:was|were|used to be|defaulted to)?\s*[^,;.!?]*?[,;]\s*(?=(?:but\s+|and\s+)?now\b)"
    r"|\s*\((?:was|previously|formerly|(?:up|down) from)\s+[^()]*\)"
    r"|\s*\((?:in|before|until|up to)\s+v?\d[\w.]*,?\s+(?:this|it)\s+(?:was|were|used to)\b[^()]*\)"
    r"|,?\s*\b(?:up|down) from\s+[^,;.!?()]+?(?=[,;.!?)]|$)"
    r"|\b(?:chang|increas|decreas|rais|lower|reduc|bump|mov|upgrad|updat|downgrad)(?:e|ed|es|s)?"
    r"(?:\s+[\w`'-]+){0,4}?\s+(?P<from>from\s+(?:[^,;.!?\s]|\.(?=\w))+(?:\s+[\w`'-]+)?\s+)"
    r"(?=to\s)",
    re.I,
)
"""A value given as replaced: "Previously was X, now Y", "(was X)", "(in 6.3 this was always
enabled)", "up from X", and the "from X" of "changed from X to Y", "Upgrade our vendored
PyYAML from 3.11 to 5.4.1"."""
_ASKS_FORMER = re.compile(
    r"\b(?:previous(?:ly)?|former(?:ly)?|originally|used to|old|older|before|earlier|"
    r"was it|until)\b",
    re.I,
)
"""A question about what was, not what is."""
_FIGURE = re.compile(r"(?<![\w.#])v?\d+(?:[.,]\d+)*")
"""A figure or a version ("8KiB", "30 seconds", "2.1"), not an issue's number ("#3066")."""
_NEAR = 40
"""How many characters either side of a superseded value the value in force is looked for."""
_TIDY = re.compile(r" … (?P<mark>[,.;:!?)])")


def asks_what_was(query: str) -> bool:
    """Whether ``query`` asks what a value was before, not what it is ("What was the old
    limit?"): the superseded value answers it."""
    return _ASKS_FORMER.search(query) is not None


def without_superseded(text: str) -> str:
    """``text`` with each value it gives as superseded left out (marked "…"): only where the
    left-out words give a figure or a version and the words next to them give another (the
    value in force); ``text`` as it is otherwise."""
    kept = text
    for found in reversed(list(_SUPERSEDED.finditer(text))):
        start, end = found.span("from") if found.group("from") else found.span()
        rest = kept[:start] + " … " + kept[end:]
        near = kept[max(0, start - _NEAR) : start] + " " + kept[end : end + _NEAR]
        if _FIGURE.search(kept[start:end]) and _FIGURE.search(near):
            kept = _TIDY.sub(r" …\g<mark>", re.sub(r"\s+… ", " … ", rest))
    return kept
