"""Markdown tables: their rows, and the rows read as statements (the row's subject, each
column's attribute and value). A ditto cell ("ditto", "do.", "〃") holds the cell above it.

A table row holds no sentence, so its values were invisible to the readers. Each row becomes
one statement on its own line (the header and rule lines become blank), so a citation of
``path:line`` still points at the row:

    | Lighthouse | Lamps | Fuel |        ->  (blank)
    |---|---|---|                       ->  (blank)
    | Brack | 4 | gas |                 ->  Brack lighthouse: 4 lamps; fuel gas.

A bare figure under a plural header is a count of it ("4 lamps"); a unit in the header
("Length (m)") goes after the figure; a year under a verb or "Year" is a date ("opened in
1911"); any other cell is "header value".

Example:
    >>> table_statements("| Bridge | Opened | Length (m) |\\n|---|---|---|\\n| Esk | 1930 | 95 |")
    '\\n\\nEsk bridge: opened in 1930; length 95 m.'
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

from teams.language.outdated import rejecting_at_end

__all__ = [
    "DITTO",
    "Table",
    "cell_phrase",
    "grid_tables",
    "header_noun",
    "latex_tables",
    "list_tables",
    "markdown_tables",
    "simple_tables",
    "table_statements",
]

_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_UNIT = re.compile(r"^(.*?)\s*[(\[]\s*([^()\[\]]+?)\s*[)\]]\s*$")
_FIGURE = re.compile(r"^\d[\d,]*(?:\.\d+)?$")
_YEAR = re.compile(r"^(?:1[0-9]{3}|20[0-9]{2})$")
_GENERIC = frozenset("name item entry title id no number key field place thing".split())
_SIGNS = frozenset("$ € £ ¥".split())


@dataclass(frozen=True)
class Table:
    """A Markdown table: the line of its header row, the header's cells, and each row's line
    and cells (markup trimmed, spaces single)."""

    line: int
    header: tuple[str, ...]
    rows: tuple[tuple[int, tuple[str, ...]], ...]
    end: int = 0
    """A drawn table's last line (its bottom border); 0 for a Markdown table."""


def markdown_tables(text: str, first_line: int = 1) -> list[Table]:
    """The tables of ``text`` (a header row, a rule, then rows), numbering its lines from
    ``first_line``."""
    lines = text.split("\n")
    tables = []
    index = 0
    while index + 1 < len(lines):
        if _ROW.match(lines[index]) and _RULE.match(lines[index + 1]):
            header, index = index, index + 2
            rows = []
            while index < len(lines) and _ROW.match(lines[index]):
                rows.append((first_line + index, _cells(lines[index])))
                index += 1
            tables.append(Table(first_line + header, _cells(lines[header]), _filled(rows)))
            continue
        index += 1
    return tables


_LIST_TABLE = re.compile(r"^(?P<indent>\s*)\.\.\s+list-table::")
_HEADER_ROWS = re.compile(r"^\s*:header-rows:\s*(\d+)\s*$")
_FIRST_CELL = re.compile(r"^(?P<indent>\s*)\*\s+-\s+(?P<cell>.*)$")
_NEXT_CELL = re.compile(r"^\s+-\s+(?P<cell>.*)$")


def list_tables(text: str, first_line: int = 1) -> list[Table]:
    """The reStructuredText ``list-table`` directives of ``text`` that have a header row
    (":header-rows: 1"), as tables: each "* -" item a row, each "-" under it a cell, numbering
    lines from ``first_line``."""
    lines = text.split("\n")
    tables = []
    for index, line in enumerate(lines):
        opened = _LIST_TABLE.match(line)
        if opened is None:
            continue
        headers, rows = 0, []
        for at in range(index + 1, len(lines)):
            body = lines[at]
            if body.strip() and len(body) - len(body.lstrip()) <= len(opened["indent"]):
                break  # the directive's block has ended
            if found := _HEADER_ROWS.match(body):
                headers = int(found[1])
            elif found := _FIRST_CELL.match(body):
                rows.append((first_line + at, [found["cell"].strip()]))
            elif (found := _NEXT_CELL.match(body)) and rows:
                rows[-1][1].append(found["cell"].strip())
            elif body.strip() and rows:  # a cell's text goes on
                rows[-1][1][-1] = f"{rows[-1][1][-1]} {body.strip()}"
        if headers >= 1 and len(rows) > headers:
            header_line, header = rows[headers - 1]
            body_rows = [(number, tuple(cells)) for number, cells in rows[headers:]]
            tables.append(Table(header_line, tuple(header), _filled(body_rows)))
    return tables


_GRID_BORDER = re.compile(r"^\s*\+(?:[-=]+\+)+\s*$")
_BOX_DRAWING = str.maketrans(
    {
        **dict.fromkeys("│┃║╎╏┆┇┊┋╽╿", "|"),
        **dict.fromkeys("─━┄┅┈┉╌╍╼╾", "-"),
        "═": "=",
        **{
            chr(code): "+"
            for code in range(0x250C, 0x2571)
            if chr(code) not in "│┃║╎╏┆┇┊┋╽╿─━┄┅┈┉╌╍╼╾═"
        },
    }
)
"""Box-drawing characters as the ASCII of a grid table: bars "|", lines "-" ("=" double),
corners and junctions "+" (one character for one, so columns stay where they were)."""
_INLINE_TAG = re.compile(r"</?(?:span|pre|b|i|em|strong|code|font|u)\b[^<>]*>", re.IGNORECASE)
"""An inline HTML tag of a table saved as HTML (a terminal's output in ``<pre>``)."""


def grid_tables(text: str, first_line: int = 1) -> list[Table]:
    """The grid tables of ``text`` ("+----+" borders, "|" between cells, or the same drawn with
    box-drawing characters, as terminal programs print them, inline HTML tags such as a
    ``<span>`` of colour left out) that have a header row, as tables, numbering lines from
    ``first_line``. The header is the row above an "=" rule (a reStructuredText grid table),
    or the first row where only the one rule under it parts the rows (a database shell's or a
    terminal library's table: each line below is a row); a row between two borders has its
    cells' lines joined; a column empty in every row (a colour swatch) is left out."""
    lines = [_INLINE_TAG.sub("", line) for line in text.translate(_BOX_DRAWING).split("\n")]
    tables: list[Table] = []
    index = 0
    while index < len(lines):
        if not _GRID_BORDER.match(lines[index]):
            index += 1
            continue
        rows, ruled, index = _grid_rows(lines, index)
        if ruled is not None and 0 < ruled < len(rows):
            header_line, header = rows[ruled - 1]
            body = [(first_line + at, cells) for at, cells in rows[ruled:]]
            kept = [at for at in range(len(header)) if any(cells[at] for _, cells in body)]
            tables.append(
                Table(
                    first_line + header_line,
                    tuple(header[at] for at in kept),
                    _filled([(line, tuple(cells[at] for at in kept)) for line, cells in body]),
                    end=first_line + index - 1,
                )
            )
    return tables


_SIMPLE_BORDER = re.compile(r"^\s*=+(?:[ \t]+=+)+\s*$")
_SIMPLE_RULE = re.compile(r"^\s*[=-]+(?:[ \t]+[=-]+)+\s*$")


def simple_tables(text: str, first_line: int = 1) -> list[Table]:
    """The reStructuredText simple tables of ``text`` (a border of "=" runs, one per column, a
    header row, a rule of "=" or "-" runs, rows, a closing border or the text's end, where a
    chunk cut a table) as tables, numbering lines from ``first_line``: a row starts where its
    first column has text; a line whose first column is blank goes on with the row above;
    each column runs to where the next starts, counted from the border's indentation."""
    lines = text.split("\n")
    tables: list[Table] = []
    index = 0
    while index + 2 < len(lines):
        if not (
            _SIMPLE_BORDER.match(lines[index])
            and lines[index + 1].strip()
            and _SIMPLE_RULE.match(lines[index + 2])
        ):
            index += 1
            continue
        indent = len(lines[index]) - len(lines[index].lstrip())
        starts = [run.start() - indent for run in re.finditer(r"=+", lines[index])]
        header = _columns(lines[index + 1], starts, indent)
        rows: list[tuple[int, list[str]]] = []
        at = index + 3
        while at < len(lines) and not _SIMPLE_BORDER.match(lines[at]):
            cells = _columns(lines[at], starts, indent)
            if cells[0]:
                rows.append((first_line + at, list(cells)))
            elif rows and any(cells):
                joined = zip(rows[-1][1], cells, strict=True)
                rows[-1] = (rows[-1][0], [f"{a} {b}".strip() for a, b in joined])
            at += 1
        if rows:  # a table cut from its chunk's end has no closing border
            body = [(line, tuple(cells)) for line, cells in rows]
            end = first_line + min(at, len(lines) - 1)
            tables.append(Table(first_line + index + 1, header, _filled(body), end=end))
        index = at + 1
    return tables


def _columns(line: str, starts: Sequence[int], indent: int) -> tuple[str, ...]:
    """``line`` cut at the columns' ``starts`` (counted from the table's ``indent``, which a
    line cut from its chunk's start may have lost), each cell's spaces made single."""
    line = line[indent:] if not line[:indent].strip() else line.lstrip()
    ends = [*starts[1:], max(len(line), starts[-1])]
    return tuple(" ".join(line[a:b].split()) for a, b in zip(starts, ends, strict=True))


_TABULAR = re.compile(r"\\begin\{(?:tabular|tabularx|longtable)\*?\}")
_TABULAR_END = re.compile(r"\\end\{(?:tabular|tabularx|longtable)\*?\}")
_LATEX_CELL_SPLIT = re.compile(r"(?<!\\)&")
_LATEX_STYLE = re.compile(r"\\(?:textbf|textit|emph|texttt|textsc|underline|mbox)\{([^{}]*)\}")
_LATEX_COMMAND = re.compile(r"\\(?:hline|toprule|midrule|bottomrule|cline\{[^{}]*\})")


def latex_tables(text: str, first_line: int = 1) -> list[Table]:
    """The LaTeX ``tabular`` environments of ``text`` (cells split by "&", rows ending in
    "\\\\", rules such as "\\hline" dropped, a cell's "\\textbf{...}" read as its text), each
    as a table whose first row is its header, numbering lines from ``first_line``: a table
    copied from a report's source is data, in a code block or not."""
    lines = text.split("\n")
    tables: list[Table] = []
    index = 0
    while index < len(lines):
        if not _TABULAR.search(lines[index]):
            index += 1
            continue
        rows: list[tuple[int, tuple[str, ...]]] = []
        index += 1
        while index < len(lines) and not _TABULAR_END.search(lines[index]):
            row = _LATEX_COMMAND.sub("", lines[index]).split("\\\\")[0]
            if _LATEX_CELL_SPLIT.search(row):
                cells = tuple(_latex_text(cell) for cell in _LATEX_CELL_SPLIT.split(row))
                rows.append((first_line + index, cells))
            index += 1
        if len(rows) > 1:
            tables.append(Table(rows[0][0], rows[0][1], _filled(rows[1:])))
    return tables


def _latex_text(cell: str) -> str:
    """A LaTeX cell as plain text: its styling commands' text, escaped "&" and "%" as written."""
    plain = _LATEX_STYLE.sub(r"\1", cell).replace("\\&", "&").replace("\\%", "%")
    return " ".join(plain.split())


def _grid_rows(
    lines: Sequence[str], start: int
) -> tuple[list[tuple[int, tuple[str, ...]]], int | None, int]:
    """The rows of the grid table whose top border is line ``start`` (each as its first line's
    index and its cells), how many rows are above its header rule (None when it has none:
    see :func:`grid_tables`), and the index of the line after it."""
    stops = [at for at, mark in enumerate(lines[start].lstrip()) if mark == "+"]
    blocks: list[list[int]] = [[]]
    closed = 0  # the blocks a border has closed
    ruled: int | None = None
    index = start + 1
    while index < len(lines) and (lines[index].lstrip().startswith(("|", "+"))):
        if not _GRID_BORDER.match(lines[index]):
            blocks[-1].append(index)
        elif blocks[-1]:
            closed += 1
            ruled = len(blocks) if "=" in lines[index] and ruled is None else ruled
            blocks.append([])
        index += 1
    blocks = [block for block in blocks if block]
    ruled = None if ruled == len(blocks) else ruled  # the bottom border drawn double
    if ruled is None and 1 <= closed <= 2 and len(blocks) == 2:  # no bottom: a cut table
        blocks = [blocks[0], *([at] for at in blocks[1])]  # a shell's table: a row a line
        ruled = 1
    rows = [
        (
            block[0],
            tuple(
                " ".join(" ".join(lines[at].lstrip()[a + 1 : b] for at in block).split())
                for a, b in pairwise(stops)
            ),
        )
        for block in blocks
    ]
    return rows, ruled, index


DITTO = frozenset({"ditto", "ditto.", "do.", "〃", '"', "''", "″", "”"})
"""What a cell says "as above" with: the cell above it in its column."""


def _filled(
    rows: Sequence[tuple[int, tuple[str, ...]]],
) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """The rows with each ditto cell ("ditto", "do.", "〃") holding the cell above it."""
    filled: list[tuple[int, tuple[str, ...]]] = []
    for number, cells in rows:
        above = filled[-1][1] if filled else ()
        filled.append(
            (
                number,
                tuple(
                    above[at] if cell.lower() in DITTO and at < len(above) else cell
                    for at, cell in enumerate(cells)
                ),
            )
        )
    return tuple(filled)


def table_statements(text: str, lead: str = "") -> str:
    """``text`` with every Markdown, grid or simple table's rows written as statements, line for
    line; a cell marked for a footnote ("320*" over "\\* Before the gallery was taken out.") keeps
    its note beside its value ("320 seats (before the gallery was taken out)"); a caption giving the
    figures in thousands or millions multiplies them out (:func:`_scaled`), and a key saying the
    figures in brackets are last year's drops them, the row rejecting its old figure
    (:func:`_without_old`). On a page saying its change is finished, a "Before ..." / "After ..."
    table states the after figure and rejects the before one (:func:`_before_after`). ``lead``: the
    head of the table ``text`` was cut from, read with it (see
    :attr:`framework.memory.Passage.lead`); only ``text``'s lines are given back."""
    if lead:
        return table_statements(f"{lead}\n{text}").split("\n", lead.count("\n") + 1)[-1]
    out = text.split("\n")
    notes = _footnotes(text)
    finished = bool(_FINISHED.search(text))
    old_in_brackets = bool(_OLD_IN_BRACKETS.search(text))
    for found in [*markdown_tables(text), *grid_tables(text), *simple_tables(text)]:
        table, rejected = _scaled(found, out), dict[int, str]()
        if old_in_brackets:
            table, rejected = _without_old(table)
        for index in _drawing(table):
            out[index] = ""
        if _yearly(table, out) or (finished and _before_after(table, out)):
            continue
        for line, row in table.rows:
            marks = [notes.get(mark, "") for mark in _marks(out[line - 1])]
            out[line - 1] = _rejecting(_statement(table.header, row, marks), rejected.get(line))
    return "\n".join(out)


def _drawing(table: Table) -> Iterator[int]:
    """The indexes of a table's lines that hold no row of its body: a Markdown table's header
    and rule; a grid table's borders, header and the lines a row goes on over."""
    if not table.end:
        yield from (table.line - 1, table.line)
        return
    rows = {line - 1 for line, _ in table.rows}
    yield from (index for index in range(table.line - 2, table.end) if index not in rows)


_OLD_IN_BRACKETS = re.compile(
    r"\b(?:figures?|numbers?|values?)\s+in\s+(?:brackets|parenthes[ie]s)\s+(?:are|were|show|give)"
    r"\s+(?:those\s+(?:of|for)\s+)?(?:last\s+year|the\s+previous|previous|earlier|the\s+year\s+"
    r"before|old|last\s+season)",
    re.IGNORECASE,
)
"""A table's key saying its bracketed figures are the old ones: "Figures in brackets are last
year's."."""
_BRACKETED = re.compile(r"^(?P<now>[^()]+?)\s*\((?P<then>[^()]+)\)$")


def _without_old(table: Table) -> tuple[Table, dict[int, str]]:
    """``table`` without the old figures its key puts in brackets ("8 (6)" is 8; a header's
    "(last year)" goes too), and the old figure each row's statement rejects, by line."""
    header = tuple(_BRACKETED.sub(r"\g<now>", name) for name in table.header)
    rows, rejected = [], {}
    for line, row in table.rows:
        cells = []
        for cell in row:
            found = _BRACKETED.match(cell)
            if found is None or not re.search(r"\d", found["then"]):
                cells.append(cell)
                continue
            cells.append(found["now"])
            if found["now"].strip() != found["then"].strip():
                rejected[line] = found["then"].strip()
        rows.append((line, tuple(cells)))
    return Table(table.line, header, tuple(rows)), rejected


def _rejecting(statement: str, old: str | None) -> str:
    """``statement`` rejecting the figure ``old`` at its end ("Lanes: 8, not 6.")."""
    return rejecting_at_end(statement, old) if old and statement else statement


_SCALE = re.compile(r"\bin\s+(?P<scale>thousands|millions|billions)\b", re.IGNORECASE)
_SCALES = {"thousands": 1_000, "millions": 1_000_000, "billions": 1_000_000_000}
_CAPTION_REACH = 2


def _scaled(table: Table, lines: Sequence[str]) -> Table:
    """``table`` with its figures multiplied out when the line above it (its caption, within
    two lines) says they are given in thousands or millions ("Visitors by year (figures in
    thousands):" over "| 2021 | 14 |" is 14,000); a column of years stays as it is."""
    above = lines[max(0, table.line - 1 - _CAPTION_REACH) : table.line - 1]
    scale = next((_SCALE.search(line) for line in reversed(above) if _SCALE.search(line)), None)
    if scale is None:
        return table
    factor = _SCALES[scale["scale"].lower()]
    years = {i for i, name in enumerate(table.header) if name.lower() in _YEAR_HEADERS - {""}}

    def scaled(index: int, cell: str) -> str:
        if index in years or not _FIGURE.match(cell) or (_YEAR.match(cell) and not years):
            return cell
        return f"{float(cell.replace(',', '')) * factor:,.0f}"

    rows = tuple(
        (line, tuple(scaled(i, cell) for i, cell in enumerate(row))) for line, row in table.rows
    )
    return Table(table.line, table.header, rows)


_FINISHED = re.compile(
    r"\b(?:is|are|was|were|has\s+been|have\s+been)\s+(?:now\s+)?"
    r"(?:finished|complete|completed|done|over)\b",
    re.IGNORECASE,
)
"""A page saying its change is finished ("The refit is finished")."""
_BEFORE = re.compile(r"^(?:before|old|previous|formerly)\b", re.IGNORECASE)
_AFTER = re.compile(r"^(?:after|new|now|current)\b", re.IGNORECASE)


def _before_after(table: Table, out: list[str]) -> bool:
    """Writes a table of a finished change into ``out`` and says whether it was one: a header
    of the subject, a "Before ..." and an "After ..." column, a row per attribute with two
    figures ("| Berths | 3 | 5 |" under "| Kell station | Before the refit | After the refit |"
    is "Kell station: 5 berths after the refit, not 3.")."""
    header = table.header
    if len(header) != 3 or header[0].lower() in (*_GENERIC, ""):
        return False
    if not (_BEFORE.match(header[1]) and _AFTER.match(header[2])):
        return False
    rows = [row for _, row in table.rows]
    if not rows or any(len(row) != 3 or not all(map(_FIGURE.match, row[1:])) for row in rows):
        return False
    for line, (name, old, new) in table.rows:
        after = header[2][:1].lower() + header[2][1:]
        out[line - 1] = f"{header[0]}: {cell_phrase(name, new)} {after}, not {old}."
    return True


_YEAR_HEADERS = frozenset(("", "year", "years", "date"))


def _yearly(table: Table, out: list[str]) -> bool:
    """Writes a year-by-year table into ``out`` and says whether it was one: a row per year
    under a "Year" column, or a column per year after a "Year" cell. The latest year's figures
    are stated as current on their own line ("As of 2024, there are 164 members."), each
    earlier year's in the past ("In 2015, there were 118 members."): on its row's line, or,
    in a table with a column per year, on the header's line (the line naming the years)."""
    if table.header[:1] and table.header[0].lower() not in _YEAR_HEADERS:
        return False
    years = [row[0] for _, row in table.rows]
    if table.header[0] and _distinct_years(years):
        for line, row in table.rows:
            phrases = _phrases(table.header[1:], row[1:])
            out[line - 1] = _dated(row[0], phrases, current=row[0] == max(years))
        return True
    columns = table.header[1:]
    if not _distinct_years(columns):
        return False
    latest = columns.index(max(columns))
    earlier: dict[str, list[str]] = {year: [] for year in columns if year != columns[latest]}
    for line, row in table.rows:
        cells = [*row[1:], *[""] * len(columns)]
        out[line - 1] = _dated(columns[latest], _phrases(row[:1], cells[latest:]), current=True)
        for year, cell in zip(columns, cells, strict=False):
            if year in earlier:
                earlier[year] += _phrases(row[:1], (cell,))
    out[table.line - 1] = " ".join(filter(None, (_dated(y, s) for y, s in earlier.items())))
    return True


def _distinct_years(cells: Sequence[str]) -> bool:
    """Whether ``cells`` are two years or more, each once."""
    return len(cells) >= 2 and len(set(cells)) == len(cells) and all(map(_YEAR.match, cells))


def _phrases(names: Sequence[str], cells: Sequence[str]) -> list[str]:
    """Each filled cell under its header's name (:func:`_phrase`)."""
    return [
        cell_phrase(name, cell)
        for name, cell in zip(names, cells, strict=False)
        if cell and cell not in ("-", "—", "–")
    ]


_COUNTED = re.compile(r"^\d[\d,]*(?:\.\d+)? [a-z]+s$")


def _dated(year: str, phrases: Sequence[str], *, current: bool = False) -> str:
    """The figures of one year as a statement, current ("As of 2024, there are 164 members.")
    or past ("In 2015, there were 118 members."); "" when there are none."""
    if not phrases:
        return ""
    lead = f"As of {year}," if current else f"In {year},"
    if all(_COUNTED.match(phrase) for phrase in phrases):
        return f"{lead} there {'are' if current else 'were'} {' and '.join(phrases)}."
    return f"{lead} {'; '.join(phrases)}."


_MARK = r"\\?\*{1,3}|[†‡§¶]|\[\^?\w{1,4}\]|[¹²³⁴⁵⁶⁷⁸⁹]"
_TRAILING_MARK = re.compile(rf"\s*(?:{_MARK})$")
_MARKED = re.compile(rf"^[^*]*?\S\s*(?P<mark>{_MARK})$")
_NOTE = re.compile(rf"^\s*(?P<mark>{_MARK}):?\s+(?P<note>\w.*?)\s*$", re.MULTILINE)


def _footnotes(text: str) -> dict[str, str]:
    """The footnotes of ``text`` by their marks ("\\* Before 2019." and "[^1]: Estimated."
    under a table: {"*": "before 2019", "[1]": "estimated"})."""
    return {
        _mark(found["mark"]): found["note"].rstrip(".")[:1].lower() + found["note"].rstrip(".")[1:]
        for found in _NOTE.finditer(text)
    }


def _marks(line: str) -> list[str]:
    """The footnote mark each cell of a table row ends with ("320*": "*"), or ""."""
    matched = _ROW.match(line)
    cells = (matched.group(1) if matched is not None else line).split("|")
    found = [_MARKED.match(cell.strip()) for cell in cells]
    return [_mark(mark["mark"]) if mark else "" for mark in found]


def _mark(mark: str) -> str:
    """A footnote mark as one key: no escaping backslash, "[^1]" as "[1]"."""
    return mark.lstrip("\\").replace("^", "")


def _cells(line: str) -> tuple[str, ...]:
    matched = _ROW.match(line)
    inner = matched.group(1) if matched is not None else line
    return tuple(" ".join(cell.strip().strip("*_`").split()) for cell in inner.split("|"))


def _statement(header: tuple[str, ...], row: tuple[str, ...], notes: Sequence[str] = ()) -> str:
    """One row as "Subject: attribute value (its footnote); ..."; a row of a two-column table
    of items ("| Item | This year |") as its item's value ("Lanes: 8 lanes this year.").'"""
    if not row or not row[0]:
        return ""
    subject = _subject(header[0] if header else "", row[0])
    if len(header) == len(row) == 2 and header[0].lower() in _GENERIC and not any(notes):
        return f"{subject}: {cell_phrase(row[0], row[1])} {header[1].lower()}.".replace(" .", ".")
    noted = [*notes[1 : len(row)], *[""] * len(row)]
    phrases = [
        cell_phrase(name, _TRAILING_MARK.sub("", cell) if note else cell).removesuffix(".")
        + (f" ({note})" if note else "")
        for name, cell, note in zip(header[1:], row[1:], noted, strict=False)
        if cell and cell not in ("-", "—", "–")
    ]
    return f"{subject}: {'; '.join(phrases)}." if phrases else ""


def header_noun(name: str) -> str:
    """The kind of thing a column's header names ("Lighthouse": lighthouse); "" for a generic
    header ("Name", "Item") or one of several words."""
    noun = name.lower()
    return noun if noun.isalpha() and noun not in _GENERIC else ""


def _subject(name: str, cell: str) -> str:
    """The row's subject: its first cell, with the first header's noun when that is a word the
    cell lacks ("Brack" under "Lighthouse" is the Brack lighthouse)."""
    noun = header_noun(name)
    return f"{cell} {noun}" if noun and noun not in cell.lower().split() else cell


def cell_phrase(name: str, cell: str) -> str:
    """One cell under its column's header, in words the value readers know."""
    unit = ""
    matched = _UNIT.match(name)
    if matched is not None:
        name, unit = matched.group(1), matched.group(2)
    attribute = name.lower()
    if _FIGURE.match(cell):
        if unit in _SIGNS:
            return f"{attribute} {unit}{cell}".strip()
        if unit:
            return f"{attribute} {cell} {unit}".strip()
        if _YEAR.match(cell) and not attribute.endswith("s"):
            return f"{attribute} in {cell}".strip()
        if attribute.isalpha() and attribute.endswith("s"):
            return f"{cell} {attribute}"
    return f"{attribute} {cell}".strip()
