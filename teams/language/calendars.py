"""Dates written in other calendars or markups, rewritten as plain dates before a page's date
is read.

- a year of the Japanese era calendar: "Reiwa 5" is 2023, "Heisei 30" 2018;
- a year of the Buddhist Era, written with its era before or after it: "B.E. 2560" and
  "2560 BE" are 2017 (543 years on);
- a year of the Minguo (Republic of China) calendar: "Minguo 112", "ROC 112", "民國112年" are
  2023 (1911 years on);
- a military date-time group: "DTG 141530Z MAR 23" is "Dated 2023-03-14";
- a year of the Islamic (Hijri) calendar, written with its era: "1445 AH", "AH 1445", "1445
  Hijri" are 2023, the Gregorian year that Hijri year began in;
- a year of the Ethiopian calendar: "2015 E.C." is 2022, the Gregorian year it began in;
- a year of the Hebrew calendar: "5775 AM", "the Hebrew year 5775" are 2014;
- a date in CJK year-month-day form: "2023年3月14日" is 2023-03-14;
- the ``datetime`` attribute of an HTML ``<time>`` element, whatever its visible text: "<time
  datetime="2023-05-19">this spring</time>" is 2023-05-19;
- a day named by a feast of fixed date with its year: "Christmas Day 2020" is 25 December 2020,
  "Midsummer Day 2021" June 2021 (its day differs between countries);
- a date in a page's HTML ``<meta>`` tag of when it was modified or published ('<meta
  name="dcterms.modified" content="2023-10-05">'): "Updated 2023-10-05";
- a date a page's data block gives under a key of when it was modified, published or created
  (a JSON or YAML block, JSON-LD: '"dateModified": "2023-10-05T08:15:00Z"'): "Updated
  2023-10-05";
- a weekday of a month by its place: "the second Tuesday of March 2023" is 2023-03-14, "the
  last Friday of June 2016" 2016-06-24;
- a weekday written before a date: dropped, and where it fits only one reading of a numeric
  date whose day and month could be swapped, that reading ("Tuesday 03/04/2018" is 2018-04-03:
  4 March 2018 was a Sunday);
- an age on a line saying when a page was changed, read against today's date: "Updated 3
  months ago" on 30 November 2026 is "Updated 2026-08-31" ("edited", "posted",
  "reviewed" ... too);
- the capture time of a web-archive address: "web.archive.org/web/20160902114500/..." is
  2016-09-02;
- a date with colons between its parts, as photo metadata writes it: "2022:07:19" is
  2022-07-19;
- a regnal year of a British monarch since Victoria: "in the third year of the reign of King
  Charles III" is "in 2024", the year it began;
- a wiki talk page's signature: "--Harbourwatch (talk) 09:12, 14 August 2023 (UTC)" is "Written
  14 August 2023.";
- a date in C's ``ctime`` form, as a git log writes it: "Tue Apr 12 09:14:03 2016" is
  2016-04-12.

Example:
    >>> plain_dates("Surveyed in Reiwa 5. Updated: 2023年3月14日")
    'Surveyed in 2023. Updated: 2023-03-14'
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from teams.language._numbers import WORD_NUMBERS
from teams.language._vocabulary import MONTHS
from teams.language.amounts import word_ordinal

__all__ = ["plain_dates", "unsigned"]

_ERAS = {"meiji": 1868, "taisho": 1912, "taishō": 1912, "showa": 1926, "shōwa": 1926}
_ERAS |= {"heisei": 1989, "reiwa": 2019}
_ERA_YEAR = re.compile(r"\b(" + "|".join(_ERAS) + r")\s+(\d{1,2})\b(?![.,]\d)", re.IGNORECASE)
_ERA_LAST = {"meiji": 45, "taisho": 15, "taishō": 15, "showa": 64, "shōwa": 64, "heisei": 31}
"""The last year of each closed era (Meiji 45 is 1912, when Taishō began)."""
_BUDDHIST_ERA = r"(?:B\.\s?E\.|(?-i:BE)|Buddhist Era|พ\.ศ\.)"
_BUDDHIST_YEAR = re.compile(
    rf"\b{_BUDDHIST_ERA}\s*(2[4-6]\d\d)\b|\b(2[4-6]\d\d)\s*{_BUDDHIST_ERA}(?!\w)",
    re.IGNORECASE,
)
"""A year of the Buddhist Era: "B.E. 2560", "2560 BE" (2017)."""
_BUDDHIST_OFFSET = 543
_MINGUO_YEAR = re.compile(
    r"\b(?:Minguo|Min-?kuo|R\.?O\.?C\.?(?:\s+year)?)\s*(\d{1,3})\b(?:\s*\(民國\d{1,3}年\))?"
    r"|民國(\d{1,3})年"
)
"""A year of the Minguo calendar: "Minguo 112 (民國112年)", "ROC 112", "民國112年" (2023)."""
_MINGUO_OFFSET = 1911
_DTG = re.compile(
    r"\b(?:DTG\s+)?([0-3]\d)([0-2]\d)([0-5]\d)[A-Z]\s+(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|"
    r"NOV|DEC)\s+(\d{2}|\d{4})\b"
)
"""A military date-time group, day, hour, minute, zone letter, month and year: "141530Z MAR
23"."""
_HIJRI_ERA = r"(?:(?-i:AH)|A\.H\.|Hijri|Hegira|Anno Hegirae)"
_HIJRI_YEAR = re.compile(
    rf"\b{_HIJRI_ERA}\s*(1[2-5]\d\d)\b|\b(1[2-5]\d\d)\s*{_HIJRI_ERA}(?!\w)", re.IGNORECASE
)
"""A year of the Islamic calendar with its era: "1445 AH", "AH 1445", "1445 Hijri"."""
_HIJRI_YEAR_DAYS = 354.367
_HIJRI_EPOCH = 622.54
"""The Hijri calendar's first day (16 July 622) as a Gregorian year and its fraction."""
_ETHIOPIAN_YEAR = re.compile(
    r"\b(\d{4})\s*(?:E\.\s?C\.|(?-i:EC)\b|E\.\s?E\.)"
    r"|\b(?:the\s+)?Ethiopian\s+(?:calendar\s+)?(?:year\s+)?(\d{4})\b",
    re.IGNORECASE,
)
"""A year of the Ethiopian calendar: "2015 E.C.", "the Ethiopian year 2015" (its year begins in
September, seven years after the Gregorian year began: 2015 E.C. began in 2022)."""
_ETHIOPIAN_OFFSET = 7
_HEBREW_YEAR = re.compile(
    r"\b(5[5-9]\d\d)\s*(?:A\.\s?M\.|(?-i:AM)\b|Anno\s+Mundi)"
    r"|\b(?:the\s+)?(?:Hebrew|Jewish)\s+(?:calendar\s+)?(?:year\s+)?(5[5-9]\d\d)\b"
    r"|\b(?:A\.\s?M\.|(?-i:AM)|Anno\s+Mundi)\s*(5[5-9]\d\d)\b",
    re.IGNORECASE,
)
"""A year of the Hebrew calendar: "5775 AM", "the Hebrew year 5775" (its year begins in the
autumn: 5775 began in 2014)."""
_HEBREW_OFFSET = 3761
_CJK_DATE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*日)?")
_TIME_ELEMENT = re.compile(
    r"<time\b[^>]*?\bdatetime\s*=\s*[\"']?(\d{4}-\d{2}(?:-\d{2})?)[^>]*>.*?</time>",
    re.IGNORECASE | re.DOTALL,
)
_FEASTS = {
    "new year's day": "01-01",
    "twelfth night": "01-05",
    "candlemas": "02-02",
    "valentine's day": "02-14",
    "st patrick's day": "03-17",
    "lady day": "03-25",
    "may day": "05-01",
    "midsummer day": "06",
    "midsummer's day": "06",
    "lammas": "08-01",
    "michaelmas": "09-29",
    "halloween": "10-31",
    "all saints' day": "11-01",
    "martinmas": "11-11",
    "christmas eve": "12-24",
    "christmas day": "12-25",
    "boxing day": "12-26",
    "new year's eve": "12-31",
}
"""Feasts of fixed date, as the month and day they fall on (a month alone where the day
differs between countries)."""
_FEAST = re.compile(
    r"\b(" + "|".join(re.escape(f).replace("'", "['’]?") for f in _FEASTS) + r"),?\s+"
    r"(?:of\s+)?(1[0-9]{3}|20[0-9]{2})\b",
    re.IGNORECASE,
)
_MONTHS = [month.capitalize() for month in MONTHS]
_META_DATE = re.compile(
    r"<meta\b[^>]*?\b(?:name|property)\s*=\s*[\"']?(?:dcterms\.(?:modified|created|issued|date)|"
    r"dc\.date[\w.]*|date|last-modified|article:(?:modified|published)_time|og:updated_time)"
    r"[\"']?[^>]*?\bcontent\s*=\s*[\"']?(\d{4}-\d{2}(?:-\d{2})?)[^>]*>",
    re.IGNORECASE,
)
"""An HTML ``<meta>`` tag that dates its page (content before or after its name is not
read: pages write the name first)."""
_DATA_KEY = (
    r"(?:date_?)?(?:last_?)?(?:modified|updated|published|created|issued)(?:_?(?:at|on|date))?"
)
_DATA_DATE = re.compile(
    rf"(?:[\"'](?i:{_DATA_KEY})[\"']|^[ \t]*{_DATA_KEY})\s*[:=]\s*[\"']?(\d{{4}}-\d{{2}}-\d{{2}})"
    r"(?!\d)(?:T[\d:.]*(?:Z|[+-]\d\d:?\d\d)?)?[\"']?",
    re.MULTILINE,
)
"""A key of a data block dating its page, and its ISO date: quoted as in JSON
('"dateModified": "2023-10-05"'), or in lower case opening a line as in YAML ("last_modified:
2023-10-05"); not a line of prose ("Updated: 2023-10-05")."""
_PLACES = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NTH_WEEKDAY = re.compile(
    rf"\bthe\s+({'|'.join(_PLACES)})\s+({'|'.join(_WEEKDAYS)})\s+(?:of|in)\s+"
    rf"({'|'.join(MONTHS)}),?\s+(1[0-9]{{3}}|20[0-9]{{2}})\b",
    re.IGNORECASE,
)
"""A weekday of a month by its place: "the second Tuesday of March 2023"."""
_WEEKDAY_DATE = re.compile(
    rf"\b({'|'.join(_WEEKDAYS)}|(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\.?),?\s+"
    r"(?:the\s+)?(?=\d|(?:" + "|".join(MONTHS) + r")\b)"
    r"(?:(\d{1,2})([/.-])(\d{1,2})\3(\d{4})\b)?",
    re.IGNORECASE,
)
"""A weekday before a date: a numeric one (its parts captured) or one in words or figures."""
_AGO = re.compile(
    r"\b(?:(?:last\s+)?(?:updated|revised|edited|modified|changed|posted|published|written|"
    r"checked|reviewed))\s+(?:about\s+|some\s+)?(a|an|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve|\d{1,3})\s+(day|week|month|year)s?\s+ago\b",
    re.IGNORECASE,
)
"""A page's age on a line saying when it was changed: "Updated 7 years ago"."""
_DAYS_IN = {"day": 1.0, "week": 7.0, "month": 365.2425 / 12, "year": 365.2425}
_BY_LETTERS = {_name.replace("'", ""): _day for _name, _day in _FEASTS.items()}
_COLON_DATE = re.compile(
    r"(?<![\d:])((?:19|20)\d\d):(0[1-9]|1[0-2]):(0[1-9]|[12]\d|3[01])(?![\d:])"
)
"""A date with colons between year, month and day, as photo metadata writes it: "Taken:
2022:07:19 14:05:33"."""
_CTIME = re.compile(
    r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\s+(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+"
    r"(\d{1,2})\s+\d{1,2}:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}\s+|[A-Z]{3,4}\s+)?((?:19|20)\d\d)\b"
)
"""A date in C's ``ctime`` form, as a git log's "Date:" line writes it: "Tue Apr 12 09:14:03
2016" (and "Tue Apr 12 09:14:03 +0100 2016")."""


def _ctime_date(found: re.Match[str]) -> str:
    month = [name[:3] for name in MONTHS].index(found[1].lower()) + 1
    return f"{found[3]}-{month:02d}-{int(found[2]):02d}"


_ARCHIVED = re.compile(
    r"\bweb\.archive\.org/web/((?:19|20)\d\d)(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])\d{0,6}"
    r"(?:[a-z]{2}_)?/\S+"
)
"""A web-archive address, whose path opens with the 14-digit time the copy was made."""


_ACCESSIONS = {
    "Victoria": date(1837, 6, 20), "Edward VII": date(1901, 1, 22), "George V": date(1910, 5, 6),
    "Edward VIII": date(1936, 1, 20), "George VI": date(1936, 12, 11),
    "Elizabeth II": date(1952, 2, 6), "Charles III": date(2022, 9, 8),
}  # fmt: skip
"""When each British monarch since Victoria came to the throne: a regnal year counts from it."""
_REGNAL_YEAR = re.compile(
    r"\b(?:in\s+)?the\s+(?P<nth>\d{1,2}(?:st|nd|rd|th)|[a-z]+(?:-[a-z]+)?)\s+year\s+of\s+"
    r"(?:the\s+reign\s+of\s+)?(?:(?:King|Queen)\s+)?(?P<monarch>"
    + "|".join(sorted(map(re.escape, _ACCESSIONS), key=len, reverse=True))
    + r")\b",
)
"""A regnal year: "in the third year of the reign of King Charles III" (2024, the year it
began)."""


def _regnal_year(found: re.Match[str]) -> str:
    """The Gregorian year in which the regnal year ``found`` began, or the text as written."""
    nth = found["nth"]
    rank = int(nth[:-2]) if nth[0].isdigit() else word_ordinal(nth.lower())
    if rank is None:
        return found[0]
    return f"in {_ACCESSIONS[found['monarch']].year + rank - 1}"


_TALK_SIGNATURE = re.compile(
    r"\s*(?:--|—|–)\s*\[*(?:User:)?[^\n()\[\]|]{1,40}?(?:\|[^\n()\]]{1,40})?\]*\s*"
    r"\(\s*\[*(?:User\s+)?talk\b[^)\n]*\)\s*(?:\d{1,2}:\d{2},?\s*)?"
    r"(?P<date>\d{1,2}\s+[A-Z][a-z]+\s+\d{4})\s*\((?:UTC|GMT)\)",
)
"""A wiki talk page's signature after a comment: "--Harbourwatch (talk) 09:12, 14 August 2023
(UTC)"."""


def unsigned(text: str) -> str:
    """``text`` with each wiki talk-page signature as when the comment was written ("The
    marina has 184 berths. Written 14 August 2023."): the signer is no part of what it says."""
    return _TALK_SIGNATURE.sub(lambda found: f" Written {found['date']}.", text)


def plain_dates(text: str) -> str:
    """``text`` with each date of another calendar or markup (see the module) written as a
    plain date: a year in digits, or an ISO date."""
    text = _ERA_YEAR.sub(_era_year, _REGNAL_YEAR.sub(_regnal_year, unsigned(text)))
    text = _BUDDHIST_YEAR.sub(lambda found: str(int(found[1] or found[2]) - _BUDDHIST_OFFSET), text)
    text = _MINGUO_YEAR.sub(lambda found: str(int(found[1] or found[2]) + _MINGUO_OFFSET), text)
    text = _DTG.sub(_dtg_date, text)
    text = _HIJRI_YEAR.sub(_hijri_year, text)
    text = _ETHIOPIAN_YEAR.sub(lambda found: _later_year(found, _ETHIOPIAN_OFFSET), text)
    text = _HEBREW_YEAR.sub(lambda found: _later_year(found, -_HEBREW_OFFSET), text)
    text = _CJK_DATE.sub(_cjk_date, text)
    text = _TIME_ELEMENT.sub(lambda found: found[1], text)
    text = _META_DATE.sub(lambda found: f"Updated {found[1]}.", text)
    text = _DATA_DATE.sub(lambda found: f"Updated {found[1]} .", text)
    text = _NTH_WEEKDAY.sub(_nth_weekday, text)
    text = _WEEKDAY_DATE.sub(_without_weekday, text)
    text = _AGO.sub(_dated_age, text)
    text = _COLON_DATE.sub(lambda found: "-".join(found.groups()), text)
    text = _CTIME.sub(_ctime_date, text)
    text = _FEAST.sub(_feast_date, text)
    return _ARCHIVED.sub(_archived, text)


def _dtg_date(found: re.Match[str]) -> str:
    """The ISO date of a date-time group; as written when it names no day of that month."""
    year = int(found[5]) + (2000 if len(found[5]) == 2 else 0)
    month = _MONTH_ABBREVIATIONS.index(found[4]) + 1
    try:
        return f"Dated {date(year, month, int(found[1])).isoformat()}"
    except ValueError:
        return found[0]


_MONTH_ABBREVIATIONS = "JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split()


def _era_year(found: re.Match[str]) -> str:
    """The year in digits of a year of a Japanese era; as written when the era had no such
    year."""
    era, year = found[1].lower(), int(found[2])
    if year < 1 or year > _ERA_LAST.get(era, 99):
        return found[0]
    return str(_ERAS[era] + year - 1)


def _hijri_year(found: re.Match[str]) -> str:
    """The Gregorian year a year of the Islamic calendar began in ("1445 AH": 2023)."""
    year = int(found[1] or found[2])
    return str(int(_HIJRI_EPOCH + (year - 1) * _HIJRI_YEAR_DAYS / 365.2425))


def _later_year(found: re.Match[str], offset: int) -> str:
    """The Gregorian year in which the year ``found`` (its one group that matched) began."""
    year = next(group for group in found.groups() if group)
    return str(int(year) + offset)


def _cjk_date(found: re.Match[str]) -> str:
    """A CJK year-month-day date as an ISO date, a year and month as words ("November
    2019"); as written when no such day exists."""
    year, month = int(found[1]), int(found[2])
    day = int(found[3]) if found[3] else 1
    try:
        date(year, month, day)
    except ValueError:
        return found[0]
    return f"{year}-{month:02d}-{day:02d}" if found[3] else f"{_MONTHS[month - 1]} {year}"


def _nth_weekday(found: re.Match[str]) -> str:
    """A weekday of a month by its place as a date in words ("14 March 2023"); as written
    when the month has no such day (a fifth Monday)."""
    place, weekday = _PLACES[found[1].lower()], _WEEKDAYS.index(found[2].lower())
    month, year = MONTHS.index(found[3].lower()) + 1, int(found[4])
    days = [week[weekday] for week in calendar.monthcalendar(year, month) if week[weekday]]
    if place > len(days):
        return found[0]
    return f"{days[place - 1 if place > 0 else -1]} {_MONTHS[month - 1]} {year}"


def _without_weekday(found: re.Match[str]) -> str:
    """The date after a weekday, as an ISO date where the weekday fits only one reading of a
    numeric date whose day and month could be swapped; else as written, without the weekday."""
    if found[2] is None:
        return ""
    one, two, year = int(found[2]), int(found[4]), int(found[5])
    weekday = _weekday_number(found[1])
    fitting = {
        day
        for day_of_month, month in ((one, two), (two, one))
        if (day := _day_or_none(year, month, day_of_month)) is not None and day.weekday() == weekday
    }
    if len(fitting) == 1:
        return fitting.pop().isoformat()
    return found[0][found.start(2) - found.start() :]


def _dated_age(found: re.Match[str]) -> str:
    """A page's age as the date it was changed, counted back from today."""
    word = found[1].lower()
    count = 1 if word in ("a", "an") else int(WORD_NUMBERS.get(word) or word)
    changed = date.today() - timedelta(days=round(count * _DAYS_IN[found[2].lower()]))
    return f"Updated {changed.isoformat()}"


def _weekday_number(name: str) -> int:
    """Monday 0 to Sunday 6, from a weekday's name or its abbreviation."""
    letters = name.rstrip(".").lower()[:3]
    return [weekday[:3] for weekday in _WEEKDAYS].index(letters)


def _day_or_none(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _feast_date(found: re.Match[str]) -> str:
    """A feast with its year as a date in words ("25 December 2020"), or its month where its
    day differs by country ("June 2021")."""
    day = _BY_LETTERS.get(_letters(found[1]))
    if day is None:
        return found[0]
    month = _MONTHS[int(day[:2]) - 1]
    return f"{int(day[3:])} {month} {found[2]}" if day[3:] else f"{month} {found[2]}"


def _letters(name: str) -> str:
    """A feast's name without its apostrophes, in lower case."""
    return re.sub(r"['’]", "", name.lower())


def _archived(found: re.Match[str]) -> str:
    """A web-archive address followed by the day of its copy, as an ISO date."""
    try:
        day = date(int(found[1]), int(found[2]), int(found[3]))
    except ValueError:
        return found[0]
    return f"{found[0]} (archived {day.isoformat()})"
