"""The documents an extraction reads: prose sections with their lines, and their sentences.

A document comes from a file (``cadre extract``) or from the chunks of an indexed corpus
(``cadre run --team extraction``); either way it is cut by
:func:`framework.memory.chunk_document`, fenced code is left out (but for a CSV block, read as
a table under its first row, a JSON array's objects written one a line, each a row under its
keys, and an XML or INI block's records: :mod:`teams.extraction.data_blocks`), and every
sentence keeps the 1-based line it starts on. The items
of a list introduced by a sentence ending in a colon are read each with its lead-in ("The
toolkit includes: … a compiler"), so every item is a sentence. A front matter between "---"
lines at the top of a file is a section of its ``key: value`` lines under its title.
"""

from __future__ import annotations

import csv
import errno
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from pathlib import Path

from pydantic import Field

from framework.engine.records import Record
from framework.errors import CorpusError
from framework.memory import (
    LIST_MARKER,
    Chunk,
    Corpus,
    chunk_document,
    corpus_files,
    normalised,
    prose_sentences,
    read_text,
)
from framework.memory.corpus import CORPUS_SUFFIXES, unreadable_reason
from teams.extraction.data_blocks import (
    DATA_FENCE,
    GRAPHS,
    graph_records,
    infobox_records,
    ini_records,
    sql_records,
    xml_records,
    yaml_records,
)
from teams.extraction.emails import messages
from teams.extraction.fixed_width import fixed_width_records
from teams.extraction.line_labels import subtitle_cues
from teams.extraction.metadata import metadata_fields
from teams.extraction.repository_files import long_descriptions
from teams.extraction.telegrams import untelegraphed
from teams.language.revisions import apply_accepted_diffs
from teams.language.tables import (
    grid_tables,
    latex_tables,
    list_tables,
    markdown_tables,
    simple_tables,
)

__all__ = [
    "LIST_JOIN",
    "Document",
    "Row",
    "Section",
    "bare",
    "corpus_documents",
    "document_of",
    "plain",
    "quoted_parts",
    "read_documents",
    "unmarked",
]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_NOT_PROSE = re.compile(r"^\s*(?:\||\$ |>>> |\.\.\. |</?(?:table|thead|tbody|tr)\b)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"[*`\"“”]+")
_MIN_WORDS = 3
LIST_JOIN = " … "
"""Joins a list's lead-in and one of its items into one sentence; each part is in the text."""
_LIST_MARKERS = re.compile(LIST_MARKER.pattern, re.MULTILINE)
_SUFFIXES = ", ".join(sorted(CORPUS_SUFFIXES))


def quoted_parts(quotation: str) -> list[str]:
    """The parts of a quotation whose gaps are marked "…" (each part is in the text)."""
    return [part.strip() for part in quotation.split(LIST_JOIN.strip()) if part.strip()]


def plain(text: str) -> str:
    """``text`` without Markdown links, emphasis and code marks, normalised (lower case, single
    spaces): what names and evidence are compared in."""
    return normalised(unmarked(text))


def bare(text: str) -> str:
    """:func:`plain` text without apostrophes, as a name read from "the girls' school" lacks
    them, nor the stops after initials, as a name read from "M. Angove" lacks them."""
    return _INITIAL_STOP.sub(r"\1", re.sub(r"['’]", "", plain(text)))


_INITIAL_STOP = re.compile(r"(?<![\w.])([a-z])\.(?=\s)")
"""The stop after an initial ("m. angove")."""


def unmarked(text: str) -> str:
    """``text`` without Markdown links (their text stays), emphasis, code marks and quotes."""
    return _MARKUP.sub("", _LINK.sub(r"\1", text))


class Section(Record):
    """A stretch of prose that starts on ``line`` (1-based), under its nearest heading."""

    line: int = Field(ge=1)
    text: str
    heading: str = ""
    heading_line: int = Field(default=0, ge=0)
    """The line of the heading right above the section (blank lines between); 0 when another
    section stands between them or it is not known."""
    front: bool = False
    """Whether the section is a front matter's ``key: value`` lines."""
    outline: str = ""
    """The headings that hold ``heading``, outermost first, joined by ``" > "``."""

    def sentences(self) -> Iterator[tuple[int, str]]:
        """``(line, sentence)`` of the section's sentences of at least three words, and of
        each item of a list after a lead-in ending in a colon, joined to it by
        :data:`LIST_JOIN`."""
        items = {
            number
            for number, line in enumerate(self.text.split("\n"), self.line)
            if LIST_MARKER.match(line)
        }
        lead = ""
        for line, sentence in prose_sentences(self.text, self.line):
            if lead and line in items:
                yield line, f"{lead}{LIST_JOIN}{sentence}"
                continue
            lead = sentence if sentence.endswith(":") else ""
            if len(unmarked(sentence).split()) >= _MIN_WORDS:
                yield line, sentence


class Row(Record):
    """A Markdown table row on ``line``: its cells under its table's header cells."""

    line: int = Field(ge=1)
    header: tuple[str, ...]
    cells: tuple[str, ...]

    @property
    def text(self) -> str:
        """The row's cells between its bars: the excerpt a relation read from it cites."""
        return " | ".join(self.cells)

    def quote(self, names: Sequence[str]) -> str:
        """:attr:`text`, or, when a cell after the first that holds none of ``names`` names
        someone or something (a capital), that cell and its like written "…" (one for a run):
        the cells a relation read from the row states."""
        cut = LIST_JOIN.strip()
        kept = [
            cell if i == 0 or any(bare(name) in bare(cell) for name in names) else cut
            for i, cell in enumerate(self.cells)
        ]
        dropped = [cell for cell, shown in zip(self.cells, kept, strict=True) if shown == cut]
        if not any(re.search(r"\b[A-Z]", cell) for cell in dropped):
            return self.text
        return " | ".join(c for i, c in enumerate(kept) if not c == kept[i - 1] == cut)


class Document(Record):
    """A document's prose, by section, and its table rows, under the path it is known by."""

    path: str = Field(min_length=1)
    sections: tuple[Section, ...] = ()
    rows: tuple[Row, ...] = ()

    def sentences(self) -> Iterator[tuple[int, str]]:
        """``(line, sentence)`` of every section's sentences (:meth:`Section.sentences`), as
        written: list markers dropped, markup kept (see
        :func:`framework.memory.prose_sentences`)."""
        for section in self.sections:
            yield from section.sentences()

    def line_of(self, text: str) -> int:
        """The line of the first sentence (then table row) that holds ``text`` (or that
        ``text`` holds); 0 when none does."""
        wanted = plain(text)
        if wanted:
            rows = ((row.line, row.text) for row in self.rows)
            for line, sentence in (*self.sentences(), *rows):
                have = plain(sentence)
                if wanted in have or have in wanted:
                    return line
        return 0

    def plain_text(self) -> str:
        """All sections, each after its heading, and all table headers and rows, as
        :func:`plain` text, list markers dropped."""
        sections = (f"{s.heading} {_LIST_MARKERS.sub('', s.text)}" for s in self.sections)
        headers = dict.fromkeys(" | ".join(row.header) for row in self.rows)
        return plain(" ".join([*sections, *headers, *(row.text for row in self.rows)]))


def document_of(path: str, text: str) -> Document:
    """The prose of ``text`` (Markdown, reStructuredText or plain text) as a document, each
    section with the line of the heading right above it, its front matter first, then what
    records of a format say of who made a thing, then each e-mail set out in it and each WebVTT
    cue in a voice span (its speaker's turn, :func:`~teams.extraction.line_labels.subtitle_cues`);
    a diff on a page that says it was accepted is read as its "+" lines (see
    :func:`~teams.language.revisions.apply_accepted_diffs`); a telegram's lines as sentences
    (see :mod:`teams.extraction.telegrams`)."""
    text = "\n".join(untelegraphed(line) for line in text.split("\n"))  # "... STOP ..."
    document = _document(path, chunk_document(path, apply_accepted_diffs(text)))
    lines = text.split("\n")
    sections = tuple(
        section.model_copy(update={"heading_line": _heading_line(lines, section)})
        for section in document.sections
    )
    front = _front_matter(lines)
    metadata = tuple(
        Section(line=number, text=f"{role}: {who}", heading=thing, front=True)
        for number, thing, role, who in metadata_fields(lines)
    )  # a commit's "Author:", a module's __author__, ...
    mail = tuple(
        Section(line=number, text=message, heading=subject)
        for number, subject, message in messages(lines)
    )  # an e-mail in a fenced block, read as prose under its subject
    described = tuple(
        Section(line=number, text=text, heading=package)
        for number, package, text in long_descriptions(lines)
    )  # a Debian package's long description, read as prose about the package
    cues = tuple(Section(line=number, text=cue) for number, cue in subtitle_cues(lines))
    # a WebVTT cue: its speaker's turn
    sections = (*front, *metadata, *mail, *described, *cues, *sections)
    return document.model_copy(update={"sections": sections})


_FRONT_MATTER_LINES = 40
_TITLE = re.compile(r"^title:\s*(?P<title>.+?)\s*$", re.IGNORECASE)


def _front_matter(lines: list[str]) -> tuple[Section, ...]:
    """The ``key: value`` lines of a front matter between "---" lines that opens the text, as
    a section under its title (what its keys are said of), or none."""
    if not lines or lines[0].strip() != "---":
        return ()
    closing = next(
        (
            n
            for n, line in enumerate(lines[1:_FRONT_MATTER_LINES], 1)
            if line.strip() in ("---", "...")
        ),
        0,
    )
    fields = lines[1:closing]
    titles = [found["title"].strip("\"'") for line in fields if (found := _TITLE.match(line))]
    if not closing or not fields or not titles:
        return ()
    return (Section(line=2, text="\n".join(fields), heading=titles[0], front=True),)


def _heading_line(lines: list[str], section: Section) -> int:
    """The line of ``section``'s heading when only blank lines part them (a ``#`` heading, or
    a title over or under its underline), else 0."""
    number = section.line - 1
    while number > 0 and not lines[number - 1].strip():
        number -= 1
    for candidate in (number, number - 1):  # "## Title", or "Title" then "====="
        if candidate > 0 and section.heading == lines[candidate - 1].strip(" #"):
            return candidate
    return 0


def _document(path: str, chunks: Iterable[Chunk]) -> Document:
    every = sorted(chunks, key=lambda c: c.start_line)
    ordered = [c for c in every if not c.code]
    return Document(
        path=path,
        sections=tuple(s for c in ordered for s in _prose_sections(c)),
        rows=tuple(
            row
            for c in every
            for row in (
                *_table_rows(c),
                *_csv_rows(c),
                *_json_rows(c),
                *_html_rows(c),
                *_data_rows(c),
                *_infobox_rows(c),
                *_fixed_width_rows(c),
            )
        ),
    )


_PROSE, _CODE, _OTHER = "prose", "code", "other"


def _marked_lines(chunk: Chunk) -> Iterator[tuple[int, str, str]]:
    """``(line number, line, kind)`` of a chunk: fenced code is code; table rows and shell or
    interpreter lines are neither code nor prose."""
    fence = ""
    for number, line in enumerate(chunk.text.split("\n"), chunk.start_line):
        if fence:
            fence = "" if line.strip().startswith(fence) else fence
            yield number, line, _CODE
        elif opener := _FENCE.match(line):
            fence = opener.group(1)
            yield number, line, _CODE
        else:
            yield number, line, _OTHER if _NOT_PROSE.match(line) else _PROSE


def _prose_sections(chunk: Chunk) -> Iterator[Section]:
    for kind, group in groupby(_marked_lines(chunk), key=lambda marked: marked[2]):
        lines = list(group)
        text = "\n".join(line for _, line, _ in lines)
        if kind == _PROSE and text.strip():
            yield Section(line=lines[0][0], text=text, heading=chunk.heading, outline=chunk.outline)


def _table_rows(chunk: Chunk) -> Iterator[Row]:
    """The rows of the chunk's Markdown tables outside fenced code, of its reStructuredText
    list and simple tables (none in a code chunk), and of its grid and LaTeX tables (in code too: a
    table a program printed, or copied from a report's source, is data)."""
    tables = [
        *latex_tables(chunk.text, chunk.start_line),
        *grid_tables(chunk.text, chunk.start_line),
    ]
    if not chunk.code:
        text = "\n".join("" if kind == _CODE else line for _, line, kind in _marked_lines(chunk))
        tables += [
            *markdown_tables(text, chunk.start_line),
            *list_tables(chunk.text, chunk.start_line),
            *simple_tables(chunk.text, chunk.start_line),
        ]
    for table in tables:
        for line, cells in table.rows:
            yield Row(line=line, header=table.header, cells=cells)


_HTML_ROW = re.compile(r"^\s*<tr\b[^>]*>(?P<cells>.*?)(?:</tr>)?\s*$", re.IGNORECASE)
_HTML_CELL = re.compile(r"<(?P<tag>th|td)\b[^>]*>(?P<text>.*?)</(?P=tag)>", re.IGNORECASE)
_HTML_TAG = re.compile(r"<[^>]+>")


def _html_rows(chunk: Chunk) -> Iterator[Row]:
    """The rows of the chunk's HTML tables written a row to a line, each under the last row
    of ``<th>`` headers above it."""
    header: tuple[str, ...] = ()
    for number, line in enumerate(chunk.text.split("\n"), chunk.start_line):
        found = None if chunk.code else _HTML_ROW.match(line)
        cells = _HTML_CELL.findall(found["cells"]) if found else []
        texts = tuple(" ".join(_HTML_TAG.sub("", text).split()) for _, text in cells)
        if cells and all(tag.lower() == "th" for tag, _ in cells):
            header = texts
        elif cells and header and len(texts) == len(header):
            yield Row(line=number, header=header, cells=texts)


_CSV_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*csv\s*$", re.IGNORECASE)
"""The opening fence of a CSV code block: "```csv"."""


def _csv_rows(chunk: Chunk) -> Iterator[Row]:
    """The rows of the chunk's fenced CSV blocks, each under its block's first (header) row."""
    lines = chunk.text.split("\n")
    for index, line in enumerate(lines):
        if (opener := _CSV_FENCE.match(line)) is not None:
            yield from _csv_block(lines[index + 1 :], opener.group(1), chunk.start_line + index + 1)


def _csv_block(lines: list[str], fence: str, first_line: int) -> Iterator[Row]:
    """The rows of a CSV block's ``lines`` up to its closing ``fence``, the first its header."""
    block = []
    for text in lines:
        if text.strip().startswith(fence):
            break
        block.append(text)
    records = [(first_line + n, cells) for n, cells in enumerate(csv.reader(block)) if cells]
    if len(records) < 2:
        return
    header = tuple(cell.strip() for cell in records[0][1])
    for number, cells in records[1:]:
        if len(cells) == len(header):
            yield Row(line=number, header=header, cells=tuple(cell.strip() for cell in cells))


_JSON_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*json\s*$", re.IGNORECASE)
_JSON_OBJECT = re.compile(r"^\s*(?P<object>\{.*\})\s*,?\s*$")


def _json_rows(chunk: Chunk) -> Iterator[Row]:
    """The rows of the chunk's fenced JSON blocks: each object of an array written on a line
    of its own whose values are all strings or numbers, its keys as the header."""
    fence = ""
    for number, line in enumerate(chunk.text.split("\n"), chunk.start_line):
        if fence:
            fence = "" if line.strip().startswith(fence) else fence
            if fence and (row := _json_row(line, number)) is not None:
                yield row
        elif opener := _JSON_FENCE.match(line):
            fence = opener.group(1)


def _json_row(line: str, number: int) -> Row | None:
    """A line's flat JSON object as a row on ``number``, or None."""
    found = _JSON_OBJECT.match(line)
    try:
        record = json.loads(found["object"]) if found else None
    except ValueError:
        return None
    fields = list(record.items()) if isinstance(record, dict) else []
    if len(fields) < 2 or not all(isinstance(v, str | int | float) for _, v in fields):
        return None
    header = tuple(str(key) for key, _ in fields)
    return Row(line=number, header=header, cells=tuple(str(value) for _, value in fields))


def _infobox_rows(chunk: Chunk) -> Iterator[Row]:
    """The chunk's wiki infoboxes, each a row under its field names (see
    :func:`~teams.extraction.data_blocks.infobox_records`)."""
    lines = chunk.text.split("\n")
    for number, header, cells in infobox_records(lines, chunk.start_line):
        yield Row(line=number, header=header, cells=cells)


def _fixed_width_rows(chunk: Chunk) -> Iterator[Row]:
    """The rows of the chunk's tables set out with spaces (see
    :mod:`teams.extraction.fixed_width`), in fenced blocks or not."""
    for number, header, cells in fixed_width_records(chunk.text.split("\n"), chunk.start_line):
        yield Row(line=number, header=header, cells=cells)


_READERS = {"xml": xml_records, "yaml": yaml_records, "yml": yaml_records, "sql": sql_records}
"""The record readers of the kinds of fenced block that are neither INI nor a graph."""


def _data_rows(chunk: Chunk) -> Iterator[Row]:
    """The records of the chunk's fenced XML, INI, YAML, SQL and graph blocks (see
    :mod:`teams.extraction.data_blocks`), each a row under its field names."""
    lines = chunk.text.split("\n")
    for index, line in enumerate(lines):
        if (opener := DATA_FENCE.match(line)) is None:
            continue
        fence, block = opener.group(1), []
        for text in lines[index + 1 :]:
            if text.strip().startswith(fence):
                break
            block.append(text)
        kind = opener["kind"].lower()
        read = _READERS.get(kind, graph_records if kind in GRAPHS else ini_records)
        for number, header, cells in read(block, chunk.start_line + index + 1):
            yield Row(line=number, header=header, cells=cells)


def read_documents(paths: Iterable[Path]) -> list[Document]:
    """The documents of files and folders (their corpus files, recursively), each file once,
    named by the path as given.

    Files are read as a corpus is (:func:`framework.memory.read_text`): only regular files
    (a symbolic link is followed to one), within the size limit (``$CADRE_MAX_FILE_MB``).

    Raises:
        CorpusError: A path does not exist, a folder holds no corpus file or cannot be listed
            (``cannot read folder PATH: permission denied``), a file is not a corpus file,
            cannot be read (``cannot read PATH: permission denied``), or is not a regular text
            file within the size limit (a :class:`~framework.errors.NotTextError`). Nothing is
            read past the first problem.
    """
    files: dict[str, tuple[Path, str]] = {}
    for path in paths:
        for file, display in _files_of(path):
            files.setdefault(os.path.realpath(file), (file, display))  # no error on link loops
    return [document_of(display, read_text(file)) for file, display in files.values()]


def _files_of(path: Path) -> list[tuple[Path, str]]:
    try:
        is_folder = stat.S_ISDIR(os.stat(path).st_mode)
    except OSError as error:
        if error.errno not in {errno.ENOENT, errno.ENOTDIR, errno.ELOOP}:
            raise CorpusError(f"cannot read {path}: {unreadable_reason(error)}") from None
        if not os.path.islink(path):  # a link loop or a broken link is refused by read_text
            raise CorpusError(
                f"{path} does not exist: pass files or folders of documents"
            ) from None
        is_folder = False
    if is_folder:
        found = corpus_files(path, on_error=_refuse_folder)
        if not found:
            raise CorpusError(f"{path} holds no {_SUFFIXES} files")
        return [(file, (path / file.relative_to(path)).as_posix()) for file in found]
    if path.suffix.lower() not in CORPUS_SUFFIXES:
        raise CorpusError(f"{path} is not a {_SUFFIXES} file")
    return [(path, path.as_posix())]  # read_text refuses what is not a regular file


def _refuse_folder(error: OSError) -> None:
    """Refuse a folder that cannot be listed, rather than leave its files out."""
    reason = unreadable_reason(error, gone="deleted before it was read")
    raise CorpusError(f"cannot read folder {error.filename}: {reason}")


def corpus_documents(corpus: Corpus) -> list[Document]:
    """The documents of an indexed corpus, rebuilt from its chunks (each file's prose)."""
    store, namespace = corpus.store, corpus.namespace
    documents = []
    for source, record in sorted(store.sources(namespace).items()):
        items = (store.get(namespace, key) for key in record.keys)
        chunks = [
            Chunk(
                id=item.key,
                path=source,
                start_line=int(item.metadata["start_line"]),
                end_line=int(item.metadata["end_line"]),
                heading=str(item.metadata.get("heading", "")),
                text=item.text,
                code=bool(item.metadata.get("code", False)),
            )
            for item in items
            if item is not None
        ]
        documents.append(_document(source, chunks))
    return documents
