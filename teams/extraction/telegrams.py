"""A telegram's line in capitals, its sentences ended by "STOP", read as sentences in ordinary
case: "KELBY FOOTBRIDGE OPENED TODAY STOP BUILT BY HANNAH ORRELL IN NINE MONTHS STOP ALDOUS
FENN CLERK" as "Kelby Footbridge opened today. Built by Hannah Orrell in nine months. Aldous
Fenn Clerk.", so that each sentence says its own relation and the sender's name at the end is
no part of one. A word keeps its capital unless it is a small word, a past form ("OPENED",
"BUILT"), a number or a word of time.

Example:
    >>> untelegraphed("MILL OPENED STOP BUILT BY ADA HOLM IN TWO YEARS STOP")
    'Mill opened. Built by Ada Holm in two years.'
    >>> untelegraphed("THE STOP SIGN")
    'THE STOP SIGN'
"""

from __future__ import annotations

import re

from teams.language.verbs import IRREGULAR
from teams.language.words import STOPWORDS

__all__ = ["untelegraphed"]

_STOP = re.compile(r"\s*\bSTOP\b\s*")
_STOPS = 2
"""How many "STOP"s make a line a telegram's ("THE STOP SIGN" is none)."""
_LOWER = frozenset(
    "today yesterday tomorrow tonight days day weeks week months month years year one two three "
    "four five six seven eight nine ten eleven twelve twenty hundred".split()
)
"""Words of time and number that a telegram writes in capitals like the rest."""


def _word(word: str) -> str:
    low = word.lower()
    past = low.endswith("ed") or low in IRREGULAR
    return low if low in STOPWORDS or low in _LOWER or past else word[:1] + word[1:].lower()


def untelegraphed(line: str) -> str:
    """``line`` as sentences when it is a telegram's (in capitals, two "STOP"s or more);
    ``line`` as it is otherwise."""
    if line != line.upper() or len(_STOP.findall(line)) < _STOPS:
        return line
    parts = [part for part in _STOP.split(line.strip()) if part]
    sentences = (" ".join(_word(word) for word in part.split()) for part in parts)
    return " ".join(f"{sentence[:1].upper()}{sentence[1:]}." for sentence in sentences)
