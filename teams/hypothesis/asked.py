"""A conflict no source decides, settled by the words of the question: the side that speaks
of the case asked about ("By road, Orran is 14 kilometres from Kelby" for "How far is it by
road ...?") against one whose opening phrase sets its figure apart for another case ("As the
crow flies, ...", "For groups of ten or more, ...")."""

from __future__ import annotations

import re

from framework.memory import Conflict, EvidenceRecord
from teams.hypothesis.asked_kinds import dimension_asked, event_asked, total_asked
from teams.hypothesis.verdicts import Resolution
from teams.language.values import value_words, values_in
from teams.language.words import keywords, stem

__all__ = ["words_asked_resolution"]

_OPENING = re.compile(
    r"^\W*(?P<phrase>(?:as|by|for|on|at|with|without|under|over|when|if|during|from|in)\b"
    r"[^,.;:!?]{1,60}),\s",
    re.IGNORECASE,
)
"""A phrase set off before the clause that gives the figure: "As the crow flies, ...", "For
groups of ten or more, ..."."""
_MOST_WORDS = 8
_ATTRIBUTION = re.compile(
    r"\b(?:said|says|say|put\s+it|puts\s+it|noted|notes|reported|reports|told|tells|wrote|"
    r"writes|explained|explains|mentioned|claimed|claims|stated|states|announced|recalls|"
    r"recalled)\b",
    re.IGNORECASE,
)
"""Who gives the figure, not for which case: "As the tower captain said on Radio Wendle"."""


def _case_words(side: EvidenceRecord) -> set[str]:
    """The stems of the content words of the phrase ``side`` opens with (see
    :data:`_OPENING`), figures left out; empty when it opens with none."""
    found = _OPENING.match(side.text)
    if found is None or len(found["phrase"].split()) > _MOST_WORDS:
        return set()
    if _ATTRIBUTION.search(found["phrase"]):
        return set()
    figures = value_words(values_in(found["phrase"]))  # "ten" of "groups of ten or more"
    return {
        stem(word)
        for word in keywords(found["phrase"])
        if not word[0].isdigit() and word not in figures
    }


def words_asked_resolution(
    conflict: Conflict, question: str, a: EvidenceRecord, b: EvidenceRecord
) -> Resolution | None:
    """The side of the case the question asks about, for a conflict no source decided: the one
    whose opening phrase the question names, every word of it, when the other's is not named
    ("In today's money, ..." is not "in the money of the time"); or the one without such a
    phrase, when the other's opening phrase sets its figure apart for a case the question does
    not name ("For groups of ten or more, ... £11 per person" against "An adult ticket ...
    costs £14"); or the one whose figure is of the measure the question names, where the
    other's is of that measure otherwise qualified (see :func:`_measure_asked`), or counted for
    each of what the question names (see :func:`_unit_asked`); None otherwise."""
    asked = {stem(word) for word in keywords(question)}
    cases = {side.id: _case_words(side) for side in (a, b)}
    named = [side for side in (a, b) if cases[side.id] and cases[side.id] <= asked]
    if len(named) == 1:
        side = named[0]
        other = b if side is a else a
        said = ", ".join(sorted(cases[side.id]))
        reason = (
            f"the question asks about {said}: {side.source} gives its figure for it, "
            f"{other.source} not"
        )
        return Resolution(conflict_id=conflict.id, resolution=reason, resolved_by=side.id)
    apart = [side for side in (a, b) if cases[side.id]]
    if not named and len(apart) == 1:
        other = apart[0]
        side = b if other is a else a
        reason = (
            f"{other.source} gives its figure for a case the question does not ask about "
            f"({', '.join(sorted(cases[other.id]))}); {side.source} states it plainly"
        )
        return Resolution(conflict_id=conflict.id, resolution=reason, resolved_by=side.id)
    if named:
        return None
    return (
        _measure_asked(conflict, asked, a, b)
        or _unit_asked(conflict, asked, a, b)
        or dimension_asked(conflict, question, a, b)
        or total_asked(conflict, question, a, b)
        or event_asked(conflict, question, a, b)
    )


_EACH = re.compile(r"\b(?:each|every|per)\s+(?P<unit>[a-z][\w-]*)", re.IGNORECASE)
"""What a figure is counted for: "Each household ...", "... per resident"."""


def _unit_asked(
    conflict: Conflict, asked: set[str], a: EvidenceRecord, b: EvidenceRecord
) -> Resolution | None:
    """The side whose figure is for each of what the question names ("one resident"), where
    the other's is for each of something else ("Each household uses 310 litres" against "Each
    resident uses 130 litres")."""
    units = [{stem(found["unit"]) for found in _EACH.finditer(side.text)} for side in (a, b)]
    if len(units[0]) != 1 or len(units[1]) != 1 or units[0] == units[1]:
        return None
    asks = [bool(unit & asked) for unit in units]
    if asks[0] == asks[1]:
        return None
    side, other = (a, b) if asks[0] else (b, a)
    unit = next(iter(units[0] if asks[0] else units[1]))
    reason = f"the question asks about each {unit}: {side.source} gives it, {other.source} not"
    return Resolution(conflict_id=conflict.id, resolution=reason, resolved_by=side.id)


def _measure_asked(
    conflict: Conflict, asked: set[str], a: EvidenceRecord, b: EvidenceRecord
) -> Resolution | None:
    """The side whose figure is of the measure the question names, with the words it qualifies
    it by ("a safe working load of 20 tonnes" for "What is the safe working load ...?"),
    where the other's figure is of the same measure qualified otherwise or not at all ("was
    proof-tested with a load of 30 tonnes")."""
    first, second = _measure(a.text), _measure(b.text)
    if first is None or second is None or first == second:
        return None
    if first[0] == second[0]:
        asks = [
            bool(words) and all(_asked(word, asked) for word in words)
            for _, words in (first, second)
        ]
    elif {first[0], *first[1]} & {second[0], *second[1]} and first[1] and second[1]:
        asks = [
            all(_asked(word, asked) for word in (head, *words)) for head, words in (first, second)
        ]
    else:
        return None
    if asks[0] == asks[1]:
        return None
    side, other, mine, theirs = (a, b, first, second) if asks[0] else (b, a, second, first)
    reason = (
        f"the question asks about the {' '.join(sorted(mine[1]))} {mine[0]}: {side.source} "
        f"gives it, {other.source} a {' '.join(sorted(theirs[1])) or 'plain'} one"
    )
    return Resolution(conflict_id=conflict.id, resolution=reason, resolved_by=side.id)


def _asked(qualifier: str, asked: set[str]) -> bool:
    """Whether the question's words hold ``qualifier`` (a stem), or the verb an "-able" one is
    made from ("usable" for "can it use")."""
    able = re.match(r"^(\w{2,})(?:abl|ibl)$", qualifier)
    roots = {qualifier, *((stem(able[1]), stem(f"{able[1]}e")) if able else ())}
    return not roots.isdisjoint(asked)


_MEASURED = re.compile(
    r"(?P<phrase>(?:[A-Za-z][\w-]*\s+){1,4}?)(?:of|is|was|are|were)\s+"
    r"(?:about\s+|around\s+|roughly\s+|some\s+)?[£$€]?\d"
)
"""The words before the figure a measure is of, or is: "has a safe working load of 20 t"."""
_MEASURE_SUBJECT = re.compile(
    r"^\W*(?i:the|its|their)\s+(?P<phrase>(?:[a-z][\w-]*\s+){1,3}?)(?:of|on|in|for|at)\s"
    r"(?=[^.;!?]*\b(?:is|was|are|were)\s+(?:about\s+|around\s+|roughly\s+|some\s+)?[£$€]?\d)"
)
"""A measure a sentence opens with, before what it is of, and its figure after a verb: "The speed
limit on the bypass is 90 km/h"."""
_NOT_QUALIFYING = frozenset(
    "a an the its their his her our your my this that these those each every has have had "
    "with and or to for on in at by".split()
)
"""Words that end a measure's phrase before its qualifiers (an article, a verb, ...)."""


def _measure(text: str) -> tuple[str, frozenset[str]] | None:
    """The measure ``text`` gives its figure of, and the words that qualify it, as stems
    ("safe working load of 20 tonnes": ``("load", {"safe", "work"})``; the subject a sentence
    opens with, "The median price of a house ... was £298,000": ``("price", {"median"})``); None
    when none."""
    found = _MEASURE_SUBJECT.match(text) or _MEASURED.search(text)
    if found is None:
        return None
    words = found["phrase"].split()
    kept: list[str] = []
    for word in reversed(words):
        if word.lower() in _NOT_QUALIFYING or word.lower().endswith("'s"):
            break
        kept.append(word.lower())
    if not kept:
        return None
    return stem(kept[0]), frozenset(stem(word) for word in kept[1:])
