"""The values a sentence states, normalised: numbers in digits or words with their units,
dates, categorical values (colours, materials, fuels) and the words that carry them.

"six lamps" and "6 lamps" are the same count; "3 km" and "3000 metres" the same length;
"March 1881" is a date in 1881; "red" is a colour. Figures in different units agree within the
precision they are written with ("40 feet" and "about 12 metres"); in the same unit they must
be equal.

Example:
    >>> [v.label for v in values_in("The bridge is 1.2 km long and opened in March 1881.")]
    ['1.2 km', '1881-03']
    >>> values_in("It has eleven arches.")[0].number
    11.0
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from teams.research.text import STOPWORDS, singular

__all__ = ["CATEGORIES", "Value", "stated_date", "value_words", "values_agree", "values_in"]

_SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORD_NUMBERS = {word: float(n) for n, word in enumerate(_SMALL)} | {
    word: float(20 + 10 * n) for n, word in enumerate(_TENS)
}
_SCALES = {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "dozen": 12.0}

_UNITS: dict[str, tuple[str, float]] = {}
for _dimension, _table in {
    "length": {
        "mm millimetre millimetres millimeter millimeters": 0.001,
        "cm centimetre centimetres centimeter centimeters": 0.01,
        "m metre metres meter meters": 1.0,
        "km kilometre kilometres kilometer kilometers": 1000.0,
        "in inch inches": 0.0254,
        "ft foot feet": 0.3048,
        "yd yard yards": 0.9144,
        "mi mile miles": 1609.344,
    },
    "mass": {
        "g gram grams gramme grammes": 0.001,
        "kg kilogram kilograms kilo kilos": 1.0,
        "t tonne tonnes ton tons": 1000.0,
        "lb lbs pound pounds": 0.45359237,
        "oz ounce ounces": 0.028349523125,
    },
    "duration": {
        "ms millisecond milliseconds": 0.001,
        "s sec secs second seconds": 1.0,
        "min mins minute minutes": 60.0,
        "h hr hrs hour hours": 3600.0,
        "day days": 86400.0,
        "week weeks": 604800.0,
        "year years": 31557600.0,
    },
    "volume": {
        "ml millilitre millilitres milliliter milliliters": 0.001,
        "l litre litres liter liters": 1.0,
        "gallon gallons": 3.785411784,
    },
    "area": {"hectare hectares ha": 10000.0, "acre acres": 4046.8564224},
    "data": {
        "byte bytes": 1.0,
        "kb kib kilobyte kilobytes": 1024.0,
        "mb mib megabyte megabytes": 1024.0**2,
        "gb gib gigabyte gigabytes": 1024.0**3,
    },
    "share": {"% percent per-cent": 1.0},
}.items():
    for _names, _factor in _table.items():
        _UNITS |= {name: (_dimension, _factor) for name in _names.split()}

CATEGORIES: dict[str, str] = {}
"""Categorical value words and their category: two different values of one category disagree."""
for _category, _words in {
    "colour": "red green blue yellow black white grey gray brown orange purple pink violet "
    "crimson scarlet maroon navy turquoise silver golden beige",
    "material": "slate copper stone brick wood wooden timber steel iron concrete glass marble "
    "granite sandstone limestone tin lead thatch bronze brass aluminium aluminum clay tile "
    "tiles plastic oak pine",
    "fuel": "coal diesel petrol gasoline kerosene paraffin peat hydrogen electricity electric "
    "steam battery charcoal oil gas lpg propane methane biodiesel ethanol solar wind nuclear",
}.items():
    CATEGORIES |= dict.fromkeys(_words.split(), _category)

_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_CLOCK = re.compile(r"(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?|(\d{1,2}):(\d{2})\b", re.IGNORECASE)
_TOKEN = re.compile(
    r"\d{1,2}(?::\d{2})?\s*[ap]\.?m\b\.?|\d{1,2}:\d{2}\b|\d+(?:,\d{3})*(?:\.\d+)?|"
    r"[A-Za-z]+(?:-[A-Za-z]+)*|%",
    re.IGNORECASE,
)
_DATE_LEAD = frozenset("in since from of by until till on year around about circa c".split())
_APPROXIMATE = frozenset("about around approximately roughly nearly almost some circa".split())


@dataclass(frozen=True)
class Value:
    """One value a sentence states.

    ``kind`` is "quantity" (``key`` the dimension, ``number`` in base units), "count" (``key``
    what is counted), "date" (``key`` "date", ``number`` the year) or a category ("colour"...,
    ``key`` the value word). ``unit`` is how the figure was written; ``precision`` how far its
    rounding may be off, in base units; ``words`` the tokens it was read from.
    """

    kind: str
    key: str
    number: float = 0.0
    unit: str = ""
    precision: float = 0.0
    label: str = ""
    words: tuple[str, ...] = ()


def _digits(token: str) -> tuple[float, float] | None:
    """A digit token's value and rounding precision, or None ("1,2" is not a number)."""
    plain = token.replace(",", "")
    if "," in token and not re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token):
        return None
    try:
        number = float(plain)
    except ValueError:
        return None
    if "." in plain:
        return number, 0.5 * 10 ** -len(plain.split(".")[1])
    zeros = len(plain) - len(plain.rstrip("0")) if number else 0
    return number, 0.5 * 10**zeros


def _spelled(tokens: list[str], start: int) -> tuple[float, float, int] | None:
    """A number in words from ``tokens[start]``: its value, precision and token count."""
    total, current, used, smallest = 0.0, 0.0, 0, 1.0
    index = start
    while index < len(tokens):
        word = tokens[index].lower()
        parts = word.split("-")
        if all(part in _WORD_NUMBERS for part in parts) and len(parts) <= 2:
            current += sum(_WORD_NUMBERS[part] for part in parts)
            smallest = 1.0 if parts[-1] not in _TENS else 10.0
        elif word in _SCALES and (used or word == "dozen"):
            scale = _SCALES[word]
            current = (current or 1.0) * scale
            smallest = scale
            if scale >= 1000:
                total, current = total + current, 0.0
        elif (
            word == "and"
            and used
            and index + 1 < len(tokens)
            and tokens[index + 1].lower() in (_WORD_NUMBERS)
        ):
            pass
        else:
            break
        index += 1
        used = index - start
    if not used:
        return None
    return total + current, 0.5 * smallest, used


def _year(tokens: list[str], index: int, number: float) -> bool:
    """A four-digit figure read as a year: after "in", "since"..., or not before a unit or a
    counted plural ("1902" in "founded in 1902", not in "1500 metres" or "2000 books")."""
    token = tokens[index]
    if not (token.isdigit() and len(token) == 4 and 1000 <= number <= 2100):
        return False
    if _unit_at(tokens, index + 1):
        return False
    before = tokens[index - 1].lower() if index else ""
    after = tokens[index + 1].lower() if index + 1 < len(tokens) else ""
    return before in _DATE_LEAD or not (after.endswith("s") and after not in STOPWORDS)


def values_in(text: str) -> list[Value]:
    """The values ``text`` states, in order."""
    tokens = _TOKEN.findall(text)
    found: list[Value] = []
    index = 0
    while index < len(tokens):
        read = _word_value(tokens, index) or _figure_value(tokens, index)
        if read is None:
            index += 1
            continue
        found.append(read[0])
        index += read[1]
    return found


def _word_value(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """A value named in words at ``index`` (a colour, a date, a month, a weekday, a time) and
    the tokens it takes, or None."""
    token, lower = tokens[index], tokens[index].lower()
    before = tokens[index - 1].lower() if index else ""
    if lower in CATEGORIES and not (lower == "lead" and before not in ("of", "in")):
        return Value(CATEGORIES[lower], lower, label=lower, words=(lower,)), 1
    if lower in _MONTHS and index + 1 < len(tokens):
        date = _month_date(tokens, index)
        if date is not None:
            return date
    if _named_day(token, before):
        kind = "month" if lower in _MONTHS else "weekday"
        return Value(kind, lower.removesuffix("s"), label=token, words=(lower,)), 1
    clock = _CLOCK.fullmatch(token)
    if clock is not None:
        return _time_of_day(clock, token), 1
    if token.isdigit() and index + 2 < len(tokens) and tokens[index + 1].lower() in _MONTHS:
        return _month_date([tokens[index + 1], token, *tokens[index + 2 :]], 0)
    return None


def _figure_value(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """A figure at ``index`` (a year, a count, a quantity with its unit) and the tokens it
    takes, or None."""
    read = _number_at(tokens, index)
    if read is None:
        return None
    number, precision, used = read
    if used == 1 and _year(tokens, index, number):
        token = tokens[index]
        return Value("date", "date", number, label=token, words=(token,)), 1
    value, extra = _measure(tokens, index, used, number, precision)
    return value, used + extra


_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_MONTH_LEAD = frozenset("in of during until till since by early late mid from to".split())


def _named_day(token: str, before: str) -> bool:
    """A month named without a year ("in June"; "May" only after "in", "by"...) or a day of
    the week ("on Mondays"), written with a capital."""
    lower = token.lower()
    if not token[:1].isupper():
        return False
    if lower in _MONTHS:
        return lower != "may" or before in _MONTH_LEAD
    return lower.removesuffix("s") in _WEEKDAYS


def _time_of_day(clock: re.Match[str], token: str) -> Value:
    """``17:00``, ``5 pm`` or ``5:30 p.m.`` as a time of day, labelled ``HH:MM``."""
    if clock.group(3):
        hour, minute = int(clock.group(1)) % 12, int(clock.group(2) or 0)
        hour += 12 if clock.group(3).lower() == "p" else 0
    else:
        hour, minute = int(clock.group(4)), int(clock.group(5))
    label = f"{hour:02d}:{minute:02d}"
    return Value("time", "time", hour * 60.0 + minute, label=label, words=(token.lower(),))


def _number_at(tokens: list[str], index: int) -> tuple[float, float, int] | None:
    token = tokens[index]
    if token[0].isdigit():
        read = _digits(token)
        return None if read is None else (*read, 1)
    if token.lower() in ("a", "an") and index + 1 < len(tokens):
        following = tokens[index + 1].lower()
        if following in ("dozen", "hundred", "thousand", "million"):
            return _SCALES[following], 0.5 * _SCALES[following], 2
        return None
    return _spelled(tokens, index)


def _unit_at(tokens: list[str], index: int) -> tuple[str, float, str] | None:
    if index >= len(tokens):
        return None
    word = tokens[index].lower()
    if word in _UNITS and not (word == "in" and tokens[index] == "in"):
        return (*_UNITS[word], word)
    return None


def _measure(
    tokens: list[str], index: int, used: int, number: float, precision: float
) -> tuple[Value, int]:
    """The figure at ``index`` with its unit or counted noun, and the tokens they take."""
    written = " ".join(tokens[index : index + used])
    approximate = index and tokens[index - 1].lower() in _APPROXIMATE
    unit = _unit_at(tokens, index + used)
    if unit is not None:
        dimension, factor, name = unit
        spread = precision * factor * (2 if approximate else 1)
        return (
            Value(
                "quantity",
                dimension,
                number * factor,
                unit=name,
                precision=spread,
                label=f"{written} {tokens[index + used]}",
                words=(*(t.lower() for t in tokens[index : index + used + 1]),),
            ),
            1,
        )
    noun = tokens[index + used].lower() if index + used < len(tokens) else ""
    counted = noun if noun.replace("-", "").isalpha() and noun not in _NOT_COUNTED else ""
    words = tuple(t.lower() for t in tokens[index : index + used])
    label = f"{written} {counted}".strip()
    return Value("count", singular(counted), number, label=label, words=words), 0


_NOT_COUNTED = STOPWORDS | {"but", "and", "or"}


def _month_date(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """``March 1881`` or ``March 3, 1881`` at ``index`` (``3 March 1881`` is read as the
    latter): the date and the tokens it takes."""
    month = _MONTHS.index(tokens[index].lower()) + 1
    rest = tokens[index + 1 : index + 3]
    day = ""
    if rest and rest[0].isdigit() and len(rest[0]) <= 2 and len(rest) > 1:
        day, rest = rest[0], rest[1:]
    if not rest or not (rest[0].isdigit() and len(rest[0]) == 4):
        return None
    year = rest[0]
    label = f"{year}-{month:02d}" + (f"-{int(day):02d}" if day else "")
    used = 2 + bool(day)
    words = tuple(t.lower() for t in tokens[index : index + used])
    return Value("date", "date", float(year), label=label, words=words), used


def values_agree(first: Value, second: Value) -> bool:
    """Whether two values of the same kind and key say the same thing.

    Figures in the same unit must be equal; in different units they agree within the coarser
    rounding of the two. Dates agree when their common part (year, then month) is the same.
    """
    if first.kind == "date":
        common = min(len(first.label), len(second.label), 7)
        return first.label[:common] == second.label[:common]
    if first.kind == "time":
        return first.number == second.number
    if first.kind not in ("quantity", "count"):
        return first.key == second.key
    if first.kind == "count" or first.unit == second.unit:
        return math.isclose(first.number, second.number, rel_tol=1e-9)
    spread = max(first.precision, second.precision)
    return abs(first.number - second.number) <= spread * (1 + 1e-9)


def value_words(values: Sequence[Value]) -> set[str]:
    """The words the values were read from: not part of what a sentence is about."""
    return {word for value in values for word in value.words}


_DATED = re.compile(
    r"\b(?:updated|revised|published|written|compiled|issued|dated|edition|as of|"
    r"last (?:checked|reviewed|updated))\b\W+(?:(?:in|on)\s+)?(?:(" + "|".join(_MONTHS) + r")\s+)?"
    r"(?:\d{1,2},?\s+)?(1[0-9]{3}|20[0-9]{2})\b",
    re.IGNORECASE,
)
_HEADING_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")


def stated_date(heading: str, text: str) -> str | None:
    """When a passage says it was written: a year in its heading ("Survey of 2019"), else a
    dating phrase in its words ("Updated in March 2021", "2015 edition"), as an ISO date."""
    years: list[str] = _HEADING_YEAR.findall(heading)
    if years:
        return max(years)
    found: list[str] = [
        f"{m.group(2)}-{_MONTHS.index(m.group(1).lower()) + 1:02d}" if m.group(1) else m.group(2)
        for m in _DATED.finditer(text)
    ]
    found += re.findall(r"\b(1[0-9]{3}|20[0-9]{2})\s+edition\b", text, re.IGNORECASE)
    return max(found) if found else None
