"""Claims a document reports without making them, and sentences that deny the one before.

"It is often said that Ann Roe carved the font", "The story that Ann Roe carved the font is a
myth", "According to legend, ..." and "Ann Roe reportedly carved the font" report a claim, and
"The council proposed that the font be moved" a step not taken; "... carved the font, but this
is untrue" and a next sentence "This is not true." deny what is said. None of them states that
Ann Roe carved the font, so the extraction reads no relation from them.

Example:
    >>> hearsay("Local legend holds that Ann Roe carved the font, but this is untrue.")
    True
    >>> denies_the_last("That story is a myth.")
    True
"""

from __future__ import annotations

import re

__all__ = ["denies_the_last", "hearsay"]

_OFTEN = r"(?:(?:often|widely|popularly|long|commonly|sometimes|locally)\s+)?"
_REPORTED = re.compile(
    r"\b(?:story|stories|claim|claims|legend|legends|rumou?rs?|myth|belief|tale|tradition)\s+"
    r"(?:that|holds|has\s+it|says|credits|attributes|names)\b"
    rf"|\b(?:is|are|was|were|it\s+is|it\s+was)\s+{_OFTEN}(?:said|claimed|rumou?red|believed|"
    r"thought|reputed|supposed|alleged)\s+(?:to|that)\b"
    r"|\b(?:supposedly|reportedly|allegedly|purportedly|reputedly)\b"
    r"|\baccording\s+to\s+(?:(?:local|popular|family|village|one|a|an|the)\s+)?"
    r"(?:legend|tradition|rumou?r|lore|folklore|myth|hearsay|gossip|story|tale|belief)\b"
    r"|\b(?:proposed|suggested|recommended|urged|demanded|asked)\s+that\b",
    re.IGNORECASE,
)
"""A claim reported or a step proposed: "the story that", "it is often said that", "is reputed
to", "reportedly", "has proposed that"."""
_DENIAL = (
    r"(?:this|that|it|the\s+(?:story|claim|legend|rumou?r|tale|attribution|tradition))\b"
    r"[^.;]{0,30}?\b(?:is|was|are|were|has\s+been|proved|proves)\s+(?:now\s+|since\s+|long\s+)?"
    r"(?:not\s+(?:true|so|correct|the\s+case)|untrue|false|wrong|mistaken|incorrect|"
    r"unfounded|baseless|a\s+myth|a\s+legend|disproved|discredited|refuted|doubtful)\b"
)
_NO_PART = r"(?:he|she|they|it)\s+(?:had|has|have|played)\s+no\s+(?:part|hand|role)\b"
_DENIED_AFTER = re.compile(rf"(?:,\s*but\s+|;\s*|\s+but\s+)(?:{_DENIAL}|{_NO_PART})", re.IGNORECASE)
"""A clause that denies the one before it: ", but this is untrue", "; he had no part in it"."""
_DENIES = re.compile(rf"^{_DENIAL}", re.IGNORECASE)
"""A sentence that denies the one before it: "This is not true.", "That story is a myth."."""


def hearsay(sentence: str) -> bool:
    """Whether ``sentence`` reports a claim without making it, or denies what it says."""
    return bool(_REPORTED.search(sentence) or _DENIED_AFTER.search(sentence))


def denies_the_last(sentence: str) -> bool:
    """Whether ``sentence`` opens by denying the sentence before it."""
    return _DENIES.match(sentence.strip()) is not None
