"""The values a sentence states, normalised: numbers in digits or words with their units,
ranges, money, fractions and ordinals (:mod:`teams.language.amounts`), dates
(:mod:`teams.language.dates`), categorical values (colours, materials, fuels) and the words that
carry them.

"six lamps" and "6 lamps" are the same count; "3 km" and "3000 metres" the same length;
"three and a half hours", "3 hours 30 minutes" and "210 minutes" the same duration; "1.5
hectares" and "15,000 sq m" the same area; "20 °C" and "68 °F" the same temperature; "20-30 m"
a range; "March 1881" is a date in 1881; "red" is a colour. Figures in different units agree
within the precision they are written with ("40 feet" and "about 12 metres"); in the same unit
they must be equal (or inside the other's range).

Example:
    >>> [v.label for v in values_in("The bridge is 1.2 km long and opened in March 1881.")]
    ['1.2 km', '1881-03']
    >>> values_in("It has eleven arches.")[0].number
    11.0
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from teams.language._clauses import surroundings
from teams.language._numbers import SCIENTIFIC, Value, and_part, number_at
from teams.language._vocabulary import CATEGORIES, MONTHS, UNITS
from teams.language.amounts import money_at, ordinal_at, share_at, word_ordinal
from teams.language.calendars import plain_dates
from teams.language.dates import NUMERIC_DATE, date_at, dates_agree
from teams.language.rounding import rounding_of, without_rounding
from teams.language.words import STOPWORDS, singular

__all__ = [
    "CATEGORIES",
    "Value",
    "decade_of",
    "figures_date",
    "full_dates",
    "stated_date",
    "value_words",
    "values_agree",
    "values_in",
]

_CLOCK = re.compile(
    r"(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?m\b\.?|(\d{1,2}):(\d{2})\b", re.IGNORECASE
)
_UNIT_NAMES = "|".join(sorted((re.escape(u) for u in UNITS if u != "in"), key=len, reverse=True))
_DECIMAL = r"\d{1,3},\d{1,2}"
_DECIMAL_COMMA = _DECIMAL + r"(?!\d)(?=\s?(?:" + _UNIT_NAMES + r")\b)"
"""A figure with a decimal comma before its unit: "2,5 metres" ("2,500 metres" has three)."""
_TOKEN = re.compile(
    NUMERIC_DATE + r"|(?<![$€£¥₹])(?<![$€£¥₹]\s)\d{1,2}(?:[:.]\d{2})?\s*[ap]\.?m\b\.?|"
    r"\d{1,2}:\d{2}\b|\d+(?:st|nd|rd|th)\b|"
    r"\d{1,2}/\d{1,3}\b(?!/)|"
    + _DECIMAL_COMMA
    + "|"
    + SCIENTIFIC
    + r"|\d{1,2}(?:,\d{2})+,\d{3}(?![\d,])|\d{1,3}(?:['’]\d{3})+(?:\.\d+)?(?![\d'’])|"
    r"\d+(?:,\d{3})*(?:\.\d+)?|°\s?[CFK](?![A-Za-z])|"
    r"[A-Za-z]+(?:-[A-Za-z]+)*[²³]?|[%$€£¥₹½¼¾⅓⅔]|(?<=\d)\s?[-–](?=\s?\d)",
    re.IGNORECASE,
)
_MINUS = re.compile(r"(?<![\w.,)\]])(?<!\d\s)[-−](?=\d)")
"""A minus sign before a figure, not a dash between two ("20-30", "20 - 30") nor a hyphen."""
_DATE_LEAD = frozenset("in since from of by until till on year around about circa c".split())
_APPROXIMATE = frozenset("about around approximately roughly nearly almost some circa".split())


def _year(tokens: list[str], index: int, number: float) -> bool:
    """A four-digit figure read as a year: after "in", "since"..., or not before a unit or a
    counted plural ("1902" in "founded in 1902" or "the 2021 census", not in "1500 metres" or
    "2000 books")."""
    token = tokens[index]
    if not (token.isdigit() and len(token) == 4 and 1000 <= number <= 2100):
        return False
    if _unit_at(tokens, index + 1):
        return False
    before = tokens[index - 1].lower() if index else ""
    after = tokens[index + 1].lower() if index + 1 < len(tokens) else ""
    plural = after.endswith("s") and not after.endswith(("ss", "us", "is"))  # not "census"
    return before in _DATE_LEAD or not (plural and after not in STOPWORDS)


_DEGREES_MINUTES = re.compile(
    r"\b(\d{1,3})\s*°\s*(\d{1,2}(?:\.\d+)?)\s*[′'’]\s*(?:(\d{1,2}(?:\.\d+)?)\s*[″\"”]\s*)?"
    r"(?=[NSEW]\b|[^\w]|$)"
)
"""An angle in degrees, minutes and perhaps seconds: "56°45′N", "3° 12' 30\" W"."""
_SELF_CORRECTED = re.compile(
    r"[\w.,]+\s*(?P<dash>—|–|\s-)\s*(?:sorry|I\s+mean|or\s+rather|rather|correction|no)\s*[,:]?"
    r"\s+(?P<said>[\w.,-]+)\s*(?P=dash)\s*",
    re.IGNORECASE,
)
"""A figure a speaker corrects as they say it: "forty — sorry, fourteen — bells" says fourteen."""


_HEXADECIMAL = re.compile(r"\b0[xX](?P<digits>[0-9A-Fa-f]+)\b")
"""A number written in hexadecimal: "0x1F90" is 8080."""


def _in_decimal(found: re.Match[str]) -> str:
    return str(int(found["digits"], 16))


def _in_degrees(found: re.Match[str]) -> str:
    degrees = int(found[1]) + float(found[2]) / 60 + float(found[3] or 0) / 3600
    return f"{round(degrees, 4):g}° "


def values_in(text: str) -> list[Value]:
    """The values ``text`` states, in order, each with the words beside it in its clause (an
    angle in degrees and minutes read in degrees: "56°45′N" is 56.75° N; a figure corrected as it
    is said, "forty — sorry, fourteen —", read as the one meant; a hexadecimal number in
    decimal; a figure its page says is rounded spanning the rounding, see
    :mod:`teams.language.rounding`)."""
    text = _DEGREES_MINUTES.sub(_in_degrees, _SELF_CORRECTED.sub(r"\g<said> ", text))
    text = _HEXADECIMAL.sub(_in_decimal, text)
    text = _MINUS.sub("minus ", text)  # "-9 °C" below nought: "minus 9 °C"
    step = rounding_of(text)  # "(rounded to the nearest 100)": each figure spans the rounding
    text = without_rounding(text) if step else text
    matches = [m for m in _TOKEN.finditer(text) if not _glued(text, m.start())]
    tokens = [_decimal_point(match.group().strip()) for match in matches]
    found: list[Value] = []
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(tokens):
        read = (
            _how_frequent(tokens, index)
            or _all_but(tokens, index)
            or _short_of(tokens, index)
            or money_at(tokens, index)
            or _one_unit(tokens, index)
            or share_at(tokens, index)
            or _word_value(tokens, index)
            or _how_often(tokens, index)
            or ordinal_at(tokens, index)
            or _figure_value(tokens, index)
        )
        if read is None:
            index += 1
            continue
        if index + read[1] < len(matches) and _spaced(text, matches, index + read[1]):
            read = _and_smaller(tokens, index + read[1], *read)
        found.append(read[0])
        spans.append((index, index + read[1]))
        index += read[1]
    around = surroundings(text, [(m.start(), m.end()) for m in matches], spans)
    return [
        replace(value, around=words, clause=clause, spread=_rounded(value, step))
        for value, (words, clause) in zip(found, around, strict=True)
    ]


def _rounded(value: Value, step: float) -> float:
    """The spread of ``value`` read from a line whose figures are rounded to ``step``: half a
    step for a count, a quantity or a sum that has none of its own and is at least a step."""
    rounds = value.kind in ("count", "quantity", "money") and value.number >= step > 0
    return step / 2 if rounds and not value.spread else value.spread


def _decimal_point(token: str) -> str:
    """A figure written with a decimal comma ("2,5") with a decimal point ("2.5"); any other
    token as it is."""
    return token.replace(",", ".") if re.fullmatch(_DECIMAL, token) else token


def _glued(text: str, start: int) -> bool:
    """A figure written onto a name ("HTTP/2", "COVID-19", "A380"): part of the name."""
    if not text[start : start + 1].isdigit() or not start:
        return False
    before = text[start - 1]
    return before.isalpha() or (before in "/-" and start > 1 and text[start - 2].isalpha())


def _word_value(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """A value named in words at ``index`` (a colour, a date, a month, a weekday, a time) and
    the tokens it takes, or None."""
    token, lower = tokens[index], tokens[index].lower()
    before = tokens[index - 1].lower() if index else ""
    if lower in CATEGORIES and not (lower == "lead" and before not in ("of", "in")):
        return Value(CATEGORIES[lower], lower, label=lower, words=(lower,)), 1
    date = date_at(tokens, index)
    if date is not None:
        return date
    if _named_day(token, before):
        kind = "month" if lower in MONTHS else "weekday"
        return Value(kind, lower.removesuffix("s"), label=token, words=(lower,)), 1
    clock = _CLOCK.fullmatch(token)
    if clock is None:
        return None
    time = _time_of_day(clock, token)
    zone = tokens[index + 1] if index + 1 < len(tokens) else ""
    if zone.upper() not in _ZONE_HOURS or not zone.isupper():
        return time, 1
    label = f"{time.label} {zone}"
    return replace(time, unit=zone.upper(), label=label, words=(*time.words, zone.lower())), 2


def _figure_value(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """A figure at ``index`` (a year, a count, a quantity with its unit) and the tokens it
    takes, or None."""
    read = number_at(tokens, index)
    if read is None:
        return None
    number, precision, used = read
    if index and tokens[index - 1].lower() == "minus":  # "minus 9 °C", "-9 °C"
        number = -number
    ranged = _range(tokens, index, (number, precision, used))
    if ranged is None and used == 1 and _year(tokens, index, number):
        token = tokens[index]
        return Value("date", "date", number, label=token, words=(token,)), 1
    spread = 0.0
    if ranged is not None:
        low, high, used = ranged
        number, spread = (low + high) / 2, (high - low) / 2
    value, extra = _measure(tokens, index, used, number, precision)
    if spread:  # in the value's own unit (a temperature's scale starts elsewhere)
        upper = _measure(tokens, index, used, number + spread, precision)[0].number
        value = replace(value, spread=abs(upper - value.number))
    return value, used + extra


def _spaced(text: str, matches: list[re.Match[str]], index: int) -> bool:
    """Whether only spaces stand between token ``index`` and the one before it (no comma:
    "3 km, 500 m" are two figures)."""
    return not text[matches[index - 1].end() : matches[index].start()].strip()


def _and_smaller(tokens: list[str], at: int, value: Value, used: int) -> tuple[Value, int]:
    """A quantity with what follows it in a smaller unit of its dimension, less than one of its
    own ("3 hours 30 minutes", "5 feet and 6 inches", "an hour and 20 minutes"), as one
    quantity, and the tokens they take; a range keeps to itself."""
    if value.kind != "quantity" or value.key in ("share", "temperature") or value.spread:
        return value, used
    link = int(at < len(tokens) and tokens[at].lower() == "and")
    read = number_at(tokens, at + link) if at + link < len(tokens) else None
    unit = None if read is None else _unit_at(tokens, at + link + read[2])
    if read is None or unit is None or unit[0] != value.key:
        return value, used
    larger = UNITS[value.unit][1]
    if unit[1] >= larger or read[0] * unit[1] >= larger:
        return value, used
    taken = link + read[2] + unit[3]
    words = (*value.words, *(t.lower() for t in tokens[at : at + taken]))
    more = Value(
        "quantity",
        value.key,
        value.number + read[0] * unit[1],
        unit=value.unit,
        precision=read[1] * unit[1],
        label=" ".join([value.label, *tokens[at : at + taken]]),
        words=words,
    )
    return more, used + taken


_NOT_ONE_UNIT = frozenset("second seconds pound pounds yard yards ton tons stone stones".split())


def _one_unit(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """ "an hour", "a mile", "half an hour", "a quarter of an hour", "three quarters of a
    mile", "an hour and a half": one unit named in full, a part of one, or one and a part
    (not "a second", "a pound", "a yard": those are no measure)."""
    word = tokens[index].lower()
    at, number = index + 1, 1.0
    share = share_at(tokens, index)
    if share is not None:
        number, at = share[0].number / 100, index + share[1]
        if [t.lower() for t in tokens[at : at + 2]] not in (["of", "a"], ["of", "an"]):
            return None
        at += 2
    elif word == "half":
        number = 0.5
        at += at < len(tokens) and tokens[at].lower() in ("a", "an")
    elif word not in ("a", "an"):
        return None
    unit = tokens[at].lower() if at < len(tokens) else ""
    if unit not in UNITS or unit in _NOT_ONE_UNIT or (len(unit) < 4 and unit != "day"):
        return None
    part = and_part(tokens, at + 1) if share is None else None
    end = at + 1 + (3 if part else 0)
    dimension, factor = UNITS[unit]
    words = tuple(t.lower() for t in tokens[index:end])
    value = Value(
        "quantity",
        dimension,
        (number + (part[0] if part else 0.0)) * factor,
        unit=unit,
        label=" ".join(words),
        words=words,
    )
    return value, end - index


def _range(
    tokens: list[str], index: int, read: tuple[float, float, int]
) -> tuple[float, float, int] | None:
    """A range from the figure at ``index`` ("20-30", "20 to 30", "between 20 and 30"): its
    ends and the tokens they take; None for one figure, or two years ("1914-1918")."""
    low, _, used = read
    link = tokens[index + used].lower() if index + used < len(tokens) else ""
    before = tokens[index - 1].lower() if index else ""
    if not (link in ("-", "–", "to") or (link == "and" and before == "between")):
        return None
    if before == "from" or index + used + 1 >= len(tokens):
        return None  # "rose from 20 to 30" is a change, not a range
    upper = number_at(tokens, index + used + 1)
    if upper is None or upper[0] <= low:
        return None
    if all(_year(tokens, at, n) for at, n in ((index, low), (index + used + 1, upper[0]))):
        return None
    return low, upper[0], used + 1 + upper[2]


_TIMES = {"once": 1.0, "twice": 2.0, "thrice": 3.0}
"""How often, in one word ("twice a day" is "2 times a day")."""
_PERIOD = frozenset({"a", "an", "per", "each", "every"})
"""The words before the period a frequency is counted in ("twice a day", "three times per
hour")."""


def _how_often(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """ "twice", "thrice", and "once" before "a day", "every week"... as a count of times."""
    lower = tokens[index].lower()
    if lower not in _TIMES:
        return None
    after = [t.lower() for t in tokens[index + 1 : index + 3]]
    periodic = len(after) == 2 and after[0] in _PERIOD
    if lower == "once" and not (periodic and (after[1] in UNITS or after[1] == "month")):
        return None
    return Value("count", "time", _TIMES[lower], label=lower, words=(lower,)), 1


_HOUR = 3600.0


def _how_frequent(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """How often, at ``index``, as a rate per hour: "every twenty minutes", "every hour",
    "three times an hour", "twice a day" ("every twenty minutes" is "three times an hour"),
    and the tokens it takes; None for anything else."""
    lower = tokens[index].lower()
    if lower == "every":
        count = number_at(tokens, index + 1) if index + 1 < len(tokens) else None
        at = index + 1 + (count[2] if count else 0)
        times, every = 1.0, count[0] if count else 1.0
    else:
        count = number_at(tokens, index) if lower not in _TIMES else (_TIMES[lower], 0.0, 0)
        if count is None:
            return None
        at = index + max(count[2], 1)
        if count[2] and (at >= len(tokens) or tokens[at].lower() != "times"):
            return None
        at += 1 if count[2] else 0
        if at >= len(tokens) or tokens[at].lower() not in _PERIOD:
            return None
        times, every, at = count[0], 1.0, at + 1
    unit = _unit_at(tokens, at)
    if unit is None or unit[0] != "duration" or not every:
        return None
    used = at + unit[3] - index
    words = tuple(token.lower() for token in tokens[index : index + used])
    rate = times * _HOUR / (every * unit[1])
    label = " ".join(tokens[index : index + used])
    return Value("quantity", "frequency", rate, "per hour", label=label, words=words), used


def _all_but(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """A count by exception at ``index``: "all but two of the hotel's 40 rooms" is 38 rooms,
    and the tokens it takes; None for anything else."""
    if tokens[index].lower() != "all" or index + 3 >= len(tokens):
        return None
    if tokens[index + 1].lower() != "but":
        return None
    left = number_at(tokens, index + 2)
    if left is None or tokens[index + 2 + left[2]].lower() != "of":
        return None
    for at in range(index + 3 + left[2], min(len(tokens), index + 9 + left[2])):
        whole = _figure_value(tokens, at)
        if whole is not None and whole[0].kind == "count" and whole[0].number > left[0]:
            used = at + whole[1] - index
            words = tuple(token.lower() for token in tokens[index : index + used])
            number = whole[0].number - left[0]
            noun = whole[0].label.partition(" ")[2]  # "40 rooms": 38 rooms
            label = f"{number:g} {noun}".strip()
            return replace(whole[0], number=number, label=label, words=words), used
    return None


def _short_of(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """A count given as a shortfall at ``index``: "two short of a hundred moorings" is 98
    moorings ("shy of" too), and the tokens it takes; None for anything else."""
    left = number_at(tokens, index)
    at = index + (left[2] if left else 0)
    if left is None or at + 2 >= len(tokens) or tokens[at].lower() not in ("short", "shy"):
        return None
    if tokens[at + 1].lower() != "of":
        return None
    whole = _word_value(tokens, at + 2) or _figure_value(tokens, at + 2)
    if whole is None or whole[0].kind != "count" or whole[0].number <= left[0]:
        return None
    used = at + 2 + whole[1] - index
    number = whole[0].number - left[0]
    noun = whole[0].label.split()[len(whole[0].words) :]  # "a hundred moorings": moorings
    label = " ".join([f"{number:g}", *noun])
    words = tuple(token.lower() for token in tokens[index : index + used])
    return replace(whole[0], number=number, label=label, words=words), used


_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_MONTH_LEAD = frozenset("in of during until till since by early late mid from to".split())


def _named_day(token: str, before: str) -> bool:
    """A month named without a year ("in June"; "May" only after "in", "by"...) or a day of
    the week ("on Mondays"), written with a capital."""
    lower = token.lower()
    if not token[:1].isupper():
        return False
    if lower in MONTHS:
        return lower != "may" or before in _MONTH_LEAD
    return lower.removesuffix("s") in _WEEKDAYS


_ZONE_HOURS = {
    "UTC": 0, "GMT": 0, "WET": 0, "BST": 1, "CET": 1, "WEST": 1, "CEST": 2, "EET": 2,
    "EEST": 3, "MSK": 3, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6,
    "PST": -8, "PDT": -7, "AKST": -9, "AKDT": -8, "HST": -10, "JST": 9, "KST": 9,
    "AEST": 10, "AEDT": 11, "ACST": 9.5, "AWST": 8, "NZST": 12, "NZDT": 13,
}  # fmt: skip
"""Time zones written after a clock time, by their hours ahead of UTC ("08:30 BST" is 07:30
UTC; two times agree in UTC when both give their zone); an abbreviation that names more than
one zone ("IST") is left out."""


def _in_utc(time: Value) -> float:
    """A time of day given with its zone ("08:30 BST") in minutes after midnight UTC."""
    return (time.number - 60 * _ZONE_HOURS.get(time.unit, 0)) % (24 * 60)


def _time_of_day(clock: re.Match[str], token: str) -> Value:
    """``17:00``, ``5 pm`` or ``5:30 p.m.`` as a time of day, labelled ``HH:MM``."""
    if clock.group(3):
        hour, minute = int(clock.group(1)) % 12, int(clock.group(2) or 0)
        hour += 12 if clock.group(3).lower() == "p" else 0
    else:
        hour, minute = int(clock.group(4)), int(clock.group(5))
    label = f"{hour:02d}:{minute:02d}"
    return Value("time", "time", hour * 60.0 + minute, label=label, words=(token.lower(),))


def _unit_at(tokens: list[str], index: int) -> tuple[str, float, str, int] | None:
    """The unit at ``index`` (dimension, factor to base units, name) and its token count."""
    if index >= len(tokens):
        return None
    word = tokens[index].lower()
    following = tokens[index + 1].lower() if index + 1 < len(tokens) else ""
    if word == "per" and following == "cent":
        return (*UNITS["%"], "per cent", 2)
    if f"{word} {following}" in UNITS:  # "square metres", "cubic feet"
        return (*UNITS[f"{word} {following}"], f"{word} {following}", 2)
    if (
        word in UNITS
        and not (word == "in" and tokens[index] == "in")
        and not _stone_noun(word, following)
    ):
        return _rate_at(tokens, index) or (*UNITS[word], word, 1)
    return _temperature_unit(word.replace(" ", ""), following)


_RATE_ABBREVIATIONS = frozenset("mm cm m km ft mi yd".split())
_PER_TIME = frozenset("s sec h hr".split())


def _rate_at(tokens: list[str], index: int) -> tuple[str, float, str, int] | None:
    """A length per unit of time at ``index`` as one speed in metres per second: "10 metres
    per second", "36 km an hour", "10 m/s" (read as "m", "s"), else None."""
    length = UNITS.get(tokens[index].lower())
    if length is None or length[0] != "length":
        return None
    after = [token.lower() for token in tokens[index + 1 : index + 3]]
    if after[:1] and after[0] in ("per", "an", "a", "each", "every") and len(after) == 2:
        time, taken = after[1], 3
    elif after[:1] and after[0] in _PER_TIME and tokens[index].lower() in _RATE_ABBREVIATIONS:
        time, taken = after[0], 2
    else:
        return None
    duration = UNITS.get(time)
    if (
        duration is None
        or duration[0] != "duration"
        or (taken == 3 and time.endswith("s") and time != "s")
    ):
        return None  # "10 metres a day" is a speed, "10 metres a days" is not
    name = f"{tokens[index].lower()} per {time}"
    return "speed", length[1] / duration[1], name, taken


def _stone_noun(word: str, following: str) -> bool:
    """ "stone" before the noun it describes ("two stone lions"): a material, not a weight
    ("11 stone", "11 stone and 4 pounds")."""
    return word in ("stone", "stones") and following.isalpha() and following not in STOPWORDS


_SCALES = {"c": "°C", "celsius": "°C", "centigrade": "°C", "f": "°F", "fahrenheit": "°F"}
_ZEROS = {"°C": (1.0, 273.15), "°F": (5 / 9, 459.67 * 5 / 9), "K": (1.0, 0.0)}
"""Each scale's degree in kelvins and its zero's distance above absolute zero."""


def _temperature_unit(word: str, following: str) -> tuple[str, float, str, int] | None:
    """A scale of temperature ("°C", "° F", "degrees Celsius", "deg F", "kelvin") as
    :func:`_unit_at` gives a unit (:func:`_measure` adds the zero of its scale)."""
    if word.startswith("°") and word[1:] in ("c", "f", "k"):
        name, taken = _SCALES.get(word[1:], "K"), 1
    elif word in ("degree", "degrees", "deg") and following in _SCALES:
        name, taken = _SCALES[following], 2
    elif word in ("kelvin", "kelvins"):
        name, taken = "K", 1
    else:
        return None
    return "temperature", _ZEROS[name][0], name, taken


def _measure(
    tokens: list[str], index: int, used: int, number: float, precision: float
) -> tuple[Value, int]:
    """The figure at ``index`` with its unit or counted noun, and the tokens they take."""
    written = ("-" if number < 0 else "") + " ".join(tokens[index : index + used])
    approximate = index and tokens[index - 1].lower() in _APPROXIMATE
    unit = _unit_at(tokens, index + used)
    if unit is not None:
        dimension, factor, name, taken = unit
        if dimension in ("share", "temperature"):  # "40%" is 40 give or take half, not 35-45
            precision = min(precision, 0.5)
        spread = precision * factor * (2 if approximate else 1)
        zero = _ZEROS[name][1] if dimension == "temperature" else 0.0
        return (
            Value(
                "quantity",
                dimension,
                number * factor + zero,
                unit="%" if name == "per cent" else name,
                precision=spread,
                label=f"{written} {name}",
                words=(*(t.lower() for t in tokens[index : index + used + taken]),),
            ),
            taken,
        )
    noun = tokens[index + used].lower() if index + used < len(tokens) else ""
    counted = noun if noun.replace("-", "").isalpha() and noun not in _NOT_COUNTED else ""
    words = tuple(t.lower() for t in tokens[index : index + used])
    label = f"{written} {counted}".strip()
    return Value("count", singular(counted), number, label=label, words=words), 0


_NOT_COUNTED = STOPWORDS | {"but", "and", "or"}


def values_agree(first: Value, second: Value) -> bool:
    """Whether two values of the same kind and key say the same thing.

    Figures in the same unit must be equal (or one inside the other's range); in different
    units they agree within the coarser rounding of the two; a count of pairs agrees with twice
    as many of what it pairs. Amounts of money agree in one currency only. Dates agree when
    their common part (year, month, day) is the same, for every reading of a numeric date whose
    day and month could be swapped.
    """
    if first.kind == "date":
        return dates_agree(first, second)
    if first.kind in ("time", "ordinal"):
        zoned = bool(first.unit and second.unit)  # "07:30 UTC" is "08:30 BST"
        return _in_utc(first) == _in_utc(second) if zoned else first.number == second.number
    if first.kind not in ("quantity", "count", "money"):
        return first.key == second.key
    if first.kind == "money" and first.key != second.key:
        return False
    numbers = first.number, second.number
    if first.kind == "count" and _paired(first) != _paired(second):  # "90 pairs", "180 birds"
        numbers = (2 * numbers[0], numbers[1]) if _paired(first) else (numbers[0], 2 * numbers[1])
    gap = abs(numbers[0] - numbers[1])
    ranged = max(first.spread, second.spread)
    if first.kind != "quantity" or first.unit == second.unit:
        exact = max(first.precision, second.precision) if first.kind == "money" else 0.0
        return gap <= ranged + exact + 1e-9 * max(1.0, abs(first.number))
    rounding = min(
        max(first.precision, second.precision), _AT_MOST * max(first.number, second.number)
    )
    return gap <= (rounding + ranged) * (1 + 1e-9)


def _paired(value: Value) -> bool:
    """Whether a count counts pairs ("90 breeding pairs"): twice as many of what they pair."""
    return value.key == "pair" or "pair" in value.around


_AT_MOST = 0.1
"""The most two figures in different units may differ by rounding: a tenth ("one hour" is not
"45 minutes", though 45 minutes rounds to one hour)."""


def value_words(values: Sequence[Value]) -> set[str]:
    """The words the values were read from (a scale's letter without its degree sign too:
    "c" of "°c"): not part of what a sentence is about."""
    return {part for value in values for word in value.words for part in (word, word.lstrip("° "))}


_DATED = re.compile(
    r"\b(?:updated|revised|published|written|compiled|issued|dated|edition|as of|"
    r"surveyed|inspected|(?:photo(?:graph)?|picture|image)\s+taken|"
    r"(?<!was )(?<!were )printed|"
    r"last (?:checked|reviewed|updated))\b\W+(?:(?:in|on)\s+)?"
    r"(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?=[A-Za-z]))?(?:(" + "|".join(MONTHS) + r")\s+)?"
    r"(?:\d{1,2},?\s+)?(1[0-9]{3}|20[0-9]{2})\b",
    re.IGNORECASE,
)
_IN_YEAR = re.compile(
    r"(?:^|(?<=[.!?:])\s+|\n\s*)in\s+(?:(" + "|".join(MONTHS) + r")\s+)?(1[0-9]{3}|20[0-9]{2})\b",
    re.IGNORECASE,
)
"""A sentence opening with the year (or month) it speaks of: "In 2012 the library held ..."."""
_HEADING_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_SHORT_YEAR = re.compile(r"(?<!\w)['’](\d{2})\b")
"""A year written with two digits after an apostrophe: "May '09"."""


_COPYRIGHT = re.compile(
    r"(?:©|\(c\)|\bcopyright\b)[\s©]*(?:\(c\)\s*)?(?:\d{4}\s*[-–]\s*)?(1[0-9]{3}|20[0-9]{2})\b",
    re.IGNORECASE,
)
"""A copyright line: "© 2021 Harwick Trust", "Copyright (c) 2009-2014": its last year."""


def _century(year: int) -> str:
    """A two-digit year as four digits, as POSIX ``strptime``'s ``%y`` reads it: 69-99 in the
    1900s, 00-68 in the 2000s."""
    return str(year + (1900 if year >= 69 else 2000))


def full_dates(text: str) -> list[str]:
    """The dates ``text`` writes with their day ("Inspection of 14/09/2022", "3 April 2021"),
    as ISO dates; one whose day and month could be swapped only when both read the same."""
    tokens = [token.strip(",;:()") for token in text.split()]
    found = [date_at(tokens, index) for index in range(len(tokens))]
    return [
        value.label
        for value, _ in filter(None, found)
        if value.label.count("-") == 2 and len(set(value.readings or (value.label,))) == 1
    ]


def stated_date(heading: str, text: str) -> str | None:
    """When a passage says it was written: a date or a year in its heading ("Inspection of
    14/09/2022", "Survey of 2019", "May '09", "Report FY19", "Almanac MMXXII"),
    else a dating phrase in its words ("Updated in March 2021", "2015 edition", "Revised on
    the ninth of March, two thousand and twenty-three", "Posted: 2021-03-04T17:45Z", "In force
    from 1 October 2022", "Surveyed 14.IX.2022", a "Date:" header, a sentence opening "From
    04/06/2022," or "In 2012"; "In the 1980s": "1980", the decade's first year; "the 2021
    census"; a Unix timestamp on a header line ("Last-Modified: 1689321600"); a day count (a
    Modified Julian Date, "MJD 60110", a spreadsheet's date serial, "date serial: 45123"); a date
    written without separators after "Rev." or a dating word ("Rev. 20230314"); a date in
    the path of a source's address on a line of its own; the year of an
    anniversary of the one opening it names; the last year of the span its counts cover,
    "counts for 2019–2023"), as an ISO date; else the year of its copyright
    line ("© 2021"), a weaker sign. A date its figures are said to hold at ("Figures as at 31
    March 2015", "Figures last checked 2013-05-20") comes before any other of its words.
    Dates of other calendars and markups are read as plain ones first
    (:func:`~teams.language.calendars.plain_dates`: "Reiwa 5", "2023年3月14日", "Taken:
    2022:07:19"), and the year inside a document's reference number counts ("Ref.
    WHR/2016/052")."""
    heading, text = plain_dates(heading), plain_dates(text)
    dates = full_dates(heading)
    if dates:
        return max(dates)
    years: list[str] = _HEADING_YEAR.findall(heading)
    years += [_century(int(two)) for two in _SHORT_YEAR.findall(heading)]
    years += _fiscal_years(heading) + _roman_years(heading)
    if years:
        return max(years)
    if held := _led_dates(text, _HELD):  # "Figures as at 31 March 2015": when they hold
        return max(held)
    found: list[str] = [
        f"{m.group(2)}-{MONTHS.index(m.group(1).lower()) + 1:02d}" if m.group(1) else m.group(2)
        for m in _DATED.finditer(text)
    ]
    found += re.findall(r"\b(1[0-9]{3}|20[0-9]{2})\s+edition\b", text, re.IGNORECASE)
    found += [
        f"{m.group(2)}-{MONTHS.index(m.group(1).lower()) + 1:02d}" if m.group(1) else m.group(2)
        for m in _IN_YEAR.finditer(text)
    ]
    found += _scope_dates(text) + _led_dates(text) + _decades(text)
    found += _CENSUS.findall(text) + _address_dates(text) + _anniversaries(text)
    found += _COVERS.findall(text) + _epoch_dates(text) + _compact_dates(text)
    found += _day_count_dates(text)
    found += _REFERENCE.findall(text)
    found = found or _COPYRIGHT.findall(text)
    return max(found) if found else None


_EPOCH = re.compile(
    r"^[ \t]*(?:last[- ]?modified|modified|generated|updated|created|published|timestamp)"
    r"[ \t]*[:=][ \t]*(\d{9,10})\b(?![.,]\d)",
    re.IGNORECASE | re.MULTILINE,
)
"""A header line giving a Unix timestamp (seconds since 1970): "Last-Modified: 1689321600"."""
_EPOCH_SPAN = (631152000, 4102444800)
"""Timestamps read as dates: 1990 to 2100."""


def _epoch_dates(text: str) -> list[str]:
    """The days of the Unix timestamps on header lines of ``text`` (:data:`_EPOCH`), as ISO
    dates in UTC."""
    seconds = [int(found) for found in _EPOCH.findall(text)]
    return [
        datetime.fromtimestamp(second, tz=UTC).date().isoformat()
        for second in seconds
        if _EPOCH_SPAN[0] <= second < _EPOCH_SPAN[1]
    ]


_DAY_COUNTS = re.compile(
    r"\b(?:(?P<mjd>MJD|modified\s+julian\s+(?:date|day))|(?P<jd>JD|julian\s+(?:date|day))|"
    r"(?P<serial>(?:spreadsheet|excel|lotus)?\s*(?:date|day)\s+serial|serial\s+(?:date|day)"
    r"(?:\s+number)?|excel\s+(?:date|serial)))\b[^\n\d]{0,12}?(?P<days>\d{5,7}(?:\.\d+)?)\b",
    re.IGNORECASE,
)
"""A date given as a count of days: a Modified Julian Date ("MJD 60110"), a Julian Day ("JD
2460110.5"), a spreadsheet's date serial ("Last saved (spreadsheet date serial): 45123")."""
_MJD_DAY_0 = date(1858, 11, 17)
_SERIAL_DAY_0 = date(1899, 12, 30)
"""Day 0 of a Modified Julian Date, and of a spreadsheet's date serial (1900 date system)."""


def _day_count_dates(text: str) -> list[str]:
    """The dates ``text`` gives as counts of days (:data:`_DAY_COUNTS`; a Julian Day less
    2,400,000.5 is a Modified Julian Date), as ISO dates, those from 1990 to 2100 only.

    >>> _day_count_dates("Observed: MJD 60110. Saved (date serial): 45123. JD 2460110.5")
    ['2023-06-15', '2023-07-16', '2023-06-15']
    """
    found = []
    for match in _DAY_COUNTS.finditer(text):
        days = float(match["days"]) - (2400000.5 if match["jd"] else 0)
        day = (_SERIAL_DAY_0 if match["serial"] else _MJD_DAY_0) + timedelta(days=int(days))
        if date(1990, 1, 1) <= day < date(2100, 1, 1):
            found.append(day.isoformat())
    return found


_COMPACT = re.compile(
    r"\b(?:rev\.?|revision|revised|updated|dated|version|published|modified)[ \t]*[:=]?[ \t]*"
    r"((?:19|20)\d\d)(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])\b",
    re.IGNORECASE,
)
"""A date written without separators after a dating word: "Rev. 20230314"."""


def _compact_dates(text: str) -> list[str]:
    """The dates written without separators after a dating word (:data:`_COMPACT`), as ISO
    dates (only days that exist)."""
    found = []
    for year, month, day in _COMPACT.findall(text):
        try:
            found.append(date(int(year), int(month), int(day)).isoformat())
        except ValueError:
            continue
    return found


_REFERENCE = re.compile(
    r"\b(?:ref(?:erence)?|doc(?:ument)?|notice)\.?\s*(?:no\.?|number)?\s*[:#]?\s*"
    r"[A-Z][A-Z0-9]{0,9}[/-](1[5-9]\d\d|20\d\d)[/-]\d{1,6}\b",
    re.IGNORECASE,
)
"""A document's reference number with the year it was issued in: "Ref. WHR/2016/052"."""
_CENSUS = re.compile(r"\bthe\s+(1[0-9]{3}|20[0-9]{2})\s+(?:census|survey|count)\b", re.IGNORECASE)
"""A figure credited to the count it comes from: "According to the 2021 census, ..."."""
_COVERS = re.compile(
    r"\b(?:counts?|figures|data|surveys?|records|returns|observations)\s+(?:for|from|of|"
    r"covering)\s+(?:the\s+years\s+)?(?:1[0-9]{3}|20[0-9]{2})\s*(?:[–—-]|to)\s*"
    r"(1[0-9]{3}|20[0-9]{2})\b",
    re.IGNORECASE,
)
"""A figure qualified by the years its counts cover ("Based on counts for 2019–2023"): its
last year (the figure was written after it)."""
_ADDRESS = re.compile(
    r"^[ \t]*(?:[A-Za-z]+(?: [A-Za-z]+)?:[ \t]*)?<?https?://\S*?/(1[0-9]{3}|20[0-9]{2})/"
    r"(0?[1-9]|1[0-2])(?:/(0?[1-9]|[12][0-9]|3[01]))?(?=/|[>\s]|$)\S*[ \t]*$",
    re.MULTILINE,
)
"""A line that gives the address of its source, with a date in the address's path:
"Source: https://news.example.org/2023/09/the-tunnel"."""


def _address_dates(text: str) -> list[str]:
    """The dates in the paths of the source addresses ``text`` gives on lines of their own
    (:data:`_ADDRESS`), as ISO dates."""
    return [
        f"{year}-{int(month):02d}" + (f"-{int(day):02d}" if day else "")
        for year, month, day in _ADDRESS.findall(text)
    ]


_ANNIVERSARY = re.compile(
    r"\b(\d{1,3}(?:st|nd|rd|th)|[a-z]+(?:-[a-z]+)?)\s+anniversary\b", re.IGNORECASE
)
_OPENED = re.compile(
    r"\b(?:opened|founded|established|built|completed|consecrated|inaugurated)\s+in\s+"
    r"(1[0-9]{3}|20[0-9]{2})\b",
    re.IGNORECASE,
)


def _anniversaries(text: str) -> list[str]:
    """The year of an anniversary ``text`` names, when it names one year its subject opened
    ("opened in 1961 ... written for the hall's 50th anniversary": "2011")."""
    opened = set(_OPENED.findall(text))
    if len(opened) != 1:
        return []
    found = []
    for word in _ANNIVERSARY.findall(text):
        plain = word.lower()
        rank = int(plain[:-2]) if plain[:1].isdigit() else word_ordinal(plain)
        if rank:
            found.append(str(int(next(iter(opened))) + rank))
    return found


_SCOPE = re.compile(
    r"(?:^|(?<=[.!?:])\s+|\n\s*)(?:as of|from|effective(?: from)?)\s+(?:on\s+)?"
    r"(?P<date>[^,;.\n]{4,30}?)\s*,",
    re.IGNORECASE,
)
"""A sentence opening with the time its statement holds from: "From 04/06/2022, ..."."""


def _scope_dates(text: str) -> list[str]:
    """The dates sentences of ``text`` open with as the time they hold from, as ISO dates (a
    numeric date read either way: its earlier reading)."""
    found = []
    for match in _SCOPE.finditer(text):
        tokens = match["date"].split()
        read = date_at(tokens, 0)
        if read is not None and read[1] == len(tokens):
            value = read[0]
            found.append(min(value.readings) if value.readings else value.label)
    return found


_LEAD = re.compile(
    r"\b(?:updated|revised|published|posted|written|compiled|issued|dated|amended|as of|"
    r"surveyed|inspected|archived|(?<!was )(?<!were )(?:printed|retrieved|accessed)|"
    r"(?:(?<![^\n])|(?<=\n:)|(?<=^:))(?:date|taken|captured)(?=:)|"
    r"(?:mis à jour|publié|modifié|révisé)(?: le)?|"
    r"last (?:checked|reviewed|updated|revised|modified)|in force (?:from|since|as of)|"
    r"(?:comes into|came into|coming into) force on|effective(?: from| as of)?|"
    r"valid from|with effect from|applies from|"
    r"embargoed\s+(?:until|till)(?:\s+\d{1,2}[:.]\d{2}(?:\s*[ap]\.?m\.?)?)?)\b\W*"
    r"(?:(?:on|in|from)\s+)?(?:the\s+)?",
    re.IGNORECASE,
)
"""A phrase saying when a text was written or holds from, before its date (a "Date:" header
opening a line too: "Date: Fri, 17 Nov 2023 16:40:00 +0000", and a reStructuredText field
":Date: 2023-06-19"; a press release's "EMBARGOED UNTIL 00:01, 14 March 2024")."""


_HELD = re.compile(
    r"\b(?:(?:figures?|data|counts?|numbers?|statistics|information|details)\s+(?:are\s+|were\s+)?"
    r"(?:(?:correct|accurate|valid)\s+)?(?:as\s+(?:at|of)|(?:last\s+)?(?:checked|verified|"
    r"confirmed|counted))|(?:correct|accurate)\s+as\s+(?:at|of))\b\W*(?:(?:on|in)\s+)?(?:the\s+)?",
    re.IGNORECASE,
)
"""A phrase saying when a text's figures hold, before its date: "Figures as at 31 March 2015",
"Figures last checked 2013-05-20", "correct as of May 2021"; it dates the figures over when the
page was published or edited ("Published June 2023. Figures as at 31 March 2015.")."""


_AS_OF = re.compile(r"\bas\s+(?:of|at)\b\W*(?:(?:on|in)\s+)?(?:the\s+)?", re.IGNORECASE)


def figures_date(sentence: str) -> str | None:
    """The date ``sentence`` says its own figure holds at, as an ISO date ("Wenning hall: 260
    seats; as of in 2014.", "As of 1 May 2021, the hall had 300 seats"), else None.

    >>> figures_date("Wenning hall: 260 seats; as of in 2014.")
    '2014'
    """
    sentence = plain_dates(sentence)
    found = [
        date
        for lead in (_AS_OF, _HELD)
        for date in (*_led_dates(sentence, lead), *_led_years(sentence, lead))
    ]
    return max(found) if found else None


_YEAR_FIRST = re.compile(r"(1[0-9]{3}|20[0-9]{2})\b(?![.,/-]\d)")


def _led_years(text: str, lead: re.Pattern[str]) -> list[str]:
    """The years written alone right after a dating phrase (``lead``): "as of in 2014"."""
    return [
        year[1]
        for match in lead.finditer(text)
        if (year := _YEAR_FIRST.match(text, match.end())) is not None
    ]


def _led_dates(text: str, lead: re.Pattern[str] = _LEAD) -> list[str]:
    """The dates written right after a dating phrase (``lead``: :data:`_LEAD`), in any form
    :func:`~teams.language.dates.date_at` reads, as ISO dates (a numeric date read either way:
    what both readings share)."""
    found = []
    for match in lead.finditer(text):
        tokens = [token.strip(",;:().") for token in text[match.end() :].split()[:10]]
        tokens = _zoned(tokens)
        tokens = [_FRENCH_MONTHS.get(token.lower(), token) for token in tokens]
        read = date_at(tokens, 0) if tokens else None
        if read is not None:
            found.append(_shared(read[0].readings or (read[0].label,)))
    return [date for date in found if date]


_ZONE = re.compile(r"Z|UTC|GMT|[+-]\d{2}:?\d{2}")
_FRENCH_MONTHS = {
    month: english
    for month, english in zip(
        "janvier février mars avril mai juin juillet août septembre octobre novembre "
        "décembre".split(),
        MONTHS,
        strict=True,
    )
} | {"1er": "1"}
"""French month names after a French dating phrase ("Mis à jour le 3 février 2023")."""


def _zoned(tokens: list[str]) -> list[str]:
    """``tokens`` with an ISO date, a clock time and a UTC offset written apart ("2022-06-11",
    "07:15", "+10:00") joined as one timestamp, which is read in UTC (the later local date may
    be the earlier moment); else as they are."""
    if len(tokens) < 3 or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", tokens[0]):
        return tokens
    if not re.fullmatch(r"\d{2}:\d{2}", tokens[1]) or not _ZONE.fullmatch(tokens[2]):
        return tokens
    zone = "Z" if tokens[2] in ("UTC", "GMT") else tokens[2]
    return [f"{tokens[0]}T{tokens[1]}{zone}", *tokens[3:]]


def _shared(readings: Sequence[str]) -> str:
    """What the readings of a date share, whole parts only ("2021-03-04" and "2021-04-03":
    "2021")."""
    parts = [reading.split("-") for reading in readings]
    common = []
    for column in zip(*parts, strict=False):
        if len(set(column)) > 1:
            break
        common.append(column[0])
    return "-".join(common)


_DECADE = re.compile(
    r"(?:^|(?<=[.!?:])\s+|\n\s*)in\s+the\s+((?:1[0-9]|20)[0-9]0)s\b", re.IGNORECASE
)
"""A sentence opening with the decade it speaks of: "In the 1980s, ..."."""


def _decades(text: str) -> list[str]:
    """The decades sentences of ``text`` open with, by their first year ("In the 1980s,":
    "1980"; :func:`decade_of` tells it from a year)."""
    return list(_DECADE.findall(text))


def decade_of(date: str | None, text: str) -> int | None:
    """The decade ``date`` stands for when it is the first year of a decade ``text`` names
    ("1980" beside "in the 1980s"), else None: the date is any year of ten."""
    if date is None or not re.fullmatch(r"\d{3}0", date):
        return None
    return int(date) if re.search(rf"\bthe\s+{date}s\b", text, re.IGNORECASE) else None


_FISCAL = re.compile(r"\bFY\s?['’]?(\d{4}|\d{2})(?:\s?[/-]\s?(\d{4}|\d{2}))?\b")
"""A fiscal year's label: "FY19", "FY2023", "FY 2019/20"."""


def _fiscal_years(heading: str) -> list[str]:
    """The years fiscal-year labels in a heading name ("FY19": "2019"; "FY2019/20": the year
    it ends in, "2020")."""
    found = []
    for match in _FISCAL.finditer(heading):
        last = match.group(2) or match.group(1)
        found.append(last if len(last) == 4 else _century(int(last)))
    return found


_ROMAN = re.compile(r"\b(M{1,2})(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})\b")
_ROMAN_DIGITS = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}


def _roman_years(heading: str) -> list[str]:
    """The years written in Roman numerals in a heading ("Almanac MMXXII": "2022"): three
    letters or more, 1500 to 2100, in capitals."""
    found = []
    for match in _ROMAN.finditer(heading):
        letters = match.group()
        if len(letters) < 3:
            continue
        year = sum(
            -_ROMAN_DIGITS[a] if _ROMAN_DIGITS[a] < _ROMAN_DIGITS[b] else _ROMAN_DIGITS[a]
            for a, b in zip(letters, letters[1:] + "I", strict=True)
        )
        if 1500 <= year <= 2100:
            found.append(str(year))
    return found
