"""A conflict no source decides, settled by the words of the question: the side that speaks
of the case asked about ("By road, Orran is 14 kilometres from Kelby" for "How far is it by
road ...?") against one whose opening phrase sets its figure apart for another case ("As the
crow flies, ...", "For groups of ten or more, ...")."""

from __future__ import annotations

import re

from framework.memory import Conflict, EvidenceRecord
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
    whose opening phrase the question's words are in, when the other's is not; or the one
    without such a phrase, when the other's opening phrase sets its figure apart for a case
    the question does not name ("For groups of ten or more, ... £11 per person" against "An
    adult ticket ... costs £14"); None otherwise."""
    asked = {stem(word) for word in keywords(question)}
    cases = {side.id: _case_words(side) for side in (a, b)}
    named = [side for side in (a, b) if cases[side.id] & asked]
    if len(named) == 1:
        side = named[0]
        other = b if side is a else a
        said = ", ".join(sorted(cases[side.id] & asked))
        reason = (
            f"the question asks about {said}: {side.source} gives its figure for it, "
            f"{other.source} not"
        )
    else:
        apart = [side for side in (a, b) if cases[side.id]]
        if named or len(apart) != 1:
            return None
        other = apart[0]
        side = b if other is a else a
        reason = (
            f"{other.source} gives its figure for a case the question does not ask about "
            f"({', '.join(sorted(cases[other.id]))}); {side.source} states it plainly"
        )
    return Resolution(conflict_id=conflict.id, resolution=reason, resolved_by=side.id)
