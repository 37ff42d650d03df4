"""Relative changes computed against the figure they change: "had 20,000 visitors in 2019, and
by 2023 the number had doubled" reads "had doubled (to 40,000 visitors)".

Read: "doubled", "halved", "tripled", "trebled", "quadrupled", and a verb of rising or falling
("rose", "increased", "grew", "fell", "dropped", "declined", "was cut"...) by a share: "by 20%",
"by 20 per cent", "by a third", "by half", "by two thirds". The figure changed is the last count,
quantity or amount of money before the phrase in its sentence, and only when the phrase starts
a clause of its own whose subject is that figure: no subject ("and doubled by 2023"), a word
standing for it ("the number", "the figure", "it"), or a word sharing its noun's stem
("membership" for "members"). A change already followed by its result ("doubled to 40,000") or
by a change in points ("by 5 percentage points") is left as written, as is a change by an
absolute figure ("rose by 200"). Lines keep their breaks, so ``path:line`` citations hold.

Example:
    >>> resolve_relative_changes("The club had 300 members in 2012; by 2020 it had tripled.")
    'The club had 300 members in 2012; by 2020 it had tripled (to 900 members).'
"""

from __future__ import annotations

import re

from teams.language._numbers import WORD_NUMBERS, Value
from teams.language._vocabulary import UNITS
from teams.language.amounts import denominator
from teams.language.values import values_in
from teams.language.words import STOPWORDS, stem

__all__ = ["resolve_relative_changes", "withdraw_struck"]

_TIMES = {"doubled": 2.0, "halved": 0.5, "tripled": 3.0, "trebled": 3.0, "quadrupled": 4.0}
_UP = "rose, risen, increased, grew, grown, climbed, jumped, went up, gone up".split(", ")
_DOWN = "fell, fallen, dropped, decreased, declined, shrank, shrunk, went down, gone down, cut"
_WAYS = [*_UP, *_DOWN.split(", "), "reduced"]
_SHARE = (
    r"(?P<percent>\d+(?:\.\d+)?)\s*(?:%|per\s?cent\b|percent\b)|"
    r"(?:(?P<top>a|an|one|two|three|four)\s+)?(?P<part>halves|half|thirds?|quarters?|fifths?|"
    r"tenths?)\b"
)
_WAY = "|".join(way.replace(" ", r"\s+") for way in _WAYS)
_PHRASE = re.compile(
    rf"\b(?:(?P<times>{'|'.join(_TIMES)})\b|(?P<way>{_WAY})\s+by\s+(?:{_SHARE}))"
    r"(?!\s*\(|\s+(?:to|from)\s+\S*\d|\s*(?:percentage\s+)?points)",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n\s*\n")
_BOUNDARY = re.compile(r"[,;:]|\b(?:and|but|while|whereas)\b")
_STANDS_FOR = frozenset(
    "number numbers figure figures total totals count amount level it they this that".split()
)
_TIME_WORDS = frozenset("year years later then now today since".split())


def resolve_relative_changes(text: str) -> str:
    """``text`` with each relative change followed by the figure it comes to, in brackets."""
    out: list[str] = []
    at = 0
    for match in _PHRASE.finditer(text):
        out.append(text[at : match.end()])
        at = match.end()
        starts = [end.end() for end in _SENTENCE_END.finditer(text, 0, match.start())]
        result = _changed(text[starts[-1] if starts else 0 : match.start()], _factor(match))
        if result is not None:
            out.append(f" (to {result})")
    out.append(text[at:])
    return "".join(out)


def _factor(match: re.Match[str]) -> float:
    """What the phrase multiplies its figure by."""
    if match.group("times"):
        return _TIMES[match.group("times").lower()]
    if match.group("percent"):
        share = float(match.group("percent")) / 100
    else:
        top = match.group("top")
        count = 1.0 if top is None or top.lower() in ("a", "an") else WORD_NUMBERS[top.lower()]
        share = count / (denominator(match.group("part").lower()) or 1)
    way = " ".join(match.group("way").lower().split())
    return 1 + share if way in _UP else 1 - share


def _changed(before: str, factor: float) -> str | None:
    """The last figure of ``before`` changed by ``factor``, written as it was (None: no figure,
    or the phrase's subject is something else)."""
    figures = [v for v in values_in(before) if v.kind in ("count", "money") or _measured(v)]
    if not figures or factor <= 0:
        return None
    base = figures[-1]
    tail = before[before.lower().rfind(base.words[-1]) + len(base.words[-1]) :]
    clauses = _BOUNDARY.split(tail)
    if len(clauses) < 2 or not _stands_for(base, clauses[-1]):
        return None
    return _written(base, factor)


def _measured(value: Value) -> bool:
    """A quantity given as a figure ("12 km"), not a unit alone ("a day" in "12,000 a day")."""
    return value.kind == "quantity" and value.words[0] not in ("a", "an", "half")


def _stands_for(base: Value, subject: str) -> bool:
    """Whether the words of a clause's subject refer to the figure ``base``."""
    nouns = {stem(base.key)} if base.key and base.kind == "count" else set()
    for word in re.findall(r"[a-z]+", subject.lower()):
        if word in STOPWORDS or word in _STANDS_FOR or word in _TIME_WORDS:
            continue
        if not any(stem(word).startswith(noun) or noun.startswith(stem(word)) for noun in nouns):
            return False
    return True


def _written(base: Value, factor: float) -> str:
    """``base`` times ``factor``, in its unit or currency and with its noun."""
    if base.kind == "money":
        return f"{base.unit} {_figure(base.number * factor, grouped=True)}"
    if base.kind == "quantity":
        unit = "%" if base.unit == "fraction" else base.unit
        per_unit = UNITS[unit][1] if unit in UNITS else 1.0
        return f"{_figure(base.number / per_unit * factor, grouped=',' in base.label)} {unit}"
    number = base.number * factor
    noun = base.label.split()[-1] if base.key else ""
    about = "about " if abs(number - round(number)) > 1e-6 else ""
    written = _figure(round(number), grouped="," in base.label or number >= 10_000)
    return f"{about}{written} {noun}".strip()


def _figure(number: float, *, grouped: bool) -> str:
    """A figure as it is written: whole when whole, else to two decimals; thousands grouped."""
    if abs(number - round(number)) < 1e-6:
        return f"{round(number):,}" if grouped else str(round(number))
    return (f"{number:,.2f}" if grouped else f"{number:.2f}").rstrip("0").rstrip(".")


_STRUCK = re.compile(r"~~(?P<old>[^~\n]+?)~~[ \t]*")
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")


def withdraw_struck(text: str) -> str:
    """``text`` without what Markdown strikes out (``~~old~~``): a struck figure right before
    a new one ("is ~~410~~ 460 metres long.") is rejected at its sentence's end ("is 460 metres
    long, not 410."), anything else struck is dropped; line for line."""
    return "\n".join(_withdrawn(line) for line in text.split("\n"))


def _withdrawn(line: str) -> str:
    """One line with its struck text withdrawn (:func:`withdraw_struck`)."""
    found = _STRUCK.search(line)
    while found is not None:
        old, rest = found["old"].strip(), line[found.end() :]
        line = line[: found.start()] + rest
        new = _FIGURE.match(rest)
        if _FIGURE.fullmatch(old) and new is not None and new.group() != old:
            stop = re.search(r"[.!?](?=\s|$)", rest)
            end = found.start() + (stop.start() if stop is not None else len(rest))
            line = f"{line[:end]}, not {old}{line[end:]}"
        found = _STRUCK.search(line)
    return line
