"""Dates in the forms they are written in, read to one value before two statements compare.

- in words: "3 April 2021", "3rd of April, 2021", "the third of April 2021", "April 3, 2021",
  "Apr 3rd 2021", "April 2021";
- ISO and year first: "2021-04-03", "2021/04/03", with a time of day: "2021-04-03T17:45Z";
- with the year in words: "the ninth of March, two thousand and twenty-three";
- numeric, day and month in either order: "23/06/1998", "06.23.1998", "03/04/2021";
- the month in Roman numerals, between the day and the year: "14.IX.2022", "3/V/1998";
- the month abbreviated, between the day and the year: "07-NOV-2022";
- an ISO week ("2023-W14", "2023W14"; a day of it: "2023-W14-3"): its day, else its month when
  the week lies in one month, else its year.

Each is labelled as an ISO date ("2021-04-03", "2021-04", or the year alone; a timestamp to the
minute, "2021-04-03T17:45", ending "Z" when its zone was given, read in UTC). A numeric date
whose day and month could be swapped ("03/04/2021": 3 April or 4 March) keeps both readings:
it agrees with another date only when every reading does (:func:`dates_agree`), so an
uncertain reading is never taken for agreement. Where a text's other numeric dates settle its
order ("23/06/1998" is day first), :func:`settle_date_order` writes the reading beside it.

Example:
    >>> [date_at(t, 0)[0].label for t in (["3rd", "of", "April", "2021"], ["2021-04-03"])]
    ['2021-04-03', '2021-04-03']
    >>> date_at(["03/04/2021"], 0)[0].readings
    ('2021-03-04', '2021-04-03')
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, date, datetime

from teams.language._numbers import Value, spelled
from teams.language._vocabulary import MONTHS
from teams.language.amounts import word_ordinal

__all__ = ["NUMERIC_DATE", "date_at", "dates_agree", "month_of", "settle_date_order"]

_CLOCK = r"T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
"""The time of day of an ISO timestamp: "T17:45Z", "T09:10:30+02:00"."""
NUMERIC_DATE = (
    r"\d{4}-\d{1,2}-\d{1,2}(?:"
    + _CLOCK
    + r")?\b|\d{4}[-/]\d{1,2}[-/]\d{1,2}\b|\d{1,2}(?P<sep>[/.-])\d{1,2}(?P=sep)\d{4}\b|"
    r"\d{1,2}(?P<rsep>[/.-])(?:XII|XI|X|IX|VIII|VII|VI|V|IV|III|II|I)(?P=rsep)\d{4}\b|"
    r"\d{4}-?W\d{2}(?:-?[1-7])?\b"
)
"""A date written in figures (for the tokenizer): year first, or day and month first."""
_YEAR_FIRST = re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})")
_TIMESTAMP = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})T(?P<clock>\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(?P<zone>Z|[+-]\d{2}:?\d{2})?"
)
_YEAR_LAST = re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})")
_ROMAN_MONTHS = "I II III IV V VI VII VIII IX X XI XII".split()
_ROMAN_MONTH = re.compile(r"(\d{1,2})([/.-])([IVX]{1,4})\2(\d{4})", re.IGNORECASE)
"""A date with its month in Roman numerals: "14.IX.2022"."""
_MONTH_WORD = re.compile(r"(\d{1,2})([-/.])([A-Za-z]{3,4})\2(\d{4})")
"""A date with its month abbreviated in letters: "07-NOV-2022"."""
_ISO_WEEK = re.compile(r"(\d{4})-?W(\d{2})(?:-?([1-7]))?", re.IGNORECASE)
_ABBREVIATIONS = {month[:3]: n for n, month in enumerate(MONTHS, 1)} | {"sept": 9}


def month_of(token: str) -> int | None:
    """The month a token names: in full ("april"), or abbreviated with a capital ("Apr")."""
    lower = token.lower()
    if lower in MONTHS:
        return MONTHS.index(lower) + 1
    return _ABBREVIATIONS.get(lower) if token[:1].isupper() and len(token) <= 4 else None


def date_at(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """The date written at ``index`` and the tokens it takes, or None (an ambiguous numeric
    date followed by one of its readings, as :func:`settle_date_order` writes it, is that
    reading)."""
    token = tokens[index]
    numeric = (
        _timestamp(token) or _numeric(token) or _roman(token) or _week(token) or _abbreviated(token)
    )
    if numeric is not None:
        settled = tokens[index + 1] if index + 1 < len(tokens) else ""
        if settled in numeric.readings:
            return replace(numeric, label=settled, readings=()), 2
        return numeric, 1
    if month_of(tokens[index]) is not None:
        return _month_first(tokens, index)
    return _day_first(tokens, index)


def _timestamp(token: str) -> Value | None:
    """An ISO timestamp ("2021-03-04T17:45Z") to the minute; in UTC when its zone is given."""
    found = _TIMESTAMP.fullmatch(token)
    if found is None:
        return None
    try:
        when = datetime.fromisoformat(f"{found['date']}T{found['clock']}{found['zone'] or ''}")
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    label = when.strftime("%Y-%m-%dT%H:%M") + ("Z" if when.tzinfo is not None else "")
    return Value("date", "date", float(when.year), label=label, words=(token.lower(),))


def _numeric(token: str) -> Value | None:
    """A date in figures; both readings when day and month could be swapped."""
    first = _YEAR_FIRST.fullmatch(token)
    if first is not None:
        year, month, day = (int(part) for part in first.groups())
        readings = [(year, month, day)]
    else:
        last = _YEAR_LAST.fullmatch(token)
        if last is None:
            return None
        one, two, year = (int(part) for part in last.groups())
        readings = [(year, two, one), (year, one, two)]  # day first, then month first
    valid = sorted({_iso(*reading) for reading in readings if _valid(*reading)})
    if not valid:
        return None
    label = valid[0] if len(valid) == 1 else token
    number = float(readings[0][0])
    ambiguous = tuple(valid) if len(valid) > 1 else ()
    return Value("date", "date", number, label=label, words=(token.lower(),), readings=ambiguous)


def _roman(token: str) -> Value | None:
    """A date with its month in Roman numerals ("14.IX.2022"): one reading, day first."""
    found = _ROMAN_MONTH.fullmatch(token)
    if found is None or found[3].upper() not in _ROMAN_MONTHS:
        return None
    day, month, year = int(found[1]), _ROMAN_MONTHS.index(found[3].upper()) + 1, int(found[4])
    if not _valid(year, month, day):
        return None
    label = _iso(year, month, day)
    return Value("date", "date", float(year), label=label, words=(token.lower(),))


def _abbreviated(token: str) -> Value | None:
    """A date with its month abbreviated between the day and the year ("07-NOV-2022",
    "7-Nov-2022"): one reading, day first."""
    found = _MONTH_WORD.fullmatch(token)
    month = month_of(found[3]) if found is not None else None
    if found is None or month is None or not _valid(int(found[4]), month, int(found[1])):
        return None
    label = _iso(int(found[4]), month, int(found[1]))
    return Value("date", "date", float(found[4]), label=label, words=(token.lower(),))


def _week(token: str) -> Value | None:
    """An ISO week date ("2023-W14"), to the precision it is sure of: the day when it gives
    one, else the month its seven days lie in, else the year (a week across two years: None)."""
    found = _ISO_WEEK.fullmatch(token)
    if found is None or not 1000 <= int(found[1]) <= 2100:
        return None
    year, week = int(found[1]), int(found[2])
    try:
        days = [date.fromisocalendar(year, week, day) for day in range(1, 8)]
    except ValueError:
        return None
    if found[3]:
        label = days[int(found[3]) - 1].isoformat()
    elif days[0].month == days[-1].month and days[0].year == days[-1].year:
        label = days[0].isoformat()[:7]
    elif days[0].year == days[-1].year:
        label = str(year)
    else:
        return None  # a week across two years: no part of its date is sure
    return Value("date", "date", float(label[:4]), label=label, words=(token.lower(),))


_IN_TEXT = re.compile(r"(?<![\d/.-])" + _YEAR_LAST.pattern + r"(?![\d/.-]?\d)")


def settle_date_order(text: str) -> str:
    """``text`` with each numeric date whose day and month could be swapped followed by its
    reading as an ISO date in brackets, when the text's numeric dates can all be read in one
    order only ("23/06/1998" beside "02/05/2016": day first); else ``text`` as it is."""
    found = list(_IN_TEXT.finditer(text))
    dates = [(int(m.group(1)), int(m.group(2)), int(m.group(3))) for m in found]
    orders = [
        order
        for order in ((1, 0), (0, 1))  # day first, then month first
        if all(_valid(year, parts[order[1]], parts[order[0]]) for *parts, year in dates)
    ]
    if len(orders) != 1:
        return text
    day, month = orders[0]
    out, at = [], 0
    for match, (*parts, year) in zip(found, dates, strict=True):
        if parts[0] != parts[1] and max(parts) <= 12:
            out.append(text[at : match.end()] + f" ({_iso(year, parts[month], parts[day])})")
            at = match.end()
    return "".join(out) + text[at:]


def _valid(year: int, month: int, day: int) -> bool:
    return 1000 <= year <= 2100 and 1 <= month <= 12 and 1 <= day <= 31


def _iso(year: int, month: int, day: int | None = None) -> str:
    return f"{year}-{month:02d}" + (f"-{day:02d}" if day else "")


def _month_first(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """ "April 3, 2021", "April 3rd 2021", "April 2021"."""
    month = month_of(tokens[index])
    assert month is not None
    day = _day(tokens[index + 1]) if index + 1 < len(tokens) else None
    at = index + 1 + (day is not None)
    return _dated(tokens, index, at, month, day)


def _day_first(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """ "3 April 2021", "3rd of April 2021", "third of April, 2021"."""
    day = _day(tokens[index])
    if day is None:
        return None
    at = index + 1
    at += at < len(tokens) and tokens[at].lower() == "of"
    month = month_of(tokens[at]) if at < len(tokens) else None
    if month is None or (tokens[index].isalpha() and tokens[index + 1].lower() != "of"):
        return None
    return _dated(tokens, index, at + 1, month, day)


def _dated(
    tokens: list[str], start: int, at: int, month: int, day: int | None
) -> tuple[Value, int] | None:
    """The date from ``start`` whose year is written at ``at``, in figures or in words (none
    there: no date)."""
    read = _year_at(tokens, at)
    if read is None:
        return None
    year, used = read
    words = tuple(t.lower() for t in tokens[start : at + used])
    label = _iso(year, month, day)
    return Value("date", "date", float(year), label=label, words=words), at + used - start


def _year_at(tokens: list[str], at: int) -> tuple[int, int] | None:
    """The year at ``at`` and the tokens it takes: four digits, or words ("two thousand and
    twenty-three", "nineteen ninety-eight") not followed by a word they could count."""
    token = tokens[at] if at < len(tokens) else ""
    if token.isdigit() and len(token) == 4:
        return int(token), 1
    read = spelled(tokens, at) if token.isalpha() or "-" in token else None
    if read is None or read[2] < 2 or not 1000 <= read[0] <= 2100 or read[0] % 1:
        return None
    after = tokens[at + read[2]] if at + read[2] < len(tokens) else ""
    if after.isalpha() and after.lower() not in _AFTER_YEAR:
        return None  # "March two thousand runners": a count
    return int(read[0]), read[2]


_AFTER_YEAR = frozenset("and or but the a an at in on by to for from of with as when".split())


def _day(token: str) -> int | None:
    """A day of the month: "3", "03", "3rd", "third", "twenty-first"."""
    plain = re.sub(r"(?<=\d)(?:st|nd|rd|th)$", "", token.lower())
    number = int(plain) if plain.isdigit() and len(plain) <= 2 else word_ordinal(plain)
    return number if number is not None and 1 <= number <= 31 else None


def dates_agree(first: Value, second: Value) -> bool:
    """Whether two dates say the same, to the precision both give ("2021" and "2021-04-03"
    agree); an ambiguous date agrees only when each of its readings does, or with the same
    figures written the same way."""
    if first.readings and first.words == second.words:
        return True
    return all(
        a[: min(len(a), len(b))] == b[: min(len(a), len(b))]
        for a in first.readings or (first.label,)
        for b in second.readings or (second.label,)
    )
