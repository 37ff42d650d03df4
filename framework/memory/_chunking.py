"""Cutting Markdown, reStructuredText and plain text into chunks with exact line numbers."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from itertools import pairwise

from framework.errors import ConfigError
from framework.memory._table_cuts import table_cuts

__all__ = ["Chunk", "chunk_document"]

_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_ATTRIBUTES = re.compile(r"[ \t]*\{[ \t]*[:#.][^{}]*\}[ \t]*$")
"""A heading's attribute list, as Python-Markdown's attr_list and Pandoc write it: "## Android
{: #android}", "## Install {#install .tabbed}"."""
_ADORNMENT = re.compile(r"^([=\-~^\"'`#*+<>:._])\1{2,}[ \t]*$")
_BOLD_RELEASE = re.compile(r"^(\*\*|__)(?P<title>[^*_\s](?:[^*_]{0,58}[^*_\s])?)\1[ \t]*$")
"""A line wholly in bold ("**4.0.0a2**", "**UNRELEASED**"): a release's heading in a changelog
that names its releases so, when it holds a version or a date (see :func:`_bold_release`)."""
_RELEASE_MARK = re.compile(
    r"\d+\.\d+|\b(?:1[89]|20)\d\d\b|\b(?:unreleased|upcoming|next release)\b", re.IGNORECASE
)
_RELEASE_ROLE = re.compile(
    r"^[-*+][ \t]+:release:`(?P<number>[^`<]+?)[ \t]*(?:<(?P<date>[^`>]+)>)?`[ \t]*$"
)
"""A release's line in a changelog written for the Releases plugin ("- :release:`1.1.0
<2018-07-12>`"): the heading of the entries below it, up to the next release's line."""
_BOLD_LEVEL = 99
"""A bold release heading's level: below every heading, so the next real heading closes it."""
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}|:{3,}(?=\{|\s*$))")
"""A fence: of code (```` ``` ````, ``~~~``) or of a MyST directive (```` ```{note} ````,
``:::{note}``, closed by ``:::``)."""
_PROSE_FENCE = re.compile(
    r"^ {0,3}(?:(?:`{3,}|~{3,})\{(?:note|warning|tip|important|caution|attention|danger|error|"
    r"hint|seealso|admonition|versionadded|versionchanged|deprecated|versionremoved)\}"
    r"|:{3,}(?!\{(?:code-block|code|code-cell|sourcecode|literalinclude|math|eval-rst)\}))"
)
"""A fence that holds prose, not code: a MyST admonition (```` ```{warning} ````), any colon
fence (``:::{note}``) but one of code."""
_BREAKS = (
    re.compile(r"\n(?=[ \t]*(?:[-*+]|\d+[.)])[ \t])"),
    re.compile(r"(?<=[.!?])\s+"),
    re.compile(r"\n"),
    re.compile(r"\s+"),
)
"""Where an over-long paragraph may be cut, best first: list items (an item is kept whole
where it fits), sentences, lines, words."""


@dataclass(frozen=True, kw_only=True)
class Chunk:
    """A piece of a document.

    Attributes:
        id: Stable id: a hash of path, start line and text.
        path: Display path, POSIX separators (``docs/guide/intro.md``).
        start_line: 1-based line where ``text`` starts.
        end_line: 1-based line where ``text`` ends.
        heading: The nearest heading above the chunk, or ``""``.
        text: The chunk's text, as in the document (stripped of surrounding whitespace).
        code: The chunk is (part of) a fenced code block, not prose.
        outline: The headings that hold ``heading``, outermost first, joined by ``" > "``
            (``"0.33.0 (December 14, 2024)"`` above a ``Removed`` heading); ``""`` when none.
        lead: For a chunk cut from a long table after its first rows, the lines its rows are
            read under: the table's head (borders, header row and rule), as in the document;
            ``""`` for any other chunk.
    """

    id: str
    path: str
    start_line: int
    end_line: int
    heading: str
    text: str
    code: bool = False
    outline: str = ""
    lead: str = ""


@dataclass(frozen=True)
class _Paragraph:
    start: int  # 0-based index of the first line
    end: int  # 0-based index one past the last line
    section: int
    heading: str
    code: bool = False  # opens with a code fence
    outline: str = ""  # the headings that hold ``heading``


def chunk_document(display_path: str, text: str, max_chars: int = 800) -> list[Chunk]:
    """Cut ``text`` into chunks along headings and blank-line paragraphs.

    Small consecutive paragraphs under the same heading are merged up to ``max_chars``; a longer
    paragraph is cut on sentence boundaries (then lines, then words). Headings (Markdown ``#``
    and underlined titles, reStructuredText titles) are not part of any chunk's text; YAML front
    matter is skipped. Fenced code blocks (outside ``.rst`` files) are not cut at blank lines.

    Raises:
        ConfigError: ``max_chars`` is below 1.
    """
    if max_chars < 1:
        raise ConfigError(f"max_chars must be at least 1, got {max_chars}")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    builder = _ChunkBuilder(display_path, lines)
    pending: list[_Paragraph] = []
    fences = not display_path.lower().endswith(".rst")
    for para in _paragraphs(lines, fences):
        if builder.width(para.start, para.end) > max_chars:
            builder.add_span(pending)
            pending = []
            builder.add_split(para, max_chars)
            continue
        if pending and pending[-1].section != para.section:
            builder.add_span(pending)
            pending = []
        elif pending and builder.width(pending[0].start, para.end) > max_chars:
            kept = _kept_with(pending, para, lines, builder, max_chars)
            builder.add_span(pending[:kept])
            pending = pending[kept:]
        pending.append(para)
    builder.add_span(pending)
    return builder.chunks


_DESCRIBED = re.compile(
    r"\.\. (?:\w+:)?(?:envvar|option|cmdoption|confval|setting|describe|object|data|"
    r"attribute|property|function|method|classmethod|staticmethod|class|exception|"
    r"decorator)::\s+(?P<name>\S.*)$"
)
"""A reStructuredText directive that describes a named thing (Sphinx's ``.. envvar::
WEBSOCKETS_MAX_REDIRECTS``, ``.. confval:: name``, ``.. py:function:: connect(uri)``): its
indented body is an entry about that name."""
_REFERS_BACK = re.compile(
    r"^\s*(?:therefore|thus|hence|consequently|for (?:this|that|these|those) reasons?|"
    r"as a (?:result|consequence)|because of (?:this|that)|(?:this|that) is why|"
    r"(?:this|that) (?:means|implies|allows|lets))\b",
    re.I,
)
"""A paragraph that opens by drawing a consequence of the one before ("For these reasons, ...",
"This means ...", "Therefore, ..."): a chunk that starts with it would lose its cause."""


def _kept_with(
    pending: list[_Paragraph],
    para: _Paragraph,
    lines: list[str],
    builder: _ChunkBuilder,
    max_chars: int,
) -> int:
    """Where to cut ``pending`` when ``para`` does not fit after it: the paragraphs from the
    returned index on start the next chunk with ``para``. ``para`` indented below a directive
    that describes a named thing (:data:`_DESCRIBED`) goes with that directive; one that draws a
    consequence (:data:`_REFERS_BACK`) goes with the paragraph before it. Where that would not
    fit in one chunk, or would leave this one empty, the cut is before ``para``."""
    opening = lines[para.start]
    if opening[:1] in (" ", "\t"):
        firsts = [at for at, held in enumerate(pending) if lines[held.start][:1] not in (" ", "\t")]
        start = firsts[-1] if firsts else 0
        if not _DESCRIBED.match(lines[pending[start].start]):
            return len(pending)
    elif _REFERS_BACK.match(opening):
        start = len(pending) - 1
    else:
        return len(pending)
    if start == 0 or builder.width(pending[start].start, para.end) > max_chars:
        return len(pending)
    return start


class _ChunkBuilder:
    """Turns paragraph spans and offsets into :class:`Chunk` objects."""

    def __init__(self, path: str, lines: list[str]) -> None:
        self.path = path
        self.lines = lines
        self.chunks: list[Chunk] = []
        self._offsets = [0]
        for line in lines:
            self._offsets.append(self._offsets[-1] + len(line) + 1)

    def width(self, start: int, end: int) -> int:
        """Characters of lines ``start`` to ``end`` (exclusive) joined by newlines."""
        return self._offsets[end] - self._offsets[start] - 1

    def add_span(self, paragraphs: list[_Paragraph]) -> None:
        """One chunk covering ``paragraphs`` (consecutive, same section)."""
        if paragraphs:
            first, last = paragraphs[0], paragraphs[-1]
            body = "\n".join(self.lines[first.start : last.end])
            code = all(p.code for p in paragraphs)
            self._add(first.start, body, first, code=code)

    def add_split(self, para: _Paragraph, max_chars: int) -> None:
        """Several chunks for an over-long paragraph: a table's cut between its rows, each
        chunk after the first led by the table's head (see :func:`table_cuts`)."""
        body = "\n".join(self.lines[para.start : para.end])
        table = table_cuts(self.lines[para.start : para.end], max_chars)
        if table is not None:
            head, starts = table
            lead = "\n".join(self.lines[para.start : para.start + head])
            offsets = [self.width(para.start, para.start + at) + 1 for at in starts]
            for number, (begin, end) in enumerate(pairwise([0, *offsets, len(body)])):
                self._add(para.start, body, para, begin, end, lead=lead if number else "")
            return
        for begin, end in _cuts(body, 0, len(body), max_chars, 0):
            self._add(para.start, body, para, begin, end, code=para.code)

    def _add(
        self,
        line: int,
        body: str,
        under: _Paragraph,
        begin: int = 0,
        end: int = -1,
        *,
        code: bool = False,
        lead: str = "",
    ) -> None:
        """Add ``body[begin:end]`` stripped, where ``body`` starts at 0-based ``line``."""
        end = len(body) if end < 0 else end
        while begin < end and body[begin].isspace():
            begin += 1
        while end > begin and body[end - 1].isspace():
            end -= 1
        if begin == end:
            return
        piece = body[begin:end]
        start_line = line + 1 + body.count("\n", 0, begin)
        end_line = start_line + piece.count("\n")
        digest = hashlib.sha256(f"{self.path}\n{start_line}\n{piece}".encode()).hexdigest()
        self.chunks.append(
            Chunk(
                id=digest[:32],
                path=self.path,
                start_line=start_line,
                end_line=end_line,
                heading=under.heading,
                text=piece,
                code=code,
                outline=under.outline,
                lead=lead,
            )
        )


def _paragraphs(lines: list[str], fences: bool) -> list[_Paragraph]:
    """Blank-line separated paragraphs, each with the section and heading it falls under.

    With ``fences`` (all but reStructuredText), Markdown code fences hold their blank lines.
    """
    paragraphs: list[_Paragraph] = []
    i, named = _front_matter(lines)
    section, heading = 0, named
    outline = _Outline(named)
    start: int | None = None
    fence = ""

    def close(end: int) -> None:
        nonlocal start
        if start is not None:
            opener = lines[start]
            code = fences and _FENCE.match(opener) is not None and not _PROSE_FENCE.match(opener)
            paragraphs.append(_Paragraph(start, end, section, heading, code, outline.above()))
            start = None

    while i < len(lines):
        line = lines[i]
        if fence:
            closing = line.strip()
            fence = "" if closing.startswith(fence) and not closing.strip(fence[0]) else fence
        elif fences and (opener := _FENCE.match(line)):
            fence = opener.group(1)
        elif title := _heading_at(lines, i, fences):
            close(i)
            section, heading = section + 1, title[0]
            outline.enter(lines, i, title)
            i += title[1]
            continue
        elif not line.strip() or _ADORNMENT.match(line):
            close(i)
            i += 1
            continue
        start = i if start is None else start
        i += 1
    close(len(lines))
    return paragraphs


class _Outline:
    """The headings open at a point of a document, outermost first. A ``#`` heading's level is
    its number of ``#``; an underlined (or over- and underlined) title's is the order in which
    its adornment first appears in the document, as reStructuredText reads it (a Markdown
    title underlined with ``=`` before one underlined with ``-``: 1 and 2, as ``#`` and
    ``##``). A title from the front matter holds them all."""

    def __init__(self, title: str = "") -> None:
        self.open: list[tuple[int, str]] = [(0, title)] if title else []
        self.styles: list[str] = []

    def enter(self, lines: list[str], i: int, title: tuple[str, int]) -> None:
        """Open the heading ``title`` found at line ``i``: it closes those of its level or lower."""
        level = self._level(lines, i, title[1])
        self.open = [*(open_ for open_ in self.open if open_[0] < level), (level, title[0])]

    def above(self) -> str:
        """The open headings but the innermost, joined by ``" > "``."""
        return " > ".join(title for _, title in self.open[:-1])

    def _level(self, lines: list[str], i: int, used: int) -> int:
        if _RELEASE_ROLE.match(lines[i]) or (used == 1 and _BOLD_RELEASE.match(lines[i])):
            return _BOLD_LEVEL
        if used == 1:
            return len(lines[i].strip()) - len(lines[i].strip().lstrip("#"))
        style = f"{used}{lines[i + used - 1].strip()[0]}"
        if style not in self.styles:
            self.styles.append(style)
        return self.styles.index(style) + 1


def _heading_at(lines: list[str], i: int, fences: bool = True) -> tuple[str, int] | None:
    """``(title, lines used)`` when a heading starts at line ``i``; with ``fences``, a code
    fence under a line opens code, it does not underline a title."""
    line = lines[i]
    atx = _ATX.match(line)
    if atx:
        return _ATTRIBUTES.sub("", atx.group(1) or "").strip(), 1
    if release := _bold_release(lines, i):
        return release, 1
    if roles := _release_roles(lines, i):
        return roles
    below = lines[i + 1] if i + 1 < len(lines) else ""
    over = _ADORNMENT.match(line)
    if over and i + 2 < len(lines) and below.strip() and not _ADORNMENT.match(below):
        under = _ADORNMENT.match(lines[i + 2])
        if under and under.group(1) == over.group(1):
            return below.strip(), 3
    indent = len(line) - len(line.lstrip())
    fenced = fences and _FENCE.match(below) is not None
    if line.strip() and not over and indent <= 3 and _ADORNMENT.match(below) and not fenced:
        return line.strip(), 2
    return None


def _bold_release(lines: list[str], i: int) -> str:
    """The release a line wholly in bold names, alone between blank lines ("**3.7.0**"), or
    ``""``: a bold line that names no version or date ("**Note:**") is no heading."""
    bold = _BOLD_RELEASE.match(lines[i])
    above, below = lines[i - 1] if i else "", lines[i + 1] if i + 1 < len(lines) else ""
    alone = not above.strip() and not below.strip()
    if bold is None or not alone or not _RELEASE_MARK.search(bold["title"]):
        return ""
    return bold["title"].strip()


def _release_roles(lines: list[str], i: int) -> tuple[str, int] | None:
    """``(title, lines used)`` for the release lines of the Releases plugin that start at line
    ``i``, one or several in a row ("1.1.0 (2018-07-12), 1.0.1 (2018-07-12)": a feature release
    and the bugfix release of the line before, sharing the entries below them); None for any
    other line."""
    titles: list[str] = []
    while i + len(titles) < len(lines) and (role := _RELEASE_ROLE.match(lines[i + len(titles)])):
        date = f" ({role['date'].strip()})" if role["date"] else ""
        titles.append(f"{role['number']}{date}")
    return (", ".join(titles), len(titles)) if titles else None


_FIELD = re.compile(
    r"^(title|version|revision|edition|date|updated|last_?modified|lastmod)\s*:\s*(?P<value>.+?)\s*$",
    re.IGNORECASE,
)
_DATES = ("date", "updated", "last_modified", "lastmodified", "lastmod")


def _front_matter(lines: list[str]) -> tuple[int, str]:
    """Index of the first line after a leading YAML front matter block (0 when none), and the
    title it gives the document with its version and dates ("Handbook, version 1.10
    (2021-03-04)"; "" for none). The fields are read as written: ``1.10`` is not 1.1."""
    if not lines or lines[0].strip() != "---":
        return 0, ""
    fields: dict[str, str] = {}
    for i in range(1, len(lines)):
        if lines[i].strip() in {"---", "..."}:
            dates = ", ".join(fields.pop(name) for name in _DATES if name in fields)
            title = fields.pop("title", "")
            serial = [f"{name} {value}" for name, value in fields.items()]
            named = ", ".join(filter(None, [title, *serial]))
            return i + 1, f"{named} ({dates})".strip() if dates else named
        field = _FIELD.match(lines[i])
        if field is not None:
            fields.setdefault(field[1].lower(), field["value"].strip("'\""))
    return 0, ""


def _cuts(body: str, begin: int, end: int, max_chars: int, level: int) -> list[tuple[int, int]]:
    """Cut ``body[begin:end]`` into pieces of at most ``max_chars`` at the best breaks."""
    if end - begin <= max_chars:
        return [(begin, end)]
    if level == len(_BREAKS):
        return [(at, min(at + max_chars, end)) for at in range(begin, end, max_chars)]
    bounds = [begin, *(m.end() for m in _BREAKS[level].finditer(body, begin, end)), end]
    pieces: list[tuple[int, int]] = []
    piece_start = begin
    for left, right in pairwise(bounds):
        if right - piece_start <= max_chars:
            continue
        if left > piece_start:
            pieces.append((piece_start, left))
            piece_start = left
        if right - left > max_chars:
            pieces.extend(_cuts(body, left, right, max_chars, level + 1))
            piece_start = right
    if piece_start < end:
        pieces.append((piece_start, end))
    return pieces
