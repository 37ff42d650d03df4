"""Deeds stated indirectly, restated as plain sentences.

A causative says who had a thing made and, with "by", who made it ("Lord Ranby had the mill
built by Abel Stour": Lord Ranby commissioned the mill; the mill was built by Abel Stour); a
source that "credits Y with building X" says that Y built X (the source did nothing), and so
does one that "thanked Y for building it" (or praised, commended, congratulated), a witness
who "saw Y painting the gull", and a work "from the pen of Y" (brush, hand, chisel); a clause
set off by dashes inside another ("The reading room — Martha Cole founded it in 1874 — still
lends books") states its deed of the subject it interrupts; a thing that "had a single
architect: Y" had Y as its architect; "The lychgate Y built for the church has lasted" says
that Y built the lychgate. :func:`teams.extraction.restatements.restated` tries
these shapes after the others.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from teams.extraction.reorderings import NAME, PAST
from teams.language.verbs import IRREGULAR, past_tense

__all__ = ["INDIRECT_SHAPES", "gerund_past", "interrupted_by_deed"]

_THING = rf"(?:[Tt]he|[Aa]n?|[Ii]ts|[Hh]is|[Hh]er|[Tt]heir)\s+[^,;—–]+?|{NAME}"
_CAUSATIVE = re.compile(
    r"^(?:(?:In|By)\s+(?:1\d{3}|20\d{2}),?\s+)?"
    rf"(?P<who>{NAME})\s+had\s+(?!been\b)(?P<thing>{_THING})\s+(?P<verb>{PAST})\b"
    r"(?P<rest>[^;]*?)\s*[.;]?$"
)
"""Who had a thing made, and how ("had the mill built by Abel Stour", "had the boathouse built
beside the lake")."""
_CREDITS = re.compile(
    rf"\bcredit(?:s|ed)?\s+(?P<agent>{NAME})\s+with\s+(?P<deed>[a-z]+)ing\s+"
    rf"(?P<thing>{_THING})\s*[.;]?$"
)
"""A source crediting a doer with a deed: "credits Walter Bewley with building the dam"."""
_THANKED = re.compile(
    r"\b(?:thank(?:s|ed)?|prais(?:es|ed)|commend(?:s|ed)|congratulat(?:es|ed))\s+"
    rf"(?P<agent>{NAME})\s+(?:for|on)\s+(?P<deed>[a-z]{{2,}})ing\s+"
    r"(?P<thing>it|them|(?:the|a|an|his|her|their)(?:\s+[a-z][\w'’-]*){1,4}?|"
    rf"{NAME})(?=\s+(?:over|in|during|and|with|at|on|last|this|before|after)\b|\s*[,.;]|\s*$)"
)
"""Thanks or praise for a deed, which says the one thanked did it: "FL thanked Duncan Kerr for
building it over the winter" (Duncan Kerr built it)."""
_FROM_THE_PEN = re.compile(
    r"(?P<thing>\*[^*]+\*|_[^_]+_|\"[^\"]+\"|“[^”]+”|[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*),\s+"
    r"(?:an?|the)\s+(?:[a-z-]+\s+){0,3}?from\s+the\s+(?P<tool>pen|brush|hand|chisel)\s+of\s+"
    rf"(?P<agent>{NAME})"
)
"""A work said to come "from the pen of" (brush, hand, chisel) its maker: "*Slack Water*, a new
quartet from the pen of Ysolde Penhaligon" (Ysolde Penhaligon wrote Slack Water)."""
_SAW_DOING = re.compile(
    r"\b(?:saw|watched|noticed|observed|spotted|heard)\s+"
    r"(?:the\s+(?:man|woman|person|boy|girl|youth)\s+(?:(?:I|we)\s+now\s+know\s+to\s+be|"
    r"later\s+identified\s+as|known\s+as)\s+)?"
    rf"(?P<agent>{NAME})\s+(?P<deed>[a-z]{{2,}})ing\s+"
    r"(?P<thing>(?:the|a|an|his|her|their)(?:\s+[a-z][\w'’-]*){1,4}?|"
    rf"{NAME})(?=\s+(?:on|in|at|with|over|from|and|while|when|by)\b|\s*[,.;]|\s*$)"
)
"""A witness who saw someone do a deed: "I saw the man I now know to be Jory Carlyon painting
the gull on the harbour wall" (Jory Carlyon painted the gull)."""
_MAKERS_TOOLS = {"pen": "wrote", "brush": "painted", "hand": "made", "chisel": "carved"}
_TITLE_MARKS = '*_"“”'
"""What a title is set off with ("*Slack Water*")."""
_DASHED_CLAUSE = re.compile(
    rf"^(?P<subject>(?:The|A|An)\s+[^—–]+?|{NAME})\s+(?P<dash>[—–]|--)\s+"
    rf"(?P<clause>{NAME}\s+{PAST}\s+it\b[^—–]*?)\s+(?P=dash)\s+(?P<main>[a-z].+)$"
)
"""A clause between dashes doing its deed to the subject it interrupts ("The reading room —
Martha Cole founded it in 1874 — still lends books")."""
_SOLE_ROLE = re.compile(
    rf"^(?P<thing>{_THING})\s+(?:had|has)\s+(?:a\s+single|a\s+sole|one|only\s+one|just\s+one)\s+"
    rf"(?P<role>[a-z]+):\s+(?P<agent>{NAME})\s*\.?$"
)
"""One holder of a role named after a colon: "The chapel had a single architect: Edith
Calvert"."""


_RELATIVE = r"(?:who|whom|whose|which|that|where|when)"
_OBJECT_RELATIVE = re.compile(
    rf"^(?P<thing>(?:The|A|An)(?:\s+(?!{_RELATIVE}\b)[a-z][\w'’-]*){{1,4}}?)\s+(?:that\s+|which\s+)?"
    rf"(?P<who>{NAME})\s+(?P<verb>{PAST})\b(?P<rest>[^,;]*?)\s+(?:has|have|had|is|are|was|were|"
    r"still|stands?|stood|remains?|remained)\b"
)
"""A thing named with who did a deed to it, before what the sentence says of it ("The oak
lychgate Mrs Tregaskis built for the churchyard has come through its first storms")."""


def _capital(text: str) -> str:
    return text[0].upper() + text[1:]


def _causative(found: re.Match[str]) -> list[str]:
    thing = found["thing"]
    said = [f"{found['who']} commissioned {thing[0].lower()}{thing[1:]}."]
    return [*said, f"{_capital(thing)} was {found['verb']}{found['rest']}."]


_BASES = frozenset(IRREGULAR.values())
"""The base forms of the irregular verbs ("make", "build")."""


def gerund_past(stem: str) -> str:
    """The past form of the verb whose gerund is ``stem`` + "ing" ("build": "built", "mak":
    "made", "design": "designed")."""
    base = f"{stem}e" if f"{stem}e" in _BASES else stem
    return past_tense(base)


def _credits(found: re.Match[str]) -> list[str]:
    return [f"{found['agent']} {gerund_past(found['deed'])} {found['thing']}."]


def _from_the_pen(found: re.Match[str]) -> list[str]:
    work = found["thing"].strip(_TITLE_MARKS)
    return [f"{found['agent']} {_MAKERS_TOOLS[found['tool']]} {work}."]


def _deed_done(found: re.Match[str]) -> list[str]:
    """The one thanked (or seen) did the deed: "Duncan Kerr built it"."""
    return [f"{found['agent']} {gerund_past(found['deed'])} {found['thing']}."]


def _dashed_clause(found: re.Match[str]) -> list[str]:
    subject = found["subject"]
    article = subject.split()[0] in ("The", "A", "An")
    named = f"{subject[0].lower()}{subject[1:]}" if article else subject
    clause = re.sub(r"\bit\b", named, found["clause"], count=1)
    return [f"{clause}.", f"{subject} {found['main']}"]


def _object_relative(found: re.Match[str]) -> list[str]:
    thing = found["thing"]
    return [f"{found['who']} {found['verb']} {thing[0].lower()}{thing[1:]}{found['rest']}."]


def _sole_role(found: re.Match[str]) -> list[str]:
    return [f"{found['thing']}'s {found['role']} was {found['agent']}."]


INDIRECT_SHAPES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], list[str]]], ...] = (
    (_CAUSATIVE, _causative),
    (_THANKED, _deed_done),
    (_FROM_THE_PEN, _from_the_pen),
    (_SAW_DOING, _deed_done),
    (_CREDITS, _credits),
    (_DASHED_CLAUSE, _dashed_clause),
    (_SOLE_ROLE, _sole_role),
    (_OBJECT_RELATIVE, _object_relative),
)
"""Each shape and the plain sentences it states."""


def interrupted_by_deed(sentence: str) -> bool:
    """Whether a clause between dashes does its deed to the subject it interrupts (its "it"
    is that subject, not a thing before the sentence)."""
    return _DASHED_CLAUSE.search(sentence) is not None
