"""The prose sentences of a document's text, each with the line it starts on.

The one splitter of every team that cites a sentence as ``path:line`` or reads relations from
one, so they agree on where a sentence starts and what it says.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from framework.memory._chunking import (
    _ADORNMENT,
    _DESCRIBED,
    _FENCE,
    _PROSE_FENCE,
    _heading_at,
)

__all__ = ["LIST_MARKER", "describes", "prose_sentences"]

_NOT_PROSE = re.compile(r"\||\$ |>>> |\.\.\.? |#{1,6}(?:\s|$)|(?:!!!|\?\?\?\+?|===[!+]?) ")
"""Lines that hold no sentence: table rows, shell and interpreter lines, reStructuredText
explicit markup (``.. _target: URL``, ``.. directive::``, a comment), headings, the title line
of an admonition (``!!! note``, its body is prose) or of a content tab (``=== "pip"``)."""
_QUOTE = re.compile(r"^(?!>>>(?:\s|$))(?:>[ \t]?)+")
"""The marks of a block quote ("> ", "> > "), not an interpreter's prompt (">>> "), whose line
holds code."""
LIST_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)]|#[.)])[ \t]+")
"""A line that opens a list item: a bullet, a number or reStructuredText's auto-number ``#.``,
then whitespace (``--flag`` is no marker)."""
_SENTENCE_END = re.compile(r"(?<=[.!?])[*_`\"')\]]*(?P<gap>\s+)(?=[A-Z0-9`*\[(\"'])")
"""After ``.!?`` (and closing marks, which stay in the sentence), before what may open one."""
_ABBREVIATION = re.compile(
    r"(?:^|[\s(\[])(?:[A-Za-z]\.){2,}$|(?:^|[\s(\[])(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp|"
    r"Mr|Mrs|Ms|Dr|Prof|St|No|Nos|Fig|Figs|Eq|Sec|Ch|Vol|Vols|al|pp?|para|ca)\.$",
    re.IGNORECASE,
)
"""A text ending in an abbreviation (``a.k.a.``, ``e.g.``, ``Dr.``, a page's ``p.``): no sentence
ends there."""
_ASIDE = re.compile(r"\([^()]{0,60}\)[.!?]?$")
"""A short parenthetical remark standing alone (``(Default 100)``): it belongs to the sentence
before it."""


@dataclass
class _Block:
    """A paragraph or list item: its lines joined by spaces, and where each line starts."""

    text: str = ""
    starts: list[int] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    item: bool = False
    term: bool = False
    """Whether it opens with the term of a definition (see :func:`_is_term`)."""

    @property
    def term_only(self) -> bool:
        """Whether it holds only its term so far: its definition is still to come."""
        return self.term and len(self.numbers) == 1

    def add(self, number: int, line: str) -> None:
        self.text += " " if self.text else ""
        self.starts.append(len(self.text))
        self.numbers.append(number)
        self.text += line

    def line_at(self, offset: int) -> int:
        """The number of the line that holds ``text[offset]``."""
        return self.numbers[bisect_right(self.starts, offset) - 1]


def _closes(line: str, fence: str) -> bool:
    return line.startswith(fence) and not line.strip(fence[0])


def _prose_lines(text: str, first_line: int) -> Iterator[tuple[int, str, bool]]:
    """``(number, line, term)`` of each line, stripped and out of its block quote (``term``: it
    is the term of a definition list, see :func:`_is_term`); ``""`` for a line
    that holds no prose (blank, code, table (a reStructuredText simple table's too), shell or
    interpreter line and the output after it, heading, adornment, a line wholly in bold, the
    marks of a block of notes: see :func:`_version_note`; an admonition's quoted title is
    prose: :func:`_admonition_title`). A fenced MyST admonition (```` ```{note} ````) holds
    prose; an indented block is code when the line before it ends in ``::`` or is a code
    directive (indented deeper than that line), or its first line reads as code; a footnote
    (``.. [#t3] text``) is an item of prose; other reStructuredText markup (``.. _target:``,
    ``.. directive::``) holds none."""
    lines = text.split("\n")
    tables = _simple_tables(lines)
    fence = admonition = ""
    code_indent = -1  # the indent of the indented code block being read, else -1
    literal = -1  # after "::" or a code directive: the indent its block goes deeper than
    output = False
    blank = True  # the start of the text is as after a blank line
    for index, raw in enumerate(lines):
        number, line = index + first_line, _QUOTE.sub("", raw.strip()).strip()
        line = _VERSION_DIRECTIVE.sub(_version_directive, line)  # ".. versionadded:: 4.44"
        line = _ADMONITION.sub("", line)  # ".. note:: Mind the gap." holds prose
        line = _FOOTNOTE.sub("- ", line)  # ".. [#t3] the result is ...": a note, an item
        line = _ALERT.sub("", line)  # "> [!NOTE]" marks a GitHub alert: its text is prose
        block = _BLOCK_MARK.match(line)  # "/// tip", "/// version-added | v2.10", "///"
        line = _version_note(block) if block else line
        titled = _TITLED_ADMONITION.match(line)  # '!!! tip "Added in version 0.80.0"'
        line = _admonition_title(titled) if titled else line
        indent = len(raw) - len(raw.lstrip())
        after_blank, blank = blank, not line
        if code_indent >= 0 and (not line or indent >= code_indent):
            yield number, "", False
            continue
        code_indent = -1
        if fence:
            fence = "" if _closes(line, fence) else fence
            yield number, "", False
        elif admonition and _closes(line, admonition):  # the end of a ```{note} block
            admonition = ""
            yield number, "", False
        elif opener := _FENCE.match(line):
            if _PROSE_FENCE.match(line):  # ```{warning}: prose inside
                admonition = opener.group(1)
            else:
                fence = opener.group(1)
            note = _MYST_VERSION.match(line)  # ":::{versionchanged} 21.2.0 Allow ..."
            yield number, _version_directive(note).strip() if note else "", False
        elif after_blank and (
            0 <= literal < indent or (indent >= _CODE_INDENT and _CODE_LINE.search(line))
        ):
            code_indent = indent
            yield number, "", False
        elif (
            index in tables  # a reStructuredText simple table's borders and rows
            or _NOT_PROSE.match(line)
            or _ADORNMENT.match(line)
            or _heading_at(lines, index)
        ):
            output = _PROMPT.match(line) is not None
            yield number, "", False
        elif output or _BOLD_LINE.fullmatch(line):
            yield number, "", False
        else:
            yield number, line, _is_term(line, lines, index, indent)
        output = output and bool(line)
        opens_literal = (
            line.endswith("::") and not _PROSE_DIRECTIVE.match(line)
        ) or _CODE_DIRECTIVE.match(line)
        literal = (indent if opens_literal else -1) if line else literal


_BLOCK_MARK = re.compile(r"^///(?:\s*(?P<kind>[\w-]+)(?:\s*\|\s*(?P<title>.*))?)?\s*$")
"""The first or last line of a block of notes in Markdown (Python-Markdown's blocks: "/// tip",
"/// details | Title", "/// version-added | v2.10"; "///" closes one)."""
_VERSION_NOTES = {
    "version-added": "Added in",
    "version-changed": "Changed in",
    "deprecated": "Deprecated in",
    "deprecated-removed": "Deprecated in",
}


def describes(line: str) -> bool:
    """Whether ``line`` is a directive that describes a named thing (``.. envvar:: NAME``): the
    paragraphs indented below it are about that name."""
    return _DESCRIBED.match(line.strip()) is not None


def _directive_marks(lines: list[str]) -> dict[int, str]:
    """The lines of directives read otherwise than as prose: a directive's option lines
    (":class: caution", in the lines that open it) as ``""``, no prose; the line of one that
    describes a named thing (``.. envvar:: NAME``) as the name, the term its body defines."""
    marks: dict[int, str] = {}
    opening = False  # in a directive's first lines, where its options are
    for index, raw in enumerate(lines):
        line = _QUOTE.sub("", raw.strip()).strip()
        opening = bool(line) and (opening or _DIRECTIVE.match(line) is not None)
        if opening and _OPTION.match(line):
            marks[index] = ""
        elif described := _DESCRIBED.match(line):
            marks[index] = f"``{described.group('name').strip()}``"
    return marks


def _version_note(block: re.Match[str]) -> str:
    """What a block mark says in prose: a version note's release, read with the note's text
    that follows ("/// version-added | v2.10" then "X can ..." is "Added in v2.10: X can ...",
    so the sentence that names the feature names its release); "" for the other marks, whose
    title heads the block (no sentence) and whose closing line holds none."""
    said = _VERSION_NOTES.get(block.group("kind") or "")
    releases = (block.group("title") or "").split()
    if said is None or not releases:
        return ""
    removed = f" (removed in {releases[1]})" if len(releases) > 1 else ""
    return f"{said} {releases[0]}{removed}:"


_VERSION_DIRECTIVE = re.compile(
    r"^\.\. (?P<kind>versionadded|versionchanged|deprecated|versionremoved)::\s*"
    r"(?P<release>[^\s,]+),?\s*"
)
"""A reStructuredText version note (Sphinx's ``.. versionadded:: 4.44``, its text after it)."""
_VERSION_DIRECTIVES = {
    "versionadded": "Added in",
    "versionchanged": "Changed in",
    "deprecated": "Deprecated in",
    "versionremoved": "Removed in",
}


_MYST_VERSION = re.compile(
    r"^ {0,3}(?:`{3,}|~{3,}|:{3,})\{(?P<kind>versionadded|versionchanged|deprecated|"
    r"versionremoved)\}\s*(?P<release>[^\s,]+),?\s*(?P<text>.*)$"
)
"""The same note as a MyST directive (```` ```{versionadded} 23.1.0 ````, ``:::{versionchanged}
21.2.0 Allow ...``), its text on its opening line or inside it."""


def _version_directive(found: re.Match[str]) -> str:
    """A version note directive in prose, as Sphinx renders it ("Added in 4.44:"), joined to
    the text it holds, so the note above a section's first sentence names its release."""
    text = found.groupdict().get("text") or ""
    return f"{_VERSION_DIRECTIVES[found.group('kind')]} {found.group('release')}: {text}"


_TABLE_BORDER = re.compile(r"^[ \t]*(?:=+|-+)(?:[ \t]+(?:=+|-+))+[ \t]*$")
"""A reStructuredText simple table's border or row rule: runs of "=" (or "-") for its
columns, spaces between ("=========== ======")."""


def _simple_tables(lines: list[str]) -> set[int]:
    """The indices of the lines of reStructuredText simple tables: from a border of "=" runs
    to the last border or rule reached without a blank line between."""
    inside: set[int] = set()
    index = 0
    while index < len(lines):
        if not (_TABLE_BORDER.match(lines[index]) and "=" in lines[index]):
            index += 1
            continue
        start = end = index
        for after in range(index + 1, len(lines)):
            if not lines[after].strip():
                break
            if _TABLE_BORDER.match(lines[after]):
                end = after
        inside |= set(range(start, end + 1))
        index = end + 1
    return inside


_TITLED_ADMONITION = re.compile(
    r'^(?:!!!|\?\?\?\+?)[ \t]*[\w-]+(?:[ \t]+[\w-]+)*[ \t]+"(?P<title>[^"]+)"[ \t]*$'
)
"""A Markdown admonition's title line with its title in quotes (Python-Markdown's and MkDocs
Material's ``!!! tip "The Worker API was added in version 0.18.0"``)."""
_TITLE_VERSION = re.compile(
    r"^(?P<kind>Added|Changed|Deprecated|Removed|New)\s+in\s+(?:version\s+)?"
    r"(?P<release>v?\d+(?:\.\d+)+\w*)[.:]?$",
    re.IGNORECASE,
)


def _admonition_title(found: re.Match[str]) -> str:
    """An admonition's title in prose: a version note's title as the note ("Added in 0.80.0:",
    read with the text that follows, as a version directive is), any other title as a sentence
    of its own."""
    title = found.group("title").strip()
    note = _TITLE_VERSION.match(title)
    if note is not None:
        return f"{note.group('kind').capitalize()} in {note.group('release')}:"
    return title if title[-1:] in ".!?:" else f"{title}."


_CODE_INDENT = 4
_ADMONITION = re.compile(
    r"^\.\. (?:note|warning|tip|important|caution|attention|danger|error|hint|seealso|"
    r"admonition)::\s*"
)
"""A reStructuredText admonition's name: the text after it is prose (other explicit markup,
``.. _target:`` or ``.. directive::``, holds none: :data:`_NOT_PROSE`)."""
_FOOTNOTE = re.compile(r"^\.\. \[(?:#[\w-]*|\d+|\*|[A-Za-z][\w.-]*)\]\s+(?=\S)")
"""A reStructuredText footnote's or citation's label (".. [#t3] ", ".. [1] ", ".. [RFC9110] "):
the text after it is prose, each note an item of the list of notes."""
_ALERT = re.compile(r"^\[!(?:note|tip|important|warning|caution)\]\s*", re.I)
"""The marker that opens a GitHub alert in a block quote ("> [!NOTE]"): not part of its text."""
_CODE_DIRECTIVE = re.compile(
    r"\.\. (?:code-block|code|sourcecode|prompt|doctest|testcode|testoutput|ipython|"
    r"jupyter-execute|parsed-literal)::"
)
"""A directive whose indented body is code (or a shell session: sphinx-prompt's ``prompt``)."""
_DIRECTIVE = re.compile(r"\.\. [\w:-]+::")
"""A reStructuredText directive's line; option lines (":class: tip") may follow it."""
_OPTION = re.compile(
    r":(?:class|name|caption|align|alt|width|height|scale|target|figwidth|figclass|linenos|"
    r"lineno-start|emphasize-lines|dedent|force|language|encoding|tab-width|start-after|"
    r"end-before|maxdepth|titlesonly|glob|hidden|numbered|collapsible|open|no-?index|"
    r"no-?index-?entry|no-?contents-?entry|no-typesetting|no-?value):(?:\s|$)",
    re.I,
)
"""A directive's option line of presentation (":class: caution", ":linenos:"), which holds no
prose; a field of a described thing (":default: 0.3", ":param uri: ...") is read."""
_PROSE_DIRECTIVE = re.compile(
    r"\.\. (?:glossary|topic|sidebar|rubric|epigraph|highlights|pull-quote|container|only|"
    r"hlist|centered)::"
)
"""A directive whose indented body is prose, though its line ends in ``::`` (a glossary's
terms and definitions), not the literal block a paragraph ending in ``::`` opens."""
_PROMPT = re.compile(r"\$ |>>> |\.\.\. ")
"""A shell or interpreter prompt: the lines after it, to a blank line, are its output."""
_CODE_LINE = re.compile(
    r"^(?:import |from \S+ import |def |class |return\b|@\w|[\w.\[\]'\"]+ *[-+*/]?= |"
    r"[\w.]+\(.*\)[;,]?$|[{}\]]|<[A-Za-z/!]|--?\w)"
)
"""A line that reads as code: a statement, an assignment, a call alone on its line, a brace or
closing bracket, a tag or a command-line flag."""
_BOLD_LINE = re.compile(r"(\*\*|__)[^*_]*[^*_.!?]\1:?")
"""A line wholly in bold, without a stop: a heading in all but name."""


_OPTION_ENTRY = re.compile(
    r"^(?:--?\w[\w-]*(?:[ ,=]+[\w<>\[\].|-]+)*?|[a-z][a-z\d]*(?:[_.-][a-z\d]+)+)\s{2,}\S"
)
"""A command's help entry for an option or a setting: its flags or its name, then two spaces or
more, then what it does ("-p, --port INTEGER    Port for server, defaults to 8001.",
"max_csv_mb    Maximum size allowed for CSV export"): an entry of its own."""


def _blocks(text: str, first_line: int) -> list[_Block]:
    """Paragraphs, list items (markers dropped) and a command's help entries; a line without
    prose ends a block."""
    blocks: list[_Block] = []
    current: _Block | None = None
    raw = text.split("\n")
    marked = _directive_marks(raw) if ".. " in text else {}  # most texts hold no directive
    for number, read, defined in _prose_lines(text, first_line):
        mark = marked.get(number - first_line)  # an option line, or a described thing's name
        line, term = (read, defined) if mark is None else (mark, bool(mark))
        written = raw[number - first_line]
        defining = current is not None and current.term_only  # ".. envvar:: X", a blank, then
        if not line:  # its indented body: "X: Maximum ..."
            current = current if defining and not written.strip() else None
            continue
        if defining and not written[:1].isspace():
            current = None  # not indented: no body of the term's
        item = LIST_MARKER.match(line)
        if item or term or current is None or _OPTION_ENTRY.match(line):
            current = _Block(item=item is not None, term=term and item is None)
            blocks.append(current)
        current.add(number, line[item.end() :] if item else f"{line}:" if term else line)
    return blocks


_TERM_WORDS = 6
_STOPS = tuple(".:;,!?")


def _is_term(line: str, lines: list[str], index: int, indent: int) -> bool:
    """Whether ``line`` (line ``index`` as read, indented ``indent``) is the term of a
    reStructuredText definition list: a short line without a stop, not a list item, with the
    next line indented deeper ("crosshair" over "    Generates inputs using SMT ..."). Its
    definition is read after it ("crosshair: Generates inputs ..."), not as the end of the
    sentence before."""
    short = len(line.split()) <= _TERM_WORDS and not line.rstrip().endswith(_STOPS)
    if index + 1 >= len(lines) or not short:
        return False
    following = lines[index + 1]
    deeper = len(following) - len(following.lstrip()) > indent
    return bool(following.strip()) and deeper and not LIST_MARKER.match(lines[index])


_TRAILER_WORDS = 4


_CLAUSE_OPENERS = frozenset(
    "the a an it its this that these those they their he his she her we you i there".split()
)
_COPULA = re.compile(r"\b(?:is|are|was|were)\b", re.IGNORECASE)


def _trails(sentence: str, line: int, previous_line: int) -> bool:
    """Whether ``sentence`` is a short remark without a subject of its own that ends the line
    its predecessor is on ("... cache CORS responses. Defaults to `600`."): it belongs with
    that sentence ("Its capital is Orlen." is a sentence of its own)."""
    words = sentence.split()
    return (
        line == previous_line
        and len(words) <= _TRAILER_WORDS
        and words[0].lower() not in _CLAUSE_OPENERS
        and _COPULA.search(sentence) is None
    )


_ITEM_WORDS = 40


def _one_unit(block: _Block) -> bool:
    """Whether a block is a list item short enough to be read whole: a one-line item of at
    most 40 words ("`html` - Run in HTML mode. Automatically loads `index.html` ...")."""
    return block.item and len(block.numbers) == 1 and len(block.text.split()) <= _ITEM_WORDS


def prose_sentences(text: str, first_line: int = 1) -> list[tuple[int, str]]:
    """``(line, sentence)`` for every sentence of the prose of ``text``, in order.

    ``line`` is the line the sentence starts on, the first line of ``text`` counting as
    ``first_line``. A sentence keeps its characters as written (a leading backtick, ``--``,
    quote or ``*`` included), its whitespace collapsed; only list markers and block-quote marks
    are dropped. A parenthetical remark, or a short one ending the same line ("Defaults to
    `600`."), stays with the sentence before it; a one-line list item of at most 40 words is
    one sentence. Fenced code, table rows, shell or interpreter
    lines and headings hold none.
    """
    found: list[tuple[int, str]] = []
    for block in _blocks(text, first_line):
        if _one_unit(block):  # "`html` - Run in HTML mode. Loads `index.html` ...": one item
            found.append((block.numbers[0], " ".join(block.text.split())))
            continue
        bounds = [0, *_ends(block.text)]
        kept: list[tuple[int, str]] = []
        for begin, end in zip(bounds, [*bounds[1:], len(block.text)], strict=True):
            piece = block.text[begin:end]
            sentence = " ".join(piece.split())
            if not sentence:
                continue
            line = block.line_at(end - len(piece.lstrip()))
            if kept and (_ASIDE.fullmatch(sentence) or _trails(sentence, line, kept[-1][0])):
                kept[-1] = (kept[-1][0], f"{kept[-1][1]} {sentence}")  # "(Default 100)"
                continue
            kept.append((line, sentence))
        found += kept
    return found


def _ends(text: str) -> list[int]:
    """Where the sentences of a block end: after ``.!?`` unless an abbreviation ends there."""
    return [
        match.start("gap")
        for match in _SENTENCE_END.finditer(text)
        if not _ABBREVIATION.search(_closed(text[max(0, match.start() - 12) : match.start()]))
    ]


def _closed(tail: str) -> str:
    """The end of a sentence without the closing marks after its stop."""
    return tail.rstrip("*_`\"')]")
