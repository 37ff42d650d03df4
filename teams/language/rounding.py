"""Figures a page says it rounds: a note such as "All figures on this page are rounded to the
nearest hundred" makes each of its other lines that gives a figure say so at its end, and a
value read from such a line spans the rounding ("12,300 visitors" is 12,250 to 12,350), so an
exact figure inside it agrees.

Lines keep their breaks, so ``path:line`` citations hold.

Example:
    >>> mark_rounded("Counts rounded to the nearest ten.\\nIt had 2,310 visitors.")
    'Counts rounded to the nearest ten.\\nIt had 2,310 visitors (rounded to the nearest 10).'
    >>> rounding_of("It had 12,300 visitors (rounded to the nearest 100).")
    100.0
"""

from __future__ import annotations

import re

from teams.language.outdated import before_stop

__all__ = ["mark_rounded", "rounding_of", "without_rounding"]

_STEPS = {"ten": 10, "hundred": 100, "thousand": 1_000, "million": 1_000_000}
_NOTE = re.compile(
    r"\b(?:figures|numbers|counts|totals|amounts|values|prices)\b[^.\n]{0,60}?\brounded\s+"
    r"(?:off\s+)?to\s+the\s+nearest\s+(?P<step>ten|hundred|thousand|million|10|100|1,000)\b",
    re.IGNORECASE,
)
"""A page's note that it rounds its figures: "All figures on this page are rounded to the
nearest hundred"."""
_MARK = re.compile(r"\(rounded to the nearest (?P<step>\d+)\)")
_FIGURE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w.]*\w)")
_HEADING = re.compile(r"^\s*#{1,6}\s")


def mark_rounded(text: str) -> str:
    """``text`` with each line that gives a figure, other than the note, marked with the
    rounding the page's note gives; ``text`` as it is without such a note."""
    lines = text.split("\n")
    notes = {at: found for at, line in enumerate(lines) if (found := _NOTE.search(line))}
    if not notes:
        return text
    word = next(iter(notes.values()))["step"].lower().replace(",", "")
    step = _STEPS.get(word) or int(word)
    marked = f" (rounded to the nearest {step})"
    return "\n".join(
        before_stop(line, marked) if _gives_figure(line) and at not in notes else line
        for at, line in enumerate(lines)
    )


def _gives_figure(line: str) -> bool:
    return not _HEADING.match(line) and _FIGURE.search(line) is not None


def rounding_of(text: str) -> float:
    """The step ``text`` says its figures are rounded to (see :func:`mark_rounded`); 0.0 when
    it says none."""
    found = _MARK.search(text)
    return float(found["step"]) if found else 0.0


def without_rounding(text: str) -> str:
    """``text`` without the rounding marks :func:`mark_rounded` gives (their step is no
    figure of the text)."""
    return _MARK.sub("", text)
