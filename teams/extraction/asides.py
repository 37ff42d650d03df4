"""Asides taken out of a sentence: a participle set off after its noun, a second subject set off
by "along with", and an alternative the sentence denies.

"The ketch Morwen, built by Amos Grell in 1851, sank in 1903." and "The Orme lighthouse
(designed by Silas Pyne, 1862) still stands." each state two relations: the main clause about
the noun, and the participle, read as a passive of the same noun ("The ketch Morwen was built by
Amos Grell in 1851"). An alternative named only to be denied ("Jon Hale, not his brother, built
the bridge", "won not by Harrow but by Ebb", "went to Vera Holt instead of Otto Brand", "The
dial, long attributed to Ivo Hart, was made by Ann Roe") is taken out, so the clause reads as
the affirmation it is rather than as a negation, and the denied name is never read as a party
to the relation.

Example:
    >>> participle_asides("The ketch Morwen, built by Amos Grell in 1851, sank in 1903.")
    ['The ketch Morwen sank in 1903.', 'The ketch Morwen was built by Amos Grell in 1851.']
    >>> without_denied("Jon Hale, not his brother Emrys Hale, built the Tarn footbridge.")
    'Jon Hale built the Tarn footbridge.'
"""

from __future__ import annotations

import re

from teams.extraction.patterns import PARTICIPLE as _PARTICIPLE

__all__ = ["joined_subjects", "participle_asides", "without_denied", "without_label"]

_PREPOSITION = r"(?:by|in|at|on|from|for|with|under|near)"
_PARTICLE = r"(?:(?:up|down|out|over|back)\s+)?"
"""The particle of a phrasal participle ("put up in 1820 by ...")."""
_NOUN = r"(?P<noun>(?:The|A|An|[A-Z][\w'’-]*)(?:\s+[\w'’-]+){0,5}?)"
_ASIDES = (
    re.compile(
        rf"^{_NOUN},\s+(?P<aside>{_PARTICIPLE}\s+{_PARTICLE}{_PREPOSITION}\s+[^,;()]+?),\s+"
        r"(?P<rest>[a-z].*)$"
    ),
    re.compile(
        rf"^{_NOUN}\s+\((?P<aside>{_PARTICIPLE}\s+{_PARTICLE}{_PREPOSITION}\s+[^;()]+?)\)\s*(?P<rest>.*)$"
    ),
    re.compile(
        rf"^{_NOUN},\s+(?P<aside>{_PARTICIPLE}\s+{_PARTICLE}{_PREPOSITION}\s+[^,;]+?)"
        r"(?P<rest>)\s*[.!?]?$"
    ),
)
"""A participle (phrasal or not) and its preposition after the sentence's opening noun, set
off by commas with the main clause going on in lower case, or by brackets; or a noun and its
participle alone, as a caption writes them ("The Ormsby tower, designed by Lena Pike
(1911).")."""
_LABEL = re.compile(
    r"^(?:(?:Figure|Fig\.|Plate|Image|Photo|Map)\s+\d+[a-z]?\s*[:.]|(?:1\d{3}|20\d{2})\s*:)"
    r"\s+(?=[A-Z])"
)
"""A label before a caption or a timeline entry: "Figure 2: ", "1834: "."""
_DENIED = (
    re.compile(r",\s+(?:and\s+)?not\s+(?!only\b|just\b|even\b)[^,;]+,(?=\s)"),
    re.compile(r",\s+(?:[a-z]+\s+)?(?:attributed|credited|ascribed)\s+to\s+[^,;]+,(?=\s)"),
    re.compile(
        r"\bnot\s+(?:(?P<prep>by|to|in|at|from|for|with)\s+|(?=(?:the|a|an)\s|[A-Z]))"
        r"[^,;]+?,?\s+but\s+(?(prep)(?P=prep)\s+)"
    ),
    re.compile(r"\s+(?:instead of|rather than)\s+[^;]*?(?=\s*(?:;|[.!?]?$))"),
)
"""An alternative named to be denied: ", not his brother," or an attribution the sentence goes
on to correct (", long attributed to A, was in fact made by B") between commas; "not by A but
by B" (its preposition stays); "instead of A" or "rather than A" to the end of its clause."""


_ALONG_WITH = re.compile(
    rf"^{_NOUN},\s+(?:along|together)\s+with\s+(?P<other>[^,;()]+?),\s+(?P<rest>[a-z].*)$"
)
"""A second subject set off by "along with" or "together with" before the verb."""
_NAMED_LAST = re.compile(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*$")
"""The name that ends a phrase describing who it is ("her cousin Ivo Dane")."""


def joined_subjects(sentence: str) -> str:
    """``sentence`` with a subject set off by "along with" joined to the first by "and" ("Ann
    Roe, together with Tom Hart, founded the club.": "Ann Roe and Tom Hart founded ...")."""
    found = _ALONG_WITH.match(sentence)
    if found is None:
        return sentence
    named = _NAMED_LAST.search(found["other"])  # "her cousin Ivo Dane": Ivo Dane
    other = named.group() if named and found["other"][:1].islower() else found["other"]
    return f"{found['noun']} and {other} {found['rest']}"


def without_label(sentence: str) -> str:
    """``sentence`` without a figure's or a timeline entry's label ("1834: Clara Moss designs
    the Birk bridge.": "Clara Moss designs the Birk bridge.")."""
    return _LABEL.sub("", sentence, count=1)


def participle_asides(sentence: str) -> list[str]:
    """The main clause without its participle aside, then the aside as a passive sentence of
    its noun; ``[sentence]`` when it has none."""
    for pattern in _ASIDES:
        found = pattern.match(sentence)
        if found is not None:
            noun, aside, rest = found.group("noun", "aside", "rest")
            return [f"{noun} {rest}".rstrip(), f"{noun} was {aside.rstrip('.')}."]
    return [sentence]


def without_denied(sentence: str, gap: str = " ") -> str:
    """``sentence`` without an alternative it names only to deny, each put as ``gap`` (an
    elision mark for a quotation); a quotation ends where its last words are cut."""
    for pattern in _DENIED:
        sentence = pattern.sub(lambda found: _kept(found, gap), sentence)
    sentence = re.sub(r"\s+([.!?]?)$", r"\1", re.sub(r"\s{2,}", " ", sentence))
    mark = gap.strip()
    return re.sub(rf"\s*{re.escape(mark)}[.!?]?$", "", sentence) if mark else sentence


def _kept(found: re.Match[str], gap: str) -> str:
    """What stands for a denied alternative: ``gap``, then the preposition of "not by A but by
    B"."""
    prep = found.groupdict().get("prep")
    return f"{gap}{prep} " if prep else gap
