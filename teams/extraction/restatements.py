"""Sentence shapes that state a relation out of plain order, restated as plain sentences.

"Like X, Y was designed by Z" says that X too was designed by Z; "Unlike X, which P designed, Y
was designed by Q" says that P designed X and Q designed Y, each of its own thing; "To design
Y, the council hired X" says that X designed Y; "1820 saw X built by Y" that Y built X in 1820;
"Credit for the design of X goes to Y" and "X, a design of Y's, opened ..." that Y designed X;
"X, by whom Y was designed, died ..." that X designed Y and died. "would go on to build" and
"went on to build" are a deed done ("built"), and "got built by" a passive ("was built by"). A
concessive clause after a comma (", though its ironwork came from Z") is a statement of its
own, not a second object. An opening clause that says a relation is not known ("Who built X is
not recorded; ...") is left out: the rest is another relation, never an answer to it.
Two passives sharing one agent ("X was designed, and Y was built, by Z") are two sentences;
"building X, which was the work of Z" (what a denial leaves) says that Z built X; kin written
with one surname ("the brothers Amos and Seth Lowe") are named in full. "X was built to Y's
plans by Z" says that Y designed X, quoted without its builder (:func:`to_plans`).

Example:
    >>> restated("1820 saw the Ostry lock built by Daniel Freer.")
    ['the Ostry lock was built by Daniel Freer in 1820.']
"""

from __future__ import annotations

import re
from collections.abc import Callable

from teams.extraction.indirect_deeds import INDIRECT_SHAPES, gerund_past
from teams.extraction.patterns import PARTICIPLE
from teams.extraction.reorderings import SHAPES
from teams.language.verbs import deed_participle, past_tense

__all__ = ["restated", "to_plans", "with_deed_done", "with_surnames_shared", "without_unknown"]

_NAME = r"[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3}"
_LIKE = re.compile(
    rf"^Like\s+(?P<other>[^,]+),\s+(?P<main>[^,]+?\s+(?:was|were)\s+{PARTICIPLE}\s+by\s+.+)$"
)
_UNLIKE = re.compile(
    r"^Unlike\s+(?P<other>[^,]+?)(?:,\s+(?:which|who|that)\s+(?P<said>[^,]+))?,\s+(?P<main>.+)$"
)
_HIRED = re.compile(
    r"^To\s+(?P<verb>[a-z]+)\s+(?P<thing>[^,]+),\s+[^,]+?\s+"
    r"(?:hired|engaged|employed|appointed|chose|retained|brought\s+in)\s+"
    rf"(?P<agent>{_NAME})\b"
)
_YEAR_SAW = re.compile(
    r"^(?:The\s+year\s+)?(?P<year>1\d{3}|20\d{2})\s+saw\s+(?P<thing>.+?)\s+"
    rf"(?P<participle>{PARTICIPLE})\s+by\s+(?P<agent>{_NAME})"
)
_CREDIT = re.compile(
    r"\b(?:[Cc]redit)\s+for\s+the\s+(?P<deed>[a-z]+)\s+of\s+(?P<thing>.+?)\s+"
    rf"(?:goes|went|belongs|belonged|is\s+due|was\s+due)\s+to\s+(?P<agent>{_NAME})"
)
_OF_WHOSE = re.compile(
    r"^(?P<thing>[^,]+),\s+an?\s+(?:\w+\s+)?(?P<deed>[a-z]+)\s+of\s+"
    rf"(?P<agent>{_NAME})(?:'s|’s),\s+(?P<rest>.+)$"
)
_BY_WHOM = re.compile(
    rf"^(?P<agent>{_NAME}),\s+by\s+whom\s+(?P<thing>[^,]+?)\s+(?:was|were)\s+"
    rf"(?P<participle>{PARTICIPLE}),\s+(?P<rest>.+)$"
)
_CONCESSIVE = re.compile(
    r"^(?P<main>[^,]+\s[^,]+),\s+(?:even\s+)?(?:though|although)\s+(?P<other>\w.+)$"
)
"""A main clause and a concessive clause after its comma ("X built Y, though its ironwork came
from Z"): two statements, neither a list."""
_UNKNOWN = re.compile(
    r"^(?:Who|Whom|By\s+whom|When|Where|How)\s+[^;:]+?\s+(?:is|was|are|were|remains?)\s+"
    r"(?:not\s+(?:recorded|known|certain)|unknown|unrecorded|uncertain|lost|a\s+mystery)"
    r"\s*[;:,]\s*(?=[A-Z])"
)
"""A clause standing as the subject that says a relation is not known ("Who built X is not
recorded;"), before the rest of its sentence."""
_GO_ON = re.compile(r"\b(?:would\s+go|went)\s+on\s+to\s+(?P<verb>[a-z]+)\b")
_GOT = re.compile(rf"\b(?P<got>got|gets|get)\s+(?={PARTICIPLE}\s+(?:by|in|on|at)\b)")
"""A passive with "get": "got built by", "gets repaired in"."""
_AS_BE = {"got": "was ", "gets": "is ", "get": "are "}
_AT_HANDS = re.compile(
    rf"(?P<passive>\b(?:was|were|is|are|been)\s+{PARTICIPLE}\b[^,;]*?)\s+at\s+the\s+hands\s+of\b"
)
"""A passive's agent after "at the hands of": "was rebuilt in 1866 at the hands of Y"."""
_KIN_PAIR = re.compile(
    r"\b(?:[Tt]he\s+)?(?:brothers|sisters|twins|cousins|siblings|partners)\s+"
    r"(?P<first>[A-Z][a-z]+)\s+and\s+(?P<second>[A-Z][a-z]+)\s+(?P<surname>[A-Z][\w'’-]+)\b"
)
"""Kin named by two given names and the surname they share: "the brothers Amos and Seth Lowe"."""
_RAISED = re.compile(
    rf"^(?P<first>[^,]+?\s+(?:was|were)\s+{PARTICIPLE}),\s+and\s+"
    rf"(?P<second>[^,]+?\s+(?:was|were)\s+{PARTICIPLE}),\s+(?P<by>by\s+.+)$"
)
"""Two passives sharing the agent after them: "X was designed, and Y was built, by Z"."""
_WORK_OF = re.compile(
    r"^(?P<deed>[a-z]+ing)\s+(?P<thing>[^,]+),\s+which\s+(?:was|is)\s+(?:[a-z]+\s+)?"
    r"(?:the\s+)?work\s+of\s+(?P<agent>.+)$"
)
"""A deed whose doer a denial left out, and the doer after "which was the work of" ("building
X, which was the work of Z")."""


_TO_PLANS = re.compile(
    rf"^(?P<thing>[^,;]+?)\s+(?P<be>was|were|is|are)\s+{PARTICIPLE}\b[^;]*?"
    rf"(?P<phrase>\s+(?:to|from|after)\s+(?:(?P<owner>{_NAME})(?:'s|’s)\s+"
    rf"(?:plans|designs?|drawings)|the\s+(?:plans|designs?|drawings)\s+of\s+(?P<of>{_NAME})))"
    r"(?=[\s,.;]|$)"
)
"""A passive whose thing was made "to Y's plans" (or "to the designs of Y"): Y designed it,
whoever its "by" names."""


def to_plans(sentence: str) -> tuple[str, str, str] | None:
    """For a thing made "to Y's plans": the sentence without that phrase, the sentence "X was
    designed by Y.", and the words that say so as quoted (the sentence up to the phrase's end,
    not the builder after it); None otherwise."""
    found = _TO_PLANS.match(sentence)
    if found is None:
        return None
    rest = sentence[: found.start("phrase")] + sentence[found.end("phrase") :]
    designer = (found["owner"] or found["of"]).rstrip(".")
    past = "were" if found["be"] in ("were", "are") else "was"
    return rest, f"{found['thing']} {past} designed by {designer}.", sentence[: found.end()]


def _agent(found: re.Match[str]) -> str:
    """The agent's name, without the full stop that may end the sentence after it."""
    return found["agent"].rstrip(".")


def _like(found: re.Match[str]) -> list[str]:
    main = found["main"]
    predicate = re.split(r"\s+(?:was|were)\s+", main, maxsplit=1)[1]
    return [main, f"{found['other']} was {predicate}"]


def _unlike(found: re.Match[str]) -> list[str]:
    said = f"{found['said']} {found['other']}." if found["said"] else ""
    return [found["main"], *([said] if said else [])]


def _concessive(found: re.Match[str]) -> list[str]:
    return [f"{found['main']}.", found["other"]]


def _hired(found: re.Match[str]) -> list[str]:
    return [f"{_agent(found)} {past_tense(found['verb'])} {found['thing']}."]


def _year_saw(found: re.Match[str]) -> list[str]:
    passive = f"{found['thing']} was {found['participle']} by {_agent(found)}"
    return [f"{passive} in {found['year']}."]


def _credit(found: re.Match[str]) -> list[str]:
    participle = deed_participle(found["deed"])
    return [f"{found['thing']} was {participle} by {_agent(found)}."] if participle else []


def _of_whose(found: re.Match[str]) -> list[str]:
    participle = deed_participle(found["deed"])
    if not participle:
        return []
    thing = found["thing"]
    return [f"{thing} {found['rest']}", f"{thing} was {participle} by {found['agent']}."]


def _by_whom(found: re.Match[str]) -> list[str]:
    agent = found["agent"]
    return [f"{agent} {found['rest']}", f"{found['thing']} was {found['participle']} by {agent}."]


def _raised(found: re.Match[str]) -> list[str]:
    return [f"{found['first']} {found['by']}", f"{found['second']} {found['by']}"]


def _work_of(found: re.Match[str]) -> list[str]:
    participle = deed_participle(found["deed"])
    return [f"{found['thing']} was {participle} by {found['agent']}"] if participle else []


_SHAPES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], list[str]]], ...] = (
    (_LIKE, _like),
    (_UNLIKE, _unlike),
    (_HIRED, _hired),
    (_YEAR_SAW, _year_saw),
    (_CREDIT, _credit),
    (_OF_WHOSE, _of_whose),
    (_BY_WHOM, _by_whom),
    (_CONCESSIVE, _concessive),
    (_RAISED, _raised),
    (_WORK_OF, _work_of),
)


def restated(sentence: str) -> list[str]:
    """The plain sentences ``sentence`` states in one of the shapes above, or of
    :mod:`teams.extraction.reorderings`; [] otherwise."""
    for pattern, plain in (*_SHAPES, *SHAPES, *INDIRECT_SHAPES):
        if (found := pattern.search(sentence)) is not None:
            return plain(found)
    return []


def without_unknown(sentence: str) -> str:
    """``sentence`` without an opening clause that says who did a deed is not known, so that
    the rest is read and quoted alone; ``sentence`` itself otherwise."""
    return _UNKNOWN.sub("", sentence, count=1)


def with_surnames_shared(sentence: str) -> str:
    """``sentence`` with kin of one surname written once ("the brothers Amos and Seth Lowe")
    named in full ("Amos Lowe and Seth Lowe")."""
    return _KIN_PAIR.sub(
        lambda found: (
            f"{found['first']} {found['surname']} and {found['second']} {found['surname']}"
        ),
        sentence,
    )


def with_deed_done(sentence: str) -> str:
    """``sentence`` with "would go on to build" or "went on to build" as "built", a passive
    with "get" as one with "be" ("got built by": "was built by"), and its agent after "at the
    hands of" as after "by", "drew (up) the plans for X" as "designed X", "had finished
    building X" as "built X", and a clause someone reported in a record as said alone ("The
    clerk reported that ...")."""
    sentence = _AT_HANDS.sub(lambda found: f"{found['passive']} by", sentence)
    sentence = _GOT.sub(lambda found: _AS_BE[found["got"]], sentence)
    sentence = _DREW_PLANS.sub("designed", sentence)
    sentence = _FINISHED.sub(lambda found: gerund_past(found["stem"]), _reported(sentence))
    return _GO_ON.sub(lambda found: past_tense(found["verb"]), sentence)


_FINISHED = re.compile(r"\b(?:had\s+)?(?:finished|completed)\s+(?P<stem>[a-z]{2,}?)ing\b")
"""Finishing a deed is doing it: "had finished building the shelter" built it."""
_REPORTED = re.compile(
    r"^(?:(?:The|A|An|Our|His|Her)\s+)?[\w'’ -]{1,40}?\s+(?:reported|confirmed|noted|"
    r"announced|recorded|explained)\s+(?:to\s+[\w ]{1,30}?\s+)?that\s+(?P<said>[A-Z][^;]*?)"
    r"(?:,?\s+and\s+that\s+.*)?$"
)
"""A record that someone reported what was done ("The clerk reported that Y had finished
building X and that his invoice had been paid"): the first thing reported, as a sentence."""


def _reported(sentence: str) -> str:
    """What a reported clause says, alone (see :data:`_REPORTED`); ``sentence`` otherwise."""
    found = _REPORTED.match(sentence)
    return f"{found['said'].rstrip('.')}." if found else sentence


_DREW_PLANS = re.compile(
    r"\b(?:drew|draws|had\s+drawn)\s+(?:up\s+)?(?:the\s+|its\s+)?(?:plans?|designs?|drawings?)"
    r"\s+(?:for|of)\b",
    re.IGNORECASE,
)
"""Drawing up the plans of a thing is designing it: "drew up the plans for the tower"."""
