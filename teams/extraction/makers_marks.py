"""Who made a thing, as the marks left on the work say it, with no verb: a print's lettering,
where a name stands before a Latin abbreviation of what that hand did ("H. Bolitho delin. ·
E. Tonkin sculp.": Tonkin engraved the plate, Bolitho drew it), a needlework inscription
("Loveday Hendra her work aged 11 1824"), and a stamp catalogue's issue, whose bracketed line
says in the catalogue's abbreviations who designed it ("(Des Morwenna Trago. Eng Jory
Lanyon)": the engraver and the printer designed nothing). Each is ``(line, thing, role, who)``, as
:mod:`teams.extraction.metadata` reads them.

A print's thing is the title a line of its record opens with in bold ("**Kelby harbour from the
west**, line engraving on paper, 1824."); an inscription's, what the sentence before it says
"This ..." of ("This linen sampler was worked in coloured silks ...").

Example:
    >>> record = ["**Salt pans**, etching", 'Lettered: "Ada Holm delin. Cai Rees sculp."']
    >>> list(print_lettering(record))
    [(2, 'Salt pans', 'draughtsman', 'Ada Holm'), (2, 'Salt pans', 'maker', 'Cai Rees')]
    >>> list(needlework_marks(["This linen sampler was worked:", "> Ann Rowe her work 1801"]))
    [(2, 'linen sampler', 'maker', 'Ann Rowe')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from teams.extraction.labelled_records import Found

__all__ = ["needlework_marks", "print_lettering", "stamp_issues"]

_HAND = r"(?:[A-Z]\.\s?)*[A-Z][\w'’-]+(?:\s+(?:[A-Z]\.\s?)*[A-Z][\w'’-]+){0,3}"
"""A name as a print's lettering gives it: "E. Tonkin", "J.M.W. Turner", "Hedley Vosper"."""
_LATIN = {
    "sculp": "maker",
    "sculpt": "maker",
    "sculpsit": "maker",
    "sc": "maker",
    "fecit": "maker",
    "fec": "maker",
    "f": "maker",
    "delin": "draughtsman",
    "delt": "draughtsman",
    "del": "draughtsman",
    "delineavit": "draughtsman",
    "pinx": "painter",
    "pinxit": "painter",
    "pinxt": "painter",
    "inv": "designer",
    "invenit": "designer",
    "excud": "publisher",
    "exc": "publisher",
    "excudit": "publisher",
}
"""What each abbreviation says its hand did: the engraver (sculpsit) or the maker (fecit) made
the print; the draughtsman drew the design, the painter painted the picture it copies, the
publisher published it."""
_MARK = re.compile(
    rf"(?P<who>{_HAND})\s+(?P<latin>{'|'.join(sorted(_LATIN, key=len, reverse=True))})\.?"
    r"(?=[\s\"”'’·,;|)]|$)"
)
_BOLD_OPENING = re.compile(r"^\s*(?:\*\*|__)(?P<title>[^*_]+?)(?:\*\*|__)\s*,")
"""A record's line that opens with the work's title in bold, then what it is."""
_BLOCK_BREAK = re.compile(r"^\s*#{1,6}\s")


def print_lettering(lines: Sequence[str]) -> Iterator[Found]:
    """Each hand a print's quoted lettering names before its Latin abbreviation, with what it
    did, of the print the nearest title in bold above names (up to a heading)."""
    title = ""
    for n, line in enumerate(lines):
        if _BLOCK_BREAK.match(line):
            title = ""
        elif opening := _BOLD_OPENING.match(line):
            title = opening["title"].strip()
        if not title:
            continue
        for quoted in re.findall(r"[\"“](.+?)[\"”]", line):
            for mark in _MARK.finditer(quoted):
                yield n + 1, title, _LATIN[mark["latin"]], mark["who"].strip()


_NEEDLEWORK = re.compile(
    r"^\s*(?:>\s*)*(?P<who>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){1,3})\s+(?:her|his)\s+work\b"
)
"""A needlework's inscription: "Loveday Hendra her work aged 11 1824"."""
_THIS = re.compile(r"\b(?:This|The)\s+(?P<thing>(?:[a-z]+\s+){0,2}?[a-z]+)\s+(?:was|is)\b")
"""What a sentence says "This ... was" of: "This linen sampler was worked ..."."""


def needlework_marks(lines: Sequence[str]) -> Iterator[Found]:
    """The maker an inscription names before "her work" (or "his work"), of the thing the
    nearest text above it says "This ... was" of."""
    for n, line in enumerate(lines):
        if (found := _NEEDLEWORK.match(line)) is None:
            continue
        if (said := _nearest_above(_THIS, lines, n, 4)) is not None:
            yield n + 1, said["thing"], "maker", found["who"]


_ISSUE_TITLE = re.compile(r"(?<![*\w])\*(?P<title>[A-Z][^*]+?)\*(?!\*)")
"""A stamp issue's title in italics on its entry's line: "1937 (1 Mar). *Harbour Views*."."""
_DESIGNED = re.compile(
    r"^\s*\((?:[^()]*?\.\s+)?Des(?:igned)?\.?\s+(?:by\s+)?(?P<who>[A-Z][\w'’.-]*"
    r"(?:\s+(?:[A-Z][\w'’-]*|de|van|von|da))*?)\s*(?:[.;,]\s+[A-Z][\w ]*|\.)?\s*\)?\s*$"
)
"""A catalogue's line of who made an issue, in brackets: "(Des Morwenna Trago. Eng Jory
Lanyon)" or "(Des by Y)"."""


def stamp_issues(lines: Sequence[str]) -> Iterator[Found]:
    """The designer a stamp catalogue's bracketed "Des" line names, of the issue whose title
    the entry's line above sets in italics (two lines at most above it)."""
    for n, line in enumerate(lines):
        if (found := _DESIGNED.match(line)) is None:
            continue
        if (titled := _nearest_above(_ISSUE_TITLE, lines, n, 3)) is not None:
            yield n + 1, titled["title"].strip(), "designer", found["who"]


def _nearest_above(
    pattern: re.Pattern[str], lines: Sequence[str], n: int, within: int
) -> re.Match[str] | None:
    """The match of ``pattern`` in the nearest of the ``within`` lines above line ``n``, or
    None."""
    found = (pattern.search(text) for text in reversed(lines[max(0, n - within) : n]))
    return next((match for match in found if match), None)
