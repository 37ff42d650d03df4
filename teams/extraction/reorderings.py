"""More shapes that state a relation out of plain order, restated as plain sentences.

A pseudo-cleft ("The one who designed X was Y") and "Y was responsible for the design of X"
say that Y designed X; a fronted clause of time or reason ("After Y built X in 1820, he
moved ...") and a fronted perfect participle ("Having founded X in 1880, Y went on ...") state
their deed as well as the main clause; a fact a document records ("It is recorded in the
parish book that Y founded X") is the clause after "that"; a source named after "According
to" is not part of what is said; an object put first ("The Lode mill Ada Reve designed in
1820; the Wick mill, Sam Orme.") is the object of its verb, and so is the first name of a
gapped clause after it; a second name for the subject between commas ("X, or Z, was built by
Y") is said of both. A cleft focusing a time or the doer ("It was in 1820 that Y built X", "It
was Y who built X"), "It fell to Y to design X", "X dates from 1820, when Y built it" and a
fronted "When she designed X, Y was ..." say that Y did the deed; a negative cleft says it only
of the doer its semicolon names ("It was not A who founded X; the founder was B").

Example:
    >>> reordered("The one who designed the Quernhow chapel was Ida Pellingham.")
    ['Ida Pellingham designed the Quernhow chapel.']
"""

from __future__ import annotations

import re
from collections.abc import Callable

from teams.language.verbs import IRREGULAR, deed_participle, lemma, past_tense

__all__ = ["EXTRAPOSED", "NAME", "PAST", "SHAPES", "not_but", "reordered"]

NAME = r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3}"
PAST = rf"(?:[a-z]+ed|{'|'.join(sorted(IRREGULAR, key=len, reverse=True))})"
"""A past form: "designed", "built"."""
_CLEFT = re.compile(
    r"^The\s+(?:one|person|man|woman|[a-z]+)\s+who\s+"
    rf"(?P<verb>{PAST})\s+(?P<thing>[^,;]+?)\s+(?:was|is)\s+(?P<agent>{NAME})\s*(?:[,.;]|$)"
)
_RESPONSIBLE = re.compile(
    rf"^(?P<agent>{NAME})\s+(?:was|is|were|are)\s+(?:(?:solely|chiefly|mainly|largely)\s+)?"
    r"responsible\s+for\s+the\s+(?P<deed>[a-z]+)\s+of\s+(?P<thing>[^,;]+?)\s*(?:[,.;]|$)"
)
_FRONTED = re.compile(
    r"^(?:After|Once|When|Before|Since|Because|Although|Though|As\s+soon\s+as)\s+"
    rf"(?P<agent>{NAME})\s+(?P<deed>(?:had\s+)?{PAST}\s+[^,;]+?),\s+(?P<main>[a-z].+)$"
)
"""A fronted clause of time or reason with its own subject and deed, then the main clause."""
_PERSONAL = re.compile(r"^(?:he|she|they)\b")
_HAVING = re.compile(
    rf"^Having\s+(?P<participle>[a-z]+)\s+(?P<thing>[^,;]+?),\s+(?P<agent>{NAME})\s+"
    r"(?P<main>[a-z].+)$"
)
_EXTRAPOSED = (
    r"It\s+(?:is|was|has\s+been|had\s+been)\s+(?:(?:well|also|now|firmly)\s+)?"
    r"(?:recorded|documented|known|established|certain|clear|confirmed|noted|a\s+fact)\b"
    r"[^,;]{0,60}?\s+that\s+"
)
EXTRAPOSED = re.compile(
    rf"{_EXTRAPOSED}|^It\s+(?:is|was)\s+(?:not\s+)?(?:{NAME}|(?:in|on|at|during|around|about"
    r"|before|after|by)\s+[^,;]+?)\s+(?:who|that)\s|^It\s+(?:fell|falls|was\s+left|was\s+up)\s+to\s"
)
"""An opening "It" that stands for the clause after "that", or is a cleft's ("It was Y who",
"It was in 1820 that") or an idiom's ("It fell to Y to"), not for a thing."""
_RECORDED = re.compile(rf"^{_EXTRAPOSED}(?P<clause>\w.+)$")
"""A fact a document states as recorded or known (not one reported as said or believed)."""
_ACCORDING = re.compile(
    r"^According\s+to\s+[^,]+?(?:,\s+(?:the|a|an|[a-z]+)\s+(?:(?!\b(?:is|are|was|were)\b)[^,])+?)?"
    r",\s+(?P<main>[a-z].+)$"
)
"""A source and its apposition before what it says: "According to Ann Lowe, the archivist,"."""
_TOPICALISED = re.compile(
    rf"^(?P<thing>The\s+(?:[A-Z][\w'’-]*\s+){{0,3}}[a-z]+)\s+(?P<agent>{NAME})\s+"
    rf"(?P<verb>{PAST})(?P<when>\s+(?:in|on|at|during|around|about|before|after)\s+[^,;]+?)?"
    r"\s*(?:;\s*(?P<second>.+?))?\s*[.]?$"
)
"""An object put before its subject and verb, a time phrase at most after them: "The Lode mill
Ada Reve designed in 1820"."""
_GAPPED_PAIR = re.compile(rf"^(?P<thing>(?:the|a|an)\s+[^,]+),\s+(?P<agent>{NAME})$")
"""A gapped clause of an object and a name: "the Wick mill, Sam Orme"."""
_OR_NAMED = re.compile(
    r"^(?P<first>(?:The\s+)?[A-Z][^,]*?),\s+or\s+(?P<second>(?:the\s+)?[A-Z][^,]*?),\s+"
    r"(?P<rest>[a-z].+)$"
)
_FOCUSED = re.compile(
    r"^It\s+(?:was|is)\s+(?P<focus>(?:in|on|at|during|around|about|before|after|by)\s+"
    rf"[^,;]+?)\s+that\s+(?P<clause>{NAME}\s+[a-z].+)$"
)
"""A cleft that focuses a time ("It was in 1820 that Y built X, ...")."""
_AGENT_CLEFT = re.compile(
    rf"^It\s+(?:was|is)\s+(?P<agent>{NAME})\s+(?:who|that)\s+(?P<rest>{PAST}\s.+)$"
)
"""A cleft that focuses the doer: "It was Y who built X"."""
_FELL_TO = re.compile(
    r"^It\s+(?:fell|falls|was\s+left|was\s+up|came)\s+to\s+(?:the\s+|an?\s+)?"
    rf"(?:[a-z]+\s+){{0,3}}(?P<agent>{NAME})\s+to\s+(?P<verb>[a-z]+)\s+(?P<rest>.+)$"
)
"""A deed given to its doer by an extraposed idiom: "It fell to Y to design X"."""
_DATES_WHEN = re.compile(
    r"^(?P<thing>[^,]+?)\s+(?:dates|dated)\s+(?:back\s+)?(?:from|to)\s+(?P<year>[^,;]+?),\s+"
    r"when\s+(?P<clause>.+)$"
)
"""A date a thing is from, its deed in a "when" clause after it ("X dates from 1820, when Y
built it")."""
_CATAPHORIC = re.compile(
    r"^(?:When|After|Once|Before|As\s+soon\s+as)\s+(?:she|he|they)\s+"
    rf"(?P<deed>(?:had\s+)?{PAST}\s+[^,;]+?),\s+(?P<agent>{NAME})\s+(?P<main>[a-z].+)$"
)
"""A fronted clause whose pronoun stands for the name after it: "When she designed X, Y was"."""
_IT = re.compile(r"\bit\b")
_TWO_DEEDS = re.compile(
    rf"^(?P<agent>{NAME})\s+(?P<first>{PAST}\s+(?:the|a|an|its|his|her|their)\s+[^,;]+?)\s+"
    rf"and\s+(?:then\s+|later\s+|also\s+)?(?P<second>{PAST}\s+(?:the|a|an|its|his|her|their)"
    r"\s+[^,;]+?)\s*[.]?$"
)
"""Two deeds of one subject joined by "and": "Y designed A and built B"."""
_NOT_BUT = re.compile(
    r"^It\s+(?:was|is)\s+not\s+(?!until\b|till\b|only\b|just\b|long\b)[^;]+?\s+(?:who|that)\s+"
    rf"(?P<deed>{PAST}\s+[^,;]+?)\s*(?:,[^;]*)?;\s*(?:the|its|their)\s+"
    r"[a-z]+(?:er|or|ect|ist|ess)\s+(?:was|is)\s+(?:[^;]*?\s)??(?P<agent>"
    rf"{NAME})\s*\.?$"
)
"""A negative cleft, then who did the deed after its semicolon ("It was not Y who founded X;
the founder was Z")."""


def _name(found: re.Match[str], group: str = "agent") -> str:
    """A name matched, without the full stop that may end the sentence after it."""
    return found[group].rstrip(".")


def _cleft(found: re.Match[str]) -> list[str]:
    return [f"{_name(found)} {found['verb']} {found['thing']}."]


def _responsible(found: re.Match[str]) -> list[str]:
    participle = deed_participle(found["deed"])
    return [f"{found['thing']} was {participle} by {_name(found)}."] if participle else []


def _fronted(found: re.Match[str]) -> list[str]:
    agent, main = found["agent"], found["main"]
    deed = re.sub(r"^had\s+", "", found["deed"])
    return [f"{agent} {deed}.", _PERSONAL.sub(agent, main, count=1)]


def _having(found: re.Match[str]) -> list[str]:
    participle = found["participle"]
    verb = past_tense(lemma(participle)) if participle in IRREGULAR else participle
    agent = found["agent"]
    return [f"{agent} {verb} {found['thing']}.", f"{agent} {found['main']}"]


def _recorded(found: re.Match[str]) -> list[str]:
    clause = found["clause"]
    return [clause[0].upper() + clause[1:]]


def _according(found: re.Match[str]) -> list[str]:
    main = found["main"]
    return [main[0].upper() + main[1:]]


def _topicalised(found: re.Match[str]) -> list[str]:
    thing = found["thing"]
    verb = found["verb"]
    said = [f"{_name(found)} {verb} {thing[0].lower()}{thing[1:]}{found['when'] or ''}."]
    second = _GAPPED_PAIR.match(found["second"] or "")
    if second is not None:  # "; the Wick mill, Sam Orme": Sam Orme designed the Wick mill
        said.append(f"{_name(second)} {verb} {second['thing']}.")
    return said


def _focused(found: re.Match[str]) -> list[str]:
    head, comma, tail = found["clause"].rstrip(".").partition(",")
    return [f"{head} {found['focus']}{comma}{tail}."]


def _agent_cleft(found: re.Match[str]) -> list[str]:
    return [f"{_name(found)} {found['rest']}"]


def _fell_to(found: re.Match[str]) -> list[str]:
    return [f"{_name(found)} {_past_of(found['verb'])} {found['rest']}"]


def _past_of(verb: str) -> str:
    """The past form of a base form, an irregular verb's after "re" too ("rebuild": "rebuilt")."""
    again = past_tense(verb[2:]) if verb.startswith("re") else ""
    return f"re{again}" if again in IRREGULAR else past_tense(verb)


def _dates_when(found: re.Match[str]) -> list[str]:
    thing = found["thing"]
    deed = _IT.sub(thing[0].lower() + thing[1:], found["clause"], count=1)
    return [f"{thing} dates from {found['year']}.", f"{deed[0].upper()}{deed[1:]}"]


def _cataphoric(found: re.Match[str]) -> list[str]:
    agent = _name(found)
    deed = re.sub(r"^had\s+", "", found["deed"])
    return [f"{agent} {deed}.", f"{agent} {found['main']}"]


def not_but(sentence: str) -> str:
    """What a negative cleft and the doer named after its semicolon state ("It was not Y who
    founded X; the founder was his sister, Z": Z founded X.), or ``sentence`` itself."""
    found = _NOT_BUT.match(sentence)
    return f"{_name(found)} {found['deed']}." if found else sentence


def _two_deeds(found: re.Match[str]) -> list[str]:
    agent = _name(found)
    return [f"{agent} {found['first']}.", f"{agent} {found['second']}."]


def _or_named(found: re.Match[str]) -> list[str]:
    rest = found["rest"]
    return [f"{found['first']} {rest}", f"{found['second']} {rest}"]


SHAPES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], list[str]]], ...] = (
    (_CLEFT, _cleft),
    (_FOCUSED, _focused),
    (_AGENT_CLEFT, _agent_cleft),
    (_FELL_TO, _fell_to),
    (_DATES_WHEN, _dates_when),
    (_CATAPHORIC, _cataphoric),
    (_TWO_DEEDS, _two_deeds),
    (_RESPONSIBLE, _responsible),
    (_FRONTED, _fronted),
    (_HAVING, _having),
    (_RECORDED, _recorded),
    (_ACCORDING, _according),
    (_TOPICALISED, _topicalised),
    (_OR_NAMED, _or_named),
)
"""Each shape and the plain sentences it states."""


def reordered(sentence: str) -> list[str]:
    """The plain sentences ``sentence`` states in one of the shapes above; [] otherwise."""
    for pattern, plain in SHAPES:
        if (found := pattern.search(sentence)) is not None:
            return plain(found)
    return []
