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

__all__ = ["also_by", "catalogue_authors", "credit_lines", "readme_authors", "track_writers"]

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
