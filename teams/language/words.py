"""Words of a text: the stopwords, its content words, a plural made singular, a crude stem."""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["STOPWORDS", "joined_codes", "keywords", "singular", "stem"]

STOPWORDS = frozenset(
    """a am an and are as at be been being but by can could do does did for from how i if in into
    is it its me my of on or our so than that the their them then there these they this those to
    was we were what when where which while who whom why will with would you your about also
    should shall may might must has have had not no yes any all each other such more most
    some very just""".split()
)

_WORD = re.compile(r"[A-Za-z][A-Za-z_\-']*(?=\d+\.\d)|[A-Za-z][A-Za-z0-9_\-']*|\d+(?:\.\d+)?")
"""A word (a name glued to its version is two: "PyPy3.10" is "pypy" and "3.10"), or a figure."""


def keywords(text: str) -> list[str]:
    """Content words of ``text``, lower-cased, in order, without stopwords or repeats."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word not in STOPWORDS and len(word) > 1:
            seen.setdefault(word, None)
    return list(seen)


_CODED = re.compile(r"[a-z]+-\d+")
"""A code of letters and a number written with a hyphen: "utf-8", "ipv-6"."""


def joined_codes(words: list[str]) -> list[str]:
    """The codes among ``words`` written without their hyphen ("utf-8" as "utf8"): the same
    word, as a text may spell it."""
    return [word.replace("-", "") for word in words if _CODED.fullmatch(word)]


def singular(noun: str) -> str:
    """A regular plural noun made singular: ``arches``, ``entries``, ``databases``, ``books``;
    ``class`` and short words stay."""
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith(("sses", "shes", "ches", "xes", "zes")):
        return noun[:-2]
    if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3:
        return noun[:-1]
    return noun


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stem, enough to match ``specify``/``specifies``, ``connection``/``connections``,
    a verb in "-e" with its "-ed" and "-ing" forms: ``disable``/``disabled``/``disabling``,
    and a doer with its deed: ``planner``/``planned``/``plan``, ``reviewers``/``review``;
    the plural of a noun in "-ing" as the noun: ``settings``/``setting``/``set``; a British
    spelling as the American one: ``behaviour``/``behavior``, ``organise``/``organize``,
    ``analyse``/``analyze``, ``centre``/``center``, ``catalogue``/``catalog``; an adjective in
    "-able" as its verb: ``retryable``/``retrying``."""
    word = _AMERICAN.sub(_american, word)
    if word.endswith("ings"):
        word = word[:-1]
    for suffix in _SUFFIXES:
        if suffix == "ly" and word.endswith("ply"):  # "supply", "apply": no adverbs
            continue
        if suffix == "es" and not word.endswith(_SIBILANT_PLURALS):  # "notes": "s" only
            continue
        if suffix == "s" and word.endswith("ss"):  # "process", "class"
            break
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    else:
        if able := _ABLE.match(word):  # "retryable" is "retry", "forgettable" "forget"
            return _undoubled(able["root"])
        return _without_e(_undoer(word) if len(word) >= _AGENT_LENGTH else word)
    return _without_e(_undoubled(_undoer(word) if len(word) >= _AGENT_LENGTH else word))


_AMERICAN = re.compile(
    r"^(?P<base>[a-z]{2,})(?:(?P<our>our)(?P<after>s|ed|ing|ite|ites|able|ful|less)?"
    r"|(?P<ise>[iy])s(?P<ize>e|es|ed|ing|ation|ations|er|ers|ely)"
    r"|(?P<tre>t)re(?P<plural>s)?|(?P<ogue>og)ue(?P<ogues>s)?)$"
    r"|^(?P<cense>lic|def|off|pret)ence(?P<censes>s|d)?$"
)
"""A British spelling: "-our" (``behaviour``), "-ise"/"-yse" (``organisation``,
``analysed``), "-tre" (``centres``), "-ogue" (``catalogue``), "-ence" (``licence``)."""


def _american(found: re.Match[str]) -> str:
    base = found["base"]
    if found["cense"]:
        return f"{found['cense']}ense{found['censes'] or ''}"
    if found["our"]:
        return f"{base}or{found['after'] or ''}"
    if found["ise"]:
        return f"{base}{found['ise']}z{found['ize']}" if len(base) >= 3 else found[0]
    if found["tre"]:
        return f"{base}ter{found['plural'] or ''}"
    return f"{base}og{found['ogues'] or ''}"


_ABLE = re.compile(r"(?P<root>[a-z]{5,})[ai]ble$")
"""An adjective of what can be done, on a root long enough to stand alone ("retryable",
"configurable"; not "disable", "capable", "portable")."""
_SUFFIXES = ("ies", "ied", "ing", "es", "ed", "s", "ly")
_AGENT_LENGTH = 6
_SIBILANT_PLURALS = ("sses", "shes", "ches", "xes", "zes")
_DOUBLED = re.compile(r"([bdgmnprt])\1$")


def _undoer(word: str) -> str:
    """``planner`` -> ``plan``: an agent noun's "-er" cut (and its doubled consonant)."""
    return _undoubled(word[:-2]) if word.endswith("er") else word


def _undoubled(word: str) -> str:
    return word[:-1] if _DOUBLED.search(word) else word


def _without_e(word: str) -> str:
    """``disable`` -> ``disabl``, as ``disabled`` and ``disabling`` stem; a short word stays
    (``use``, whose "-ed" form is too short to be cut)."""
    return word[:-1] if len(word) > _SHORT and word.endswith("e") else word


_SHORT = 3
