"""A conflict no source decides, settled by the words of the question: the side that speaks
of what is asked ("By road, Orran is 14 kilometres from Kelby" for "How far is it by road
...?"), against one whose own words set its figure apart ("As the crow flies, ...")."""

from __future__ import annotations

from framework.memory import Conflict, EvidenceRecord
from teams.hypothesis.verdicts import Resolution
from teams.language._numbers import WORD_NUMBERS
from teams.language.words import keywords, stem

__all__ = ["words_asked_resolution"]


def _own_words(text: str, other: str) -> set[str]:
    """The stems of the content words of ``text`` that ``other`` lacks, figures left out."""

    def stems(said: str) -> set[str]:
        return {
            stem(word)
            for word in keywords(said)
            if not word[0].isdigit() and word not in WORD_NUMBERS
        }

    return stems(text) - stems(other)


def words_asked_resolution(
    conflict: Conflict, question: str, a: EvidenceRecord, b: EvidenceRecord
) -> Resolution | None:
    """The side the question's words point to, for a conflict no source decided: the one whose
    own words (those the other lacks) the question holds, or the plain one, when the other's
    own words set its figure apart and the question holds none of them ("For groups of ten or
    more, ... £11 per person" against "An adult ticket ... costs £14" for "How much does one
    adult pay ... on their own?"); None when the question points to neither or to both."""
    asked = {stem(word) for word in keywords(question)}
    own = {side.id: _own_words(side.text, other.text) for side, other in ((a, b), (b, a))}
    pointed = [side for side in (a, b) if own[side.id] & asked]
    if len(pointed) == 1:
        side = pointed[0]
        other = b if side is a else a
        said = ", ".join(sorted(own[side.id] & asked))
        reason = f"the question asks about {said}: {side.source} speaks of it, {other.source} not"
    else:
        plain = [side for side in (a, b) if not own[side.id]]
        if pointed or len(plain) != 1:
            return None
        side = plain[0]
        other = b if side is a else a
        reason = (
            f"{other.source} gives its figure for a case the question does not ask about "
            f"({', '.join(sorted(own[other.id]))}); {side.source} states it plainly"
        )
    return Resolution(conflict_id=conflict.id, resolution=reason, resolved_by=side.id)
