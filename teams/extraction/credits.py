"""Who wrote a thing, as a list of credits gives it: a track listing's writer in brackets after
each title ("2. The Ferryman's Daughter (Kezia Trott) – 4:12"), and a README's "Authors"
section in the common template ("* **Nia Pellow** - *Initial work* - [npellow](...)"), whose
initial work is the project's (other contributions, such as documentation, are not), and a
library catalogue record's statement of responsibility in ISBD punctuation ("The Kelby almanac
/ written by Constance Holt ; illustrated by Rufus Wain. -- Kelby : Tarn Press, 1921."), whose
writer wrote the title (its illustrator, editor or publisher did not), and a programme's
credit line set apart with middle dots under its title ("Book and lyrics by Hollis Vane · Music
by Marigold Ashe · Directed by Petra Doyle": who wrote the music for it, and who wrote it),
and a book's "Also by" page ("ALSO BY LOWENNA BRAY" over the titles in italics). Each is
``(line, thing, role, who)``, as :mod:`teams.extraction.metadata` reads them.

Example:
    >>> list(track_writers(["1. Low Water (Perran Jolly) – 2:58"]))
    [(1, 'Low Water', 'author', 'Perran Jolly')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from teams.extraction.labelled_records import BOLD_TITLE, Found
from teams.extraction.reorderings import NAME as _NAME

__all__ = [
    "also_by",
    "billing_blocks",
    "catalogue_authors",
    "chart_footers",
    "credit_lines",
    "moral_rights",
    "readme_authors",
    "track_writers",
]

_TRACK = re.compile(
    rf"^\s*(?:\d{{1,3}}[.)]\s+|[-*]\s+)?(?P<title>[^()\s][^()]*?)\s+\((?P<who>{_NAME}"
    rf"(?:\s*(?:/|&|,|and)\s*{_NAME})*)\)\s*[–—-]\s*\d{{1,2}}:\d{{2}}\s*$"
)
"""A track with its writers in brackets and its running time: "2. Title (Y) – 4:12"."""
_WRITERS = re.compile(r"\s*(?:/|&|,|\band\b)\s*")


def track_writers(lines: Sequence[str]) -> Iterator[Found]:
    """Each track's writers (the names in brackets before its running time), of its title."""
    for at, line in enumerate(lines):
        if found := _TRACK.match(line):
            for who in filter(None, _WRITERS.split(found["who"])):
                yield at + 1, found["title"].strip(), "author", who.strip()


_ALSO_BY = re.compile(
    r"^\W*also\s+by\s+(?P<who>[A-Za-z][\w'’.-]*(?:\s+[A-Za-z][\w'’.-]*){1,3})\W*$", re.I
)
"""The heading of a book's list of its writer's other books: "ALSO BY LOWENNA BRAY"."""
_ITALIC_TITLE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*(?!\*)|_(?!_))(?P<title>[^*_]+?)[*_]\s*$")


def also_by(lines: Sequence[str]) -> Iterator[Found]:
    """The books an "Also by" heading lists in italics below it, one to a line, each by the
    writer it names (set in capitals as often as not: "Lowenna Bray")."""
    for at, line in enumerate(lines):
        if (found := _ALSO_BY.match(line)) is None:
            continue
        who = found["who"].title() if found["who"].isupper() else found["who"]
        below = at + 1
        while below < len(lines) and not lines[below].strip():
            below += 1
        while below < len(lines) and (title := _ITALIC_TITLE.match(lines[below])):
            yield below + 1, title["title"].strip(), "author", who
            below += 1


_TITLE = re.compile(r"^#\s+(?P<title>\S.*?)\s*#*\s*$")
_AUTHORS = re.compile(r"^#{2,6}\s+(?:authors?|author\(s\)|maintainers and authors)\s*#*\s*$", re.I)
_CREDIT = re.compile(
    rf"^\s*[-*+]\s+(?:\*\*|__)?(?P<who>{_NAME})(?:\*\*|__)?\s+[-–—]\s+[*_]?(?P<role>[^*_\[\]]+?)"
    r"[*_]?(?:\s+[-–—]\s+.*)?\s*$"
)
_INITIAL = re.compile(r"\b(?:initial|original)\s+(?:work|author|version|code)\b", re.I)


def readme_authors(lines: Sequence[str]) -> Iterator[Found]:
    """The people an "Authors" section credits with the initial work, of the project the
    document's title names."""
    title, inside = "", False
    for at, line in enumerate(lines):
        if (found := _TITLE.match(line)) and not title:
            title = found["title"]
        elif line.startswith("#"):
            inside = bool(_AUTHORS.match(line))
        elif (
            inside and title and (credit := _CREDIT.match(line)) and _INITIAL.search(credit["role"])
        ):
            yield at + 1, title, "author", credit["who"]


_ISBD = re.compile(r"^\s*(?P<title>[^/\n]{3,}?)\s+/\s+(?P<statement>[^/]+?)(?:\.\s+--\s.*)?\s*$")
"""A catalogue record's title proper, then " / " and its statement of responsibility, up to
the next area (". -- ")."""
_WRITTEN_BY = re.compile(rf"^(?i:(?:(?:written|composed)\s+)?by)\s+(?P<who>{_NAME})\.?$")


def catalogue_authors(lines: Sequence[str]) -> Iterator[Found]:
    """A catalogue record's writers (each "by Y" or "written by Y" of its statement of
    responsibility, its parts set apart with " ; "), of its title."""
    for at, line in enumerate(lines):
        if (found := _ISBD.match(line)) is None:
            continue
        for part in found["statement"].split(" ; "):
            if who := _WRITTEN_BY.match(part.strip()):
                yield at + 1, found["title"].strip(), "author", who["who"]


_CREDIT_PART = re.compile(rf"^(?P<role>[A-Za-z][A-Za-z ,&]*?)\s+by\s+(?P<who>{_NAME})\.?$")
_CREDITED_ROLES = {
    "music": "music for {}",
    "score": "music for {}",
    "book": "{}",
    "lyrics": "{}",
    "words": "{}",
    "text": "{}",
    "written": "{}",
    "libretto": "{}",
    "screenplay": "screenplay for {}",
}
"""What a credit's words say its writer wrote ("Music by": the music for the work; "Book and
lyrics by": the work); a director, designer of lights or performer wrote none of it."""
_SEPARATORS = re.compile(r"\s+[·•|]\s+")


def credit_lines(lines: Sequence[str]) -> Iterator[Found]:
    """Each part of a credit line set apart with middle dots (or bars) that names a composer or
    an author, of the title in bold or in a heading right above it."""
    for at in range(1, len(lines)):
        parts = _SEPARATORS.split(lines[at].strip())
        above = lines[at - 1].strip()
        title = BOLD_TITLE.match(above) or re.match(r"^#{1,6}\s+(?P<title>\S.*)$", above)
        if len(parts) < 2 or title is None:
            continue
        for part in parts:
            if found := _CREDIT_PART.match(part):
                words = re.split(r"\s*(?:,|&|\band\b)\s*", found["role"].lower())
                for thing in dict.fromkeys(_CREDITED_ROLES.get(word) for word in words):
                    if thing:
                        yield at + 1, thing.format(title["title"].strip()), "author", found["who"]


_FENCE = re.compile(r"^\s*(?:```|~~~)")
_BILLED = re.compile(
    r"(?<![A-Za-z])(?P<role>[a-z]+(?: [a-z]+)*) by "
    r"(?P<who>[A-Z][A-Z'’.-]+(?: [A-Z][A-Z'’.-]+){1,3})(?![a-z])"
)
"""A billing block's credit: role words in lower case, the name in capitals ("screenplay by
TALWYN ROSEVEAR")."""
_BILLED_TITLE = re.compile(r"[\"“](?P<title>[A-Z][A-Z0-9'’ ,:&-]+)[\"”]")
_TOP_HEADING = re.compile(r"^#\s+(?P<title>[^:#]+?)\s*(?::.*)?$")


def _top_heading(lines: Sequence[str]) -> str:
    """What the page's first top heading names, before a colon ("The Salt Road: poster")."""
    return next((found["title"] for line in lines if (found := _TOP_HEADING.match(line))), "")


def billing_blocks(lines: Sequence[str]) -> Iterator[Found]:
    """Each writer a poster's billing block credits in capitals ("based on the novel by Z
    screenplay by Y produced by W"), in a fenced block: of the title it quotes in capitals
    ("THE SALT ROAD"), else of the page's top heading; the words before "by" say what was
    written (see :data:`_CREDITED_ROLES`): a producer, director or novelist wrote none of it."""
    heading = _top_heading(lines)
    inside, block = False, list[tuple[int, str]]()
    for at, line in enumerate(lines):
        if _FENCE.match(line):
            if inside:
                yield from _billed(block, heading)
            inside, block = not inside, []
        elif inside:
            block.append((at + 1, line))


def _billed(block: Sequence[tuple[int, str]], heading: str) -> Iterator[Found]:
    titles = (found["title"] for _, line in block if (found := _BILLED_TITLE.search(line)))
    quoted = next(titles, "")
    title = quoted.title() if quoted else heading
    for number, line in block if title else ():
        for credit in _BILLED.finditer(line):
            thing = _CREDITED_ROLES.get(credit["role"].split()[-1])
            if thing:
                yield number, thing.format(title), "author", credit["who"].title()


_CHART_CREDIT = re.compile(
    rf"^(?P<label>chart|graphic|graphics|map|infographic|visuali[sz]ation)s?\s*:\s*(?P<who>{_NAME})$",
    re.I,
)
"""A chart's footer field that names its maker: "Chart: Nessa Treloar"."""


def chart_footers(lines: Sequence[str]) -> Iterator[Found]:
    """The maker a chart's footer names ("Chart: Y • Source: Z • Get the data"), its fields set
    apart with bullets or bars, of the chart of what the page's top heading names (before a
    comma: "Boats landed at Kelby harbour, 2014-2023"); the source made no chart."""
    heading = _top_heading(lines)
    subject = heading.split(",")[0].strip()
    for at, line in enumerate(lines):
        parts = _SEPARATORS.split(line.strip())
        for part in parts if subject and len(parts) > 1 else ():
            if found := _CHART_CREDIT.match(part.strip()):
                yield at + 1, f"{found['label'].lower()} of {subject}", "maker", found["who"]


_MORAL_RIGHT = re.compile(
    rf"\bThe\s+right\s+of\s+(?P<who>{_NAME})\s+to\s+be\s+identified\s+as\s+the\s+"
    r"(?P<role>author|illustrator|translator|composer)\s+of\s+this\s+work\b"
)
"""A book's copyright page asserting its writer's moral right: "The right of Y to be
identified as the author of this work has been asserted ..."."""


def moral_rights(lines: Sequence[str]) -> Iterator[Found]:
    """The author whose right to be identified as such a copyright page asserts, of the book
    its top heading names (an illustrator's or a translator's right names no author)."""
    book = _top_heading(lines)
    for at, line in enumerate(lines):
        found = _MORAL_RIGHT.search(line)
        if book and found is not None and found["role"] == "author":
            yield at + 1, book, "author", found["who"]
