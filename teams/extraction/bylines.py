"""A credit line under a work's title that names its writer without a verb: "A new play by
Delphine Marr", "A thesis submitted by Imogen Daventry in partial fulfilment of ...", "A novel
by Ada Holm", read as the work's ("The Lantern Keeper", written by, "Delphine Marr"); the title
may be long and hold commas ("The Drainage of the Tarrow Levels, 1760-1830"). A puzzle's "Set
by Y" (or "Compiled by", "Devised by") under its title: Y made it.

Example:
    >>> byline("A new play by Delphine Marr", "The Lantern Keeper")
    [Reading(subject='The Lantern Keeper', predicate='written by', object='Delphine Marr', \
confidence=0.8, subject_type='', clause='')]
    >>> byline("A play in three acts", "The Lantern Keeper")
    []
"""

from __future__ import annotations

import re

from teams.extraction.patterns import Reading
from teams.extraction.reorderings import NAME

__all__ = ["byline"]

_WRITTEN = (
    "play|novel|novella|book|poem|story|short story|thesis|dissertation|essay|memoir|biography|"
    "history|study|report|guide|libretto|screenplay|script"
)
"""Works that are written, so whoever the credit line names wrote it."""
_BYLINE = re.compile(
    rf"^(?i:(?:an?\s+)?(?:(?:new|original|short|first|debut|doctoral|master's|verse)\s+)*"
    rf"(?:{_WRITTEN})\s+(?:(?:written|submitted|presented)\s+)?by)\s+(?P<who>{NAME})"
    r"(?:\s+(?:in|for|at|to|as|under|with)\s.*)?\.?$"
)
"""A credit line of a written work: "A new play by Y", "A thesis submitted by Y in partial
fulfilment of ..."."""
_SET = re.compile(rf"^(?i:(?:set|compiled|devised)\s+by)\s+(?P<who>{NAME})\.?$")
"""A puzzle's credit line: "Set by Y" (a crossword's setter made it)."""
_CONFIDENCE = 0.8


def byline(text: str, title: str) -> list[Reading]:
    """That ``title``'s work was written by whom ``text`` credits, when ``text`` is a credit
    line of a written work (:data:`_BYLINE`); [] otherwise, or without a title."""
    if not title:
        return []
    if found := _BYLINE.match(text.strip()):
        return [Reading(title, "written by", found["who"], _CONFIDENCE)]
    if found := _SET.match(text.strip()):
        return [Reading(title, "made by", found["who"], _CONFIDENCE)]
    return []
