"""A conflict no source decides, settled by what kind of figure the question asks: the
dimension ("How long ...?": "36 metres long", not "4 metres wide"), a total ("in total": not
"£120 per metre"), or the event it asks the time of ("When was it founded?": not "its present
building dates from 1884")."""

from __future__ import annotations

import re
from collections.abc import Callable

from framework.memory import Conflict, EvidenceRecord
from teams.hypothesis.verdicts import Resolution
from teams.language.words import keywords, stem

__all__ = ["asks_dimension", "dimension_asked", "event_asked", "total_asked"]


def _decided(
    conflict: Conflict,
    a: EvidenceRecord,
    b: EvidenceRecord,
    held: tuple[bool, bool],
    reason: Callable[[EvidenceRecord, EvidenceRecord], str],
) -> Resolution | None:
    """The side that alone has what the question asks (``held``, for ``a`` and ``b``), with
    the ``reason`` (of it and the other side) given; None when both or neither have it."""
    if held[0] == held[1]:
        return None
    side, other = (a, b) if held[0] else (b, a)
    return Resolution(conflict_id=conflict.id, resolution=reason(side, other), resolved_by=side.id)


_EVENT_ASKED = re.compile(
    r"\b(?:was|were)\b[^?]*?\b(?P<verb>[a-z]+(?:ed|en)|built|made|held|won|sold|bought|begun)"
    r"\s*\?\s*$",
    re.IGNORECASE,
)
"""The event a question of when asks about, as its last word: "When was the school founded?"."""


def event_asked(
    conflict: Conflict, question: str, a: EvidenceRecord, b: EvidenceRecord
) -> Resolution | None:
    """The side that tells of the event the question asks about ("was founded in 1602" for
    "... was the school founded?"), where the other tells of another ("its present building
    dates from 1884")."""
    found = _EVENT_ASKED.search(question)
    if found is None:
        return None
    verb = found["verb"].lower()
    tells = tuple(stem(verb) in {stem(word) for word in keywords(side.text)} for side in (a, b))
    return _decided(
        conflict,
        a,
        b,
        (tells[0], tells[1]),
        lambda side, other: (
            f"the question asks when it was {verb}: {side.source} tells of that, "
            f"{other.source} of another event"
        ),
    )


_DIMENSIONS = {
    "long": "length", "length": "length", "wide": "width", "width": "width", "broad": "width",
    "breadth": "width", "tall": "height", "high": "height", "height": "height", "deep": "depth",
    "depth": "depth", "thick": "thickness", "thickness": "thickness",
}  # fmt: skip
"""The words that name a thing's extent, by the dimension they measure."""
_DIMENSION_ASKED = re.compile(
    r"\bhow\s+(long|wide|broad|tall|high|deep|thick)\b"
    r"|\b(length|width|breadth|height|depth|thickness)\b",
    re.IGNORECASE,
)
_DIMENSION_GIVEN = re.compile(
    r"\d[\d,.]*\s*(?:[a-z]+\s+)?(long|wide|broad|tall|high|deep|thick)\b"
    r"|\b(length|width|breadth|height|depth|thickness)\b",
    re.IGNORECASE,
)
"""A figure's dimension: "4 metres wide", "a length of 36 metres"."""


def asks_dimension(question: str) -> bool:
    """Whether ``question`` asks for an extent ("How high did the river rise?"): a figure."""
    return _DIMENSION_ASKED.search(question) is not None


def _dimensions(pattern: re.Pattern[str], text: str) -> set[str]:
    return {_DIMENSIONS[(found[1] or found[2]).lower()] for found in pattern.finditer(text)}


def dimension_asked(
    conflict: Conflict, question: str, a: EvidenceRecord, b: EvidenceRecord
) -> Resolution | None:
    """The side whose figure is of the dimension the question asks ("How long ...?": "is 36
    metres long"), where the other's is of another ("is 4 metres wide")."""
    asked = _dimensions(_DIMENSION_ASKED, question)
    given = [_dimensions(_DIMENSION_GIVEN, side.text) for side in (a, b)]
    if len(asked) != 1 or not all(given) or given[0] == given[1]:
        return None
    dimension = next(iter(asked))
    return _decided(
        conflict,
        a,
        b,
        (bool(given[0] & asked), bool(given[1] & asked)),
        lambda side, other: (
            f"the question asks about the {dimension}: {side.source} gives it, {other.source} "
            "another dimension"
        ),
    )


_TOTAL_ASKED = re.compile(
    r"\b(?:in\s+total|total|altogether|in\s+all|overall|all\s+told|all\s+together)\b", re.I
)
_PER_UNIT = re.compile(r"\b(?:per|a|an|each)\s+(?!cent\b)(?:square\s+|cubic\s+)?[a-z]+\b", re.I)
_FIGURE_PER_UNIT = re.compile(rf"\d[\d,.]*\s*(?:[a-z]+\s+)?{_PER_UNIT.pattern}", re.I)
"""A figure for each of something: "£120 per metre", "£14 a head"."""


def total_asked(
    conflict: Conflict, question: str, a: EvidenceRecord, b: EvidenceRecord
) -> Resolution | None:
    """For a question of a total ("How much did it cost in total?"), the side that gives a
    whole figure where the other gives one for each of something ("£120 per metre")."""
    if not _TOTAL_ASKED.search(question) or _PER_UNIT.search(_TOTAL_ASKED.sub("", question)):
        return None
    wholes = tuple(not _FIGURE_PER_UNIT.search(side.text) for side in (a, b))
    return _decided(
        conflict,
        a,
        b,
        (wholes[0], wholes[1]),
        lambda side, other: (
            f"the question asks for a total: {side.source} gives one, {other.source} a figure "
            "for each of something"
        ),
    )
