"""Who wrote a thing, as the header of a file format names its writer: an Emacs Lisp library's
``;; Author:`` line under its ``;;; name.el ---`` line, a Vim runtime file's ``" Original
Author:`` (its ``" Maintainer:`` now keeps it), an R package's ``DESCRIPTION`` (a
``person()`` of ``Authors@R`` whose roles hold ``"aut"``), an SPDX document's
``PackageOriginator``, an EPUB's ``dc:creator`` of role ``aut`` (an illustrator's, ``ill``,
wrote nothing), a Project Gutenberg e-book's "EBook of X, by Y" line, an ABC tune's ``C:``
(composer) under its ``T:`` (title), a Pandoc title block ("% Title", "% Author", "% Date"),
a Creative Commons attribution ('"Title" by Y is licensed under CC BY 2.0') and a source
file's header comment that names the file and who created it ("//  TideView.swift" over
"//  Created by Y on 12/03/2024.", as Xcode writes it). Each is
``(line, thing, role, who)``, as :mod:`teams.extraction.metadata` reads them; a maintainer, a
contributor (``"ctb"``), a supplier or the one who produced an e-book's text wrote nothing.

Example:
    >>> list(elisp_authors([";;; kiln.el --- Kiln logs", ";; Author: Ada Holm <a@example.org>"]))
    [(2, 'kiln', 'author', 'Ada Holm')]
    >>> list(tune_composers(["X:1", "T:Salt Road", "C:Noor Halse"]))
    [(3, 'Salt Road', 'composer', 'Noor Halse')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import takewhile

from teams.extraction.labelled_records import Found, name_of
from teams.extraction.signatures import FULL_NAME

__all__ = [
    "attributions",
    "created_by_headers",
    "elisp_authors",
    "epub_creators",
    "gutenberg_authors",
    "pandoc_authors",
    "r_package_authors",
    "spdx_originators",
    "tune_composers",
    "vim_authors",
]

_ELISP_FIRST = re.compile(r"^;;;\s*(?P<file>[\w.+-]+?)(?:\.el)?\s+---")
_ELISP_AUTHOR = re.compile(rf"^;+\s*Author:\s*(?P<who>{FULL_NAME})")


def elisp_authors(lines: Sequence[str]) -> Iterator[Found]:
    """The ``;; Author:`` of an Emacs Lisp library, of the library its first line names."""
    library = ""
    for n, line in enumerate(lines):
        if first := _ELISP_FIRST.match(line.strip()):
            library = first["file"]
        elif library and (author := _ELISP_AUTHOR.match(line.strip())):
            yield n + 1, library, "author", author["who"]


_VIM_FIRST = re.compile(r'^"\s*Vim\s+(?P<kind>[a-z]+(?: [a-z]+)?)\s+file\b', re.I)
_VIM_FIELD = re.compile(r'^"\s*(?P<label>[A-Z][\w ]*?)\s*:\s*(?P<value>\S.*?)\s*$')
_VIM_AUTHORS = frozenset({"author", "authors", "original author", "original authors"})
"""The labels of a Vim runtime file's writer; its "Maintainer" (now) wrote nothing."""
_VIM_NAMES = ("language", "name")
"""The labels of what a Vim runtime file is for: a syntax file's language, a colour scheme's
name."""


def vim_authors(lines: Sequence[str]) -> Iterator[Found]:
    """The ``" Original Author:`` (or ``" Author:``) of a Vim runtime file's header, of the file
    its first line and ``" Language:`` name ("Vim syntax file for X")."""
    for at, line in enumerate(lines):
        if (first := _VIM_FIRST.match(line.strip())) is None:
            continue
        header = takewhile(lambda n: lines[n].lstrip().startswith('"'), range(at + 1, len(lines)))
        fields = [(n, found) for n in header if (found := _VIM_FIELD.match(lines[n].strip()))]
        named = (field["value"] for _, field in fields if field["label"].lower() in _VIM_NAMES)
        if not (name := next(named, "")):
            continue
        thing = f"Vim {first['kind'].lower()} file for {name}"
        for n, field in fields:
            if field["label"].lower() in _VIM_AUTHORS:
                yield n + 1, thing, "author", name_of(field["value"])


_PACKAGE = re.compile(r"^\s*Package:\s*(?P<name>[\w.]+)\s*$")
_PERSON = re.compile(
    r"person\(\s*\"(?P<given>[^\"]+)\"\s*,\s*\"(?P<family>[^\"]+)\"(?P<rest>[^()]*"
    r"(?:\([^()]*\)[^()]*)*)\)"
)


def r_package_authors(lines: Sequence[str]) -> Iterator[Found]:
    """Each ``person()`` of an R package's ``Authors@R`` whose roles hold ``"aut"``."""
    package = next((found["name"] for line in lines if (found := _PACKAGE.match(line))), "")
    if not package:
        return
    text = "\n".join(lines)
    for person in _PERSON.finditer(text):
        if re.search(r"\brole\s*=[^=]*\"aut\"", person["rest"]):
            line = text.count("\n", 0, person.start()) + 1
            yield line, package, "author", f"{person['given']} {person['family']}"


_SPDX_NAME = re.compile(r"^\s*PackageName:\s*(?P<name>\S.*?)\s*$")
_SPDX_ORIGINATOR = re.compile(
    r"^\s*PackageOriginator:\s*(?:Person|Organi[sz]ation):\s*(?P<who>[^(<\n]+?)\s*(?:[(<].*)?$"
)


def spdx_originators(lines: Sequence[str]) -> Iterator[Found]:
    """An SPDX package's originator (who made it; its supplier only supplies it)."""
    package = ""
    for n, line in enumerate(lines):
        if name := _SPDX_NAME.match(line):
            package = name["name"]
        elif package and (originator := _SPDX_ORIGINATOR.match(line)):
            yield n + 1, package, "author", originator["who"]


_DC_TITLE = re.compile(r"<dc:title\b[^>]*>(?P<title>[^<]+)</dc:title>")
_DC_CREATOR = re.compile(r"<dc:creator\b(?P<attributes>[^>]*)>(?P<who>[^<]+)</dc:creator>")
_ROLE = re.compile(r"\brole=\"(?P<role>[a-z]{3})\"")
_DC_HOLDER = re.compile(r"^\s*<dc:(?P<element>[a-z]+)\b[^<>]*>\s*$")
"""A Dublin Core element opened alone on its line, holding others (an RDF agent)."""
_DC_CLOSED = re.compile(r"^\s*</dc:(?P<element>[a-z]+)>\s*$")


def epub_creators(lines: Sequence[str]) -> Iterator[Found]:
    """An EPUB package's ``dc:creator`` of role ``aut`` (or of none), as the author of its
    ``dc:title``; an RDF work's ``dc:creator`` holding an agent named by a ``dc:title`` of its
    own (an SVG drawing's, as Inkscape writes it), as its creator (a ``dc:publisher``'s made
    nothing)."""
    title, holder, found = "", "", list[tuple[int, str, str]]()
    for n, line in enumerate(lines):
        if opened := _DC_HOLDER.match(line):
            holder = opened["element"]
        elif closed := _DC_CLOSED.match(line):
            holder = "" if closed["element"] == holder else holder
        elif (named := _DC_TITLE.search(line)) and holder == "creator":
            found.append((n + 1, "creator", named["title"].strip()))
        elif named and not holder:
            title = title or named["title"].strip()
        if creator := _DC_CREATOR.search(line):
            role = _ROLE.search(creator["attributes"])
            if role is None or role["role"] == "aut":
                found.append((n + 1, "author", creator["who"].strip()))
    yield from ((n, title, role, who) for n, role, who in found if title)


_EBOOK_OF = re.compile(rf"\bE-?Book\s+of\s+(?P<title>.+?),\s+by\s+(?P<who>{FULL_NAME})\s*$", re.I)


def gutenberg_authors(lines: Sequence[str]) -> Iterator[Found]:
    """The writer a Project Gutenberg e-book's first line names ("The Project Gutenberg EBook
    of X, by Y"); the one who produced its text wrote nothing."""
    for n, line in enumerate(lines):
        if found := _EBOOK_OF.search(line.strip()):
            yield n + 1, found["title"], "author", found["who"]


_ABC_FIELD = re.compile(r"^(?P<field>[A-Z]):\s*(?P<value>\S.*?)\s*$")


def tune_composers(lines: Sequence[str]) -> Iterator[Found]:
    """An ABC tune's composer (``C:``) of its first title (``T:``), in a tune that opens with
    its reference number (``X:``); its transcriber (``Z:``) wrote nothing."""
    title = ""
    for n, line in enumerate(lines):
        field = _ABC_FIELD.match(line.strip())
        if field is None:
            continue
        if field["field"] == "X":
            title = ""
        elif field["field"] == "T" and not title:
            title = field["value"]
        elif field["field"] == "C" and title:
            yield n + 1, title, "composer", field["value"]


_PANDOC = re.compile(r"^%\s+(?P<value>\S.*?)\s*$")


def pandoc_authors(lines: Sequence[str]) -> Iterator[Found]:
    """The authors (second line, ";" between them) of a Pandoc title block that opens the
    text: "% Title", "% Author", "% Date"."""
    block = [found["value"] for line in lines[:3] if (found := _PANDOC.match(line))]
    if len(block) >= 2 and _PANDOC.match(lines[0]) and _PANDOC.match(lines[1]):
        for who in block[1].split(";"):
            if re.fullmatch(FULL_NAME, who.strip()):
                yield 2, block[0], "author", who.strip()


_ATTRIBUTION = re.compile(
    rf"[\"“](?P<title>[^\"”]+)[\"”]\s+(?:\([^)]*\)\s+)?by\s+(?P<who>{FULL_NAME}|@?[\w.-]+)"
    r"(?:\s*\([^)]*\))?,?\s+is\s+licen[sc]ed\s+under\b"
)


def attributions(lines: Sequence[str]) -> Iterator[Found]:
    """The creator a Creative Commons attribution names: '"Title" by Y is licensed under CC BY
    2.0' (whoever cropped or edited it made nothing)."""
    for n, line in enumerate(lines):
        for found in _ATTRIBUTION.finditer(line):
            yield n + 1, found["title"], "creator", found["who"]


_COMMENT = re.compile(r"^\s*(?://+|#+|/?\*+|--|;+)\s*(?P<text>.*?)\s*(?:\*/)?\s*$")
"""A comment line of a source file's header ("//  TideView.swift", " * Created by ...")."""
_FILE_NAME = re.compile(r"^(?P<file>[\w+-]+(?:\.[\w+-]+)*\.[A-Za-z][\w]{0,9})$")
_CREATED_BY = re.compile(
    rf"^(?i:created|written|authored|coded|made)\s+by\s+(?P<who>{FULL_NAME})\b"
)


def created_by_headers(lines: Sequence[str]) -> Iterator[Found]:
    """The creator a source file's header comment names ("Created by Y on 12/03/2024."), of
    the file a line of the same comment names alone ("TideView.swift")."""
    at = 0
    while at < len(lines):
        block = list(takewhile(lambda n: _COMMENT.match(lines[n]), range(at, len(lines))))
        at = (block[-1] if block else at) + 1
        texts = [(n, found["text"]) for n in block if (found := _COMMENT.match(lines[n]))]
        files = [name["file"] for _, text in texts if (name := _FILE_NAME.match(text))]
        for n, text in texts if files else ():
            if creator := _CREATED_BY.match(text):
                yield n + 1, files[0], "author", creator["who"]
