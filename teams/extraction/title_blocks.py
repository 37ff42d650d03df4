"""Who designed a thing, as a drawing's title block gives it: the box of fields in capitals an
engineering or architectural drawing carries ("TITLE: HARBOUR FOOTBRIDGE", "DESIGNED:
A. PENBERTHY", two fields to a line), or a ruled grid of the same fields, a row of labels over
a row of names ("DESIGNED │ DRAWN │ CHECKED"). The designer (or architect) designed the thing
the TITLE or PROJECT field names, which the page's top heading may name in full; who drew or
checked the sheet made nothing.

Example:
    >>> block = ["+----+", "| TITLE:    PUMP HOUSE          REV: C |",
    ...          "| DESIGNED: A. HOLM   DRAWN: B. NESS |", "+----+"]
    >>> list(title_block_fields(block))
    [(3, 'Pump House', 'designer', 'A. Holm')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import pairwise

from teams.extraction.labelled_records import Found, out_of_capitals

__all__ = ["title_block_fields"]

_FRAMED = re.compile(r"^\s*[|│║┃](?P<inner>.*)[|│║┃]\s*$")
"""A line inside a box: its text between the box's sides."""
_SEPARATOR = re.compile(r"\s*[|│║┃]\s*")
_FIELD = re.compile(
    r"(?:^|(?<=\s\s))(?P<label>[A-Z][A-Z.]*(?: (?:BY|NO|[A-Z]{2,}))?)(?::\s+|\s{2,})"
    r"(?P<value>\S.*?)(?=\s{2,}[A-Z][A-Z.]*(?: [A-Z]{2,})?:?\s|$)"
)
"""A field of a title block's line: a label in capitals, a colon or a wide space, its value
(up to the next label two spaces on)."""
_ROLES = {
    "DESIGNED": "designer",
    "DESIGNED BY": "designer",
    "DESIGNER": "designer",
    "DESIGN": "designer",
    "ARCHITECT": "architect",
}
"""The labels of a maker's role; "DRAWN", "CHECKED", "APPROVED" and the rest name none."""
_TITLES = frozenset({"TITLE", "PROJECT"})
_HEADING = re.compile(r"^#{1,2}\s+(?P<name>[^:#]+?)\s*(?::.*)?$")


def title_block_fields(lines: Sequence[str]) -> Iterator[Found]:
    """Each designer a title block names, ``(line, thing, role, who)``: of the thing its TITLE or
    PROJECT field names (its part before a comma, "HARBOUR FOOTBRIDGE, GENERAL ARRANGEMENT"),
    as the page's top heading names it when that heading holds those words."""
    framed = [(n, found["inner"]) for n, line in enumerate(lines) if (found := _FRAMED.match(line))]
    fields = [*_inline_fields(framed), *_grid_fields(framed)]
    title = next((value for _, label, value in fields if label in _TITLES), "")
    thing = _as_headed(title.split(",")[0].strip(), lines)
    if not thing:
        return
    for n, label, value in fields:
        if role := _ROLES.get(label):
            yield n + 1, thing, role, out_of_capitals(value)


def _inline_fields(framed: Sequence[tuple[int, str]]) -> Iterator[tuple[int, str, str]]:
    """The ``LABEL: value`` fields of the box's lines of one cell."""
    for n, inner in framed:
        if not _SEPARATOR.search(inner):
            for found in _FIELD.finditer(inner.strip()):
                yield n, found["label"], found["value"].strip()


def _grid_fields(framed: Sequence[tuple[int, str]]) -> Iterator[tuple[int, str, str]]:
    """A grid's fields: each cell of a row of labels in capitals over the cell below it."""
    for (n, labels), (m, values) in pairwise(framed):
        heads = _SEPARATOR.split(labels.strip())
        cells = _SEPARATOR.split(values.strip())
        if m == n + 1 and len(heads) == len(cells) > 1 and all(h.isupper() for h in heads):
            yield from ((m, head, cell) for head, cell in zip(heads, cells, strict=True) if cell)


def _as_headed(title: str, lines: Sequence[str]) -> str:
    """``title`` as the page's first heading names it when the heading holds it ("Kelby
    harbour footbridge" for "HARBOUR FOOTBRIDGE"), else as written."""
    heading = next((found for line in lines if (found := _HEADING.match(line))), None)
    if heading and title and title.lower() in heading["name"].lower():
        return heading["name"]
    return out_of_capitals(title)
