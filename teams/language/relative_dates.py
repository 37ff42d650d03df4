"""Relative dates resolved against their anchor: "built in 1950 and extended two years later"
reads "extended two years later (1952)".

The anchor is the last year stated before the phrase in the same paragraph (a resolved phrase
anchors the next one). Read: "N years later / after / afterwards / on / earlier / before",
"a decade later", "the following / next / previous / preceding year", "the year after /
before". A phrase with no year before it, or followed by a noun ("two years after the war"),
is left as written. Lines keep their breaks, so ``path:line`` citations do not move.

An age reached in a year ("turned 40 in 2020", "celebrated her 60th birthday in 1999") gives
the year of birth, in brackets after it.

Example:
    >>> resolve_relative_dates("The hall opened in 1931. Four years later, it was re-roofed.")
    'The hall opened in 1931. Four years later (1935), it was re-roofed.'
    >>> resolve_relative_dates("The potter turned 40 in 2020.")
    'The potter turned 40 in 2020 (born in 1980).'
"""

from __future__ import annotations

import re

from teams.language._numbers import WORD_NUMBERS

__all__ = ["resolve_relative_dates"]

_COUNT = r"(?P<count>\d{1,3}|a|an|one|" + "|".join(sorted(WORD_NUMBERS, key=len, reverse=True))
_COUNT += r")"
_PHRASE = re.compile(
    rf"\b(?:{_COUNT}\s+(?P<unit>years?|decades?)\s+(?P<way>later|afterwards|after|on|earlier|"
    r"before|previously)|the\s+(?P<near>following|next|previous|preceding)\s+year|"
    r"the\s+year\s+(?P<side>after|before))\b(?!\s*\(\d{4}\))",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_OPEN_ENDED = re.compile(r"\s*(?:the|a|an|his|her|its|their|[A-Za-z]+ing)\b", re.IGNORECASE)
_LATER = frozenset("later afterwards after on following next".split())


def resolve_relative_dates(text: str) -> str:
    """``text`` with each relative date followed by the year it names, in brackets, and an age
    reached in a year followed by the year of birth it gives ("turned 40 in 2020 (born in
    1980)")."""
    paragraphs = re.split(r"(\n\s*\n)", text)
    return _AGE_REACHED.sub(_born, "".join(_resolved(part) for part in paragraphs))


_AGE_REACHED = re.compile(
    r"\b(?:turned|turns|reached\s+the\s+age\s+of|celebrated\s+(?:his|her|their)\s+)"
    r"\s*(?P<age>\d{1,3})(?:st|nd|rd|th)?(?:\s+birthday)?\s+in\s+(?P<year>1[0-9]{3}|20[0-9]{2})"
    r"\b(?!\s*\(born)"
)
"""An age reached in a year, which gives the year of birth: "turned 40 in 2020"."""


def _born(found: re.Match[str]) -> str:
    return f"{found[0]} (born in {int(found['year']) - int(found['age'])})"


def _resolved(paragraph: str) -> str:
    out: list[str] = []
    at, anchor = 0, None
    for match in _PHRASE.finditer(paragraph):
        anchor = _last_year(paragraph[at : match.start()], anchor)
        out.append(paragraph[at : match.end()])
        at = match.end()
        years = _offset(match)
        if anchor is None or years is None or _open_ended(match, paragraph[at:]):
            continue
        anchor += years
        out.append(f" ({anchor})")
    out.append(paragraph[at:])
    return "".join(out)


def _last_year(text: str, anchor: int | None) -> int | None:
    found = _YEAR.findall(text)
    return int(found[-1]) if found else anchor


def _offset(match: re.Match[str]) -> int | None:
    """How many years the phrase moves from its anchor (negative: back), or None."""
    way = (match.group("way") or match.group("near") or match.group("side") or "").lower()
    sign = 1 if way in _LATER else -1
    if match.group("count") is None:
        return sign
    count = match.group("count").lower()
    number = 1 if count in ("a", "an") else int(count) if count.isdigit() else None
    number = number if number is not None else int(WORD_NUMBERS.get(count, 0))
    if not number:
        return None
    return sign * number * (10 if match.group("unit").lower().startswith("decade") else 1)


def _open_ended(match: re.Match[str], rest: str) -> bool:
    """ "two years after the war", "a year before opening": anchored on an event, not a year."""
    way = (match.group("way") or match.group("side") or "").lower()
    return way in ("after", "before") and _OPEN_ENDED.match(rest) is not None
