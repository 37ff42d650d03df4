"""Negation, words that state another's negation, and a value rejected in passing.

"shut" states "not open"; "permitted" is "allowed". A contrast rejects a value inside the
claim's own sentence: "31 metres tall, not 37 metres as the guide says", "45 cars rather
than the 60 often quoted", "11 km instead of 14 km": :func:`split_contrast` separates what the
sentence states from what it rejects, as :func:`split_errata` does for an errata line ("for 41
arches read 31 arches").
"""

from __future__ import annotations

import re

__all__ = [
    "NEGATION",
    "OPPOSITES",
    "REJECTS",
    "REPLACES",
    "SAME",
    "UPDATE_OPENING",
    "UPHOLDS",
    "WRONG_CLAUSE",
    "normal_word",
    "split_contrast",
    "split_errata",
]

NEGATION = re.compile(
    r"\b(?:not|never|no longer|cannot|can't|doesn't|don't|isn't|aren't|wasn't|weren't|won't|"
    r"no)\b",
    re.IGNORECASE,
)
OPPOSITES = {
    "shut": "open",
    "closed": "open",
    "closes": "open",
    "forbidden": "allowed",
    "prohibited": "allowed",
    "banned": "allowed",
    "disallowed": "allowed",
    "unavailable": "available",
    "disabled": "enabled",
    "absent": "present",
    "excluded": "included",
    "impossible": "possible",
    "unsupported": "supported",
    "invalid": "valid",
    "false": "true",
    "unsafe": "safe",
}
"""Words that state the negation of another: "shut" is "not open"."""
SAME = {"permitted": "allowed", "opened": "open"}
REJECTS = re.compile(
    r"\b(?:misprint(?:ed|s)?|misread(?:ing|s)?|typo|mistaken(?:ly)?|mistook|mix(?:ed)? up|"
    r"(?:first|earlier|previous|original) (?:printing|edition|version) (?:gave|said|had|stated)|"
    r"(?:a|by|in) (?:mistake|"
    r"error)|erroneous(?:ly)?|(?:is|was|were|are) wrong|wrongly|(?:is|was|were|are) incorrect|"
    r"incorrectly|confus(?:ed|es|ing)\b[^.;]*\bwith|corrected (?:figure|value|date|number|"
    r"count|text|version)s?)\b|(?<=\d)[^\d.;\[\]()]{0,20}?[\[(]sic[\])]",
    re.IGNORECASE,
)
"""Words that report a value as wrong: "a misprint", "confused it with", "Corrected figure: the
first printing gave ...", a "[sic]" after a figure quoted ("gives it as "64 metres" [sic]")."""
REPLACES = re.compile(
    r"\b(?:amend(?:s|ed|ment)|retract(?:s|ed|ion)|withdr(?:aws|awn|ew)|supersed(?:es|ed)|"
    r"revok(?:es|ed)|rescind(?:s|ed))\b",
    re.IGNORECASE,
)
"""Words that report another text changed or taken back: "is amended as follows", "retracts"."""
UPDATE_OPENING = r"^\W*(?:update|updated|edit|edited)\b[^:.;]{0,30}:"
"""A note that updates its page opening a sentence: "Update, June 2023:", "**Edit:**"."""
WRONG_CLAUSE = (
    r"\b(?:is|was|were|are)\s+(?:wrong|incorrect|mistaken|in error|an error|a mistake|"
    r"a misprint|a typo)\s*[:–—]"
)
"""A clause that says what it names is wrong, ended by a colon or a dash that leads to the
right value: "The span given in the survey is wrong: the span is 420 metres"."""
UPHOLDS = re.compile(
    r"\b(?:corrected to|amended to|should (?:read|be|have been)|is actually|was actually|"
    rf"in fact|correct (?:figure|value|date|number) is|rather(?! than))\b|{UPDATE_OPENING}|"
    + WRONG_CLAUSE,
    re.IGNORECASE,
)
"""Words before the value a correction upholds: "was corrected to", "should read", an update's
"Update, June 2023:", "... is wrong:"."""

_CONTRAST = re.compile(
    r"(?:,|;|—|\s[-–])\s*(?:and\s+|but\s+)?not\b|\b(?:rather than|instead of|as opposed to)\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[,;:.!?](?:\s|$)|\s[-–—]\s")
_ERRATA = re.compile(
    r"(?:^|(?<=[,;:]\s))for\s+(?P<wrong>[^,;:.!?]{1,80}?)\s+read\s+(?P<right>[^,;:.!?]+)",
    re.IGNORECASE,
)
"""An errata line's "for X read Y" opening a clause: X is rejected, Y is stated."""
_ERRATA_ROW = re.compile(
    r"(?:^|(?<=[,;:]\s))(?:printed|error|wrong|incorrect|for)\s+(?P<wrong>[^;]{1,160}?)\.?;\s+"
    r"(?:should read|read|correct(?:ed|ion)?|right)\s+(?P<right>[^;]+)",
    re.IGNORECASE,
)
"""A row of an errata table as a statement ("printed The breakwater is 280 metres long.; should
read The breakwater is 310 metres long."): the first column's text is rejected, the second's
stated."""
_CHANGE = re.compile(
    r"\b(?:changed|changes|increased|decreased|raised|lowered|reduced|cut|rose|risen|fell|"
    r"fallen|grew|grown|dropped|climbed|went\s+(?:up|down)|expanded|extended|shortened|"
    r"revised|updated|moved|upgraded|cut\s+back)\s+(?:\w+\s+){0,2}?"
    r"(?P<from>from\s+(?P<wrong>[^,;:!?]{1,60}?)\s+)to\s+(?P<right>[^,;:!?]+)",
    re.IGNORECASE,
)
"""A change "from X to Y": X is what it was, Y what it is now ("seating changed from 300 seats
to 360 seats"); a range without a verb of change ("open from 9 to 5") is none."""


def normal_word(word: str) -> str:
    """The word a statement's word stands for: "shut" for "open", "permitted" for "allowed"."""
    return OPPOSITES.get(word) or SAME.get(word) or word


def split_errata(text: str, gap: str = "") -> tuple[str, str, str] | None:
    """``text`` as an errata line opening a clause with "for X read Y" (or an errata table's
    row, "printed X; should read Y"), or as a change "from X to Y": the text with "for X read"
    (or "from X") left out (put as ``gap``), X and Y; None for any other text (the caller
    checks that X and Y are values of one kind: "for details read the FAQ" is no errata, "moved
    from the hall to 3 pm" no change of one value)."""
    errata = _ERRATA.search(text) or _ERRATA_ROW.search(text)
    if errata is not None:
        kept = text[: errata.start()] + gap + text[errata.start("right") :]
        return kept, errata["wrong"], errata["right"]
    change = _CHANGE.search(text)
    if change is None:
        return None
    kept = text[: change.start("from")] + gap + text[change.end("from") :]
    return kept, change["wrong"], change["right"]


def split_contrast(text: str) -> tuple[str, str]:
    """``text`` without its contrasted clauses, and those clauses ("" when it has none).

    A contrasted clause runs from ", not", "rather than", "instead of" or "as opposed to" to
    the end of its clause.
    """
    kept, rejected, at = [], [], 0
    for match in _CONTRAST.finditer(text):
        if match.start() < at:
            continue
        end = _CLAUSE_END.search(text, match.end())
        stop = end.start() if end is not None else len(text)
        kept.append(text[at : match.start()])
        rejected.append(text[match.start() : stop].lstrip(",;—-– "))
        at = stop
    if not rejected:
        return text, ""
    kept.append(text[at:])
    return "".join(kept), "; ".join(rejected)
