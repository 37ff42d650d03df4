"""A deed done by someone the sentence does not open with: "X commissioned Y to build Z" says
that Y built Z, "X lost the competition to design Z to Y" that Y designed Z, and "With Y as
architect, the council built Z" that Y was Z's architect, and "As the architect of Z, Y
insisted on ..." that Y was Z's architect too.

The deed is read as a sentence of its own, quoted from the words that state it ("Peter Hale
to build the Arden baths"); the opening party's own relation ("X commissioned Y", "X lost the
competition") is quoted without the deed, so that it never answers who did it.

Example:
    >>> deed = delegated_deed("Lord Ashby commissioned Peter Hale to build the baths.")
    >>> deed.statement, deed.quoted
    ('Peter Hale built the baths', 'Peter Hale to build the baths')
    >>> deed.own
    'Lord Ashby commissioned Peter Hale'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from teams.language.verbs import past_tense

__all__ = ["Delegated", "HeldRole", "Role", "delegated_deed", "fronted_role", "held_role", "making"]

_PARTY = r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3}"
_ASKING = r"commissioned|hired|engaged|employed|appointed|contracted|chose|paid"
_COMMISSION = re.compile(
    rf"\b(?:{_ASKING})\s+(?:the\s+[a-z]+\s+)?(?P<doer>{_PARTY})\s+to\s+(?P<verb>[a-z]+)\s+"
    r"(?P<thing>[^;]+?)\s*[.!?]?$"
)
"""Who was asked to do a deed: "commissioned (the architect) Peter Hale to build the baths"."""
_CONTEST = r"competition|contest|commission|tender|bid|race"
_LOST = re.compile(
    rf"\blost\s+(?P<contest>(?:the|a)\s+(?:{_CONTEST}))\s+to\s+(?P<verb>[a-z]+)\s+(?P<thing>[^;]+?)\s+"
    rf"to\s+(?P<doer>(?:the\s+[a-z]+\s+)?{_PARTY})(?P<after>[^;]*?)\s*[.!?]?$"
)
"""A contest for a deed lost to its winner: "lost the competition to design X to Y"."""
_WON = re.compile(
    rf"^(?P<doer>{_PARTY})\s+won\s+(?:the|a)\s+(?:{_CONTEST})\s+to\s+(?P<verb>[a-z]+)\s+"
    r"(?P<thing>[^;]+?)\s*[.!?]?$"
)
"""A contest for a deed won: "Y won the competition to design X"."""


@dataclass(frozen=True)
class Delegated:
    """A deed one party did for or against another: the deed as a sentence, the words of the
    sentence that state it, and the words of the other party's own relation."""

    statement: str
    quoted: str
    own: str


def _done(doer: str, verb: str, thing: str) -> str:
    return f"{doer} {past_tense(verb)} {thing}"


def delegated_deed(sentence: str) -> Delegated | None:
    """The deed ``sentence`` states of a party it names after its verb, or None."""
    found = _COMMISSION.search(sentence)
    if found and found["verb"].isalpha():
        quoted = sentence[found.start("doer") : found.end("thing")]
        own = sentence[: found.end("doer")]
        return Delegated(_done(found["doer"], found["verb"], found["thing"]), quoted, own)
    found = _LOST.search(sentence)
    if found:
        thing = f"{found['thing']}{found['after']}"
        quoted = sentence[found.start("contest") : found.end("after")].strip()
        own = sentence[: found.end("contest")]
        return Delegated(_done(found["doer"], found["verb"], thing), quoted, own)
    found = _WON.search(sentence)
    if found:
        statement = _done(found["doer"], found["verb"], found["thing"])
        return Delegated(statement, sentence[: found.end("thing")], "")
    return None


_FRONTED_ROLE = re.compile(
    rf"^With\s+(?P<name>{_PARTY})\s+as\s+(?:(?:the|its|their)\s+)?"
    r"(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*)?),\s+(?P<rest>\S.*)$"
)
"""A role given in a phrase before the main clause: "With Jonah Bell as architect, ..."."""
_MAKING = frozenset(
    "built rebuilt designed constructed erected made founded restored raised planned laid "
    "completed".split()
)
"""Verbs of making: a role given before them is a role in the making of their object."""


@dataclass(frozen=True)
class Role:
    """A party's role named before the main clause, and that clause."""

    name: str
    role: str
    clause: str


def fronted_role(sentence: str) -> Role | None:
    """The role a fronted "With X as <role>," gives, and the main clause after it, or None."""
    found = _FRONTED_ROLE.match(sentence)
    return Role(found["name"], found["role"], found["rest"]) if found else None


_AS_ROLE = re.compile(
    r"^As\s+(?:the|its|their)\s+(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+of\s+"
    r"(?P<thing>(?:the\s+)?[A-Z][^,;]*?),\s+"
    r"(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){1,3})\s+(?P<verb>[a-z][\w-]*)\b"
)
"""A role of a thing named in a phrase before the main clause, whose subject holds it: "As the
architect of the Pellow town hall, Nora Bix insisted on ..."."""


@dataclass(frozen=True)
class HeldRole:
    """A role a fronted "As the <role> of X," gives the main clause's subject: X, the role,
    the holder, the words that say so as quoted, and the main clause."""

    thing: str
    role: str
    name: str
    quoted: str
    clause: str


def held_role(sentence: str) -> HeldRole | None:
    """The role a fronted "As the <role> of X, Y ..." says Y holds, or None."""
    found = _AS_ROLE.match(sentence)
    if found is None:
        return None
    thing = re.sub(r"^the\s+", "", found["thing"])
    quoted = sentence[: found.end("name")]
    clause = sentence[found.start("name") :]
    return HeldRole(thing, found["role"], found["name"], quoted, clause)


def making(predicate: str) -> bool:
    """Whether ``predicate`` is a verb of making ("built", "designed by" is not: its object is
    the maker)."""
    return predicate in _MAKING
