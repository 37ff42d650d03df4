"""Which date reader reads the dates of prose better: cadre's own (``teams.language``) or
dateparser (the maintained library issue 47 names), where it is installed.

Each case is a sentence and the one value a careful reader takes from it: a full date, a month
or a year where that is all the text gives, and ``None`` for a numeric date either order reads
("03/04/2020": a day there would be a guess that could confirm a different reading). A reader
is **right** when it gives that value, **wrong** when it gives another (a day the text does not
give counts as wrong: it could confirm a different date), **silent** when it gives none.

Run: ``.venv/bin/python bench/date_readers.py`` (dateparser is not a dependency: install it
beside to compare, ``pip install dateparser``); prints a Markdown table and the time per
sentence.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from teams.language.relative_dates import resolve_relative_dates
from teams.language.values import values_in

CASES: list[tuple[str, str | None]] = [
    ("The bridge opened on 21 March 2020.", "2020-03-21"),
    ("The bridge opened on March 21, 2020.", "2020-03-21"),
    ("The bridge opened on 21/03/2020.", "2020-03-21"),
    ("The bridge opened on 03/21/2020.", "2020-03-21"),
    ("The bridge opened on 2020-03-21.", "2020-03-21"),
    ("The bridge opened on the twenty-first of June 1987.", "1987-06-21"),
    ("The bridge opened on 21.06.1987.", "1987-06-21"),
    ("The bridge opened on 1st of May, 2015.", "2015-05-01"),
    ("The bridge opened on Sept. 3, 2019.", "2019-09-03"),
    ("The bridge opened on 3rd September 2019.", "2019-09-03"),
    ("The bridge opened in May 2015.", "2015-05"),
    ("The bridge opened on 03/04/2020.", None),
    ("The hall was built in 1931. Four years later it was re-roofed.", "1935"),
]
"""Sentences and the value they give (for the last, the date of the second event)."""


def cadre_reader(sentence: str) -> str | None:
    """The last date cadre reads in ``sentence`` (relative dates resolved first); a numeric
    date either order reads is kept as written, which is no value."""
    dates = [v.label for v in values_in(resolve_relative_dates(sentence)) if v.kind == "date"]
    value = dates[-1] if dates else None
    return value if value is None or (value[:1].isdigit() and "/" not in value) else None


def dateparser_reader(sentence: str) -> str | None:
    """The last date dateparser's search finds in ``sentence``, as far as it says: the day
    left out when the text gives none would be a guess, but dateparser fills it in."""
    from dateparser.search import search_dates

    found = search_dates(sentence, languages=["en"]) or []
    return found[-1][1].date().isoformat() if found else None


def measure(reader: Callable[[str], str | None]) -> tuple[int, int, int, float, list[str]]:
    """Right, wrong and silent cases, seconds per sentence, and the wrong readings."""
    right = wrong = silent = 0
    misread = []
    began = time.perf_counter()
    for sentence, expected in CASES:
        got = reader(sentence)
        if got == expected:
            right += 1
        elif got is None:
            silent += 1
        else:
            wrong += 1
            misread.append(f"{sentence!r}: {got} (expected {expected})")
    return right, wrong, silent, (time.perf_counter() - began) / len(CASES), misread


def main() -> int:
    readers: dict[str, Callable[[str], str | None]] = {"cadre": cadre_reader}
    try:
        import dateparser

        readers[f"dateparser {dateparser.__version__}"] = dateparser_reader
    except ImportError:
        print("dateparser is not installed: cadre's reader alone", file=sys.stderr)
    print("| reader | right | wrong | silent | ms per sentence |")
    print("|---|---:|---:|---:|---:|")
    wrong_readings = {}
    for name, reader in readers.items():
        reader(CASES[0][0])  # imports and caches outside the timing
        right, wrong, silent, seconds, misread = measure(reader)
        print(f"| {name} | {right} | {wrong} | {silent} | {seconds * 1000:.2f} |")
        wrong_readings[name] = misread
    for name, misread in wrong_readings.items():
        for line in misread:
            print(f"- {name}: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
