"""Where a long table is cut into chunks: between its rows, never inside one, each piece after
the first read under the table's head.

A table's rows mean nothing without its header, so a chunk cut from the middle of a table keeps
the head's lines beside it (:attr:`Chunk.lead <framework.memory._chunking.Chunk.lead>`). Three
shapes are known: a Markdown table (header row and rule), a reStructuredText simple table (a
border of "=" runs, the header, a rule; a row starts where its first column has text) and a grid
table, drawn with "+", "-", "=" and "|" or with box-drawing characters as terminal programs
print it, inline HTML tags aside (its head ends at the first border under the header; a row
starts after a border, or on every line where no border parts the rows).

Example:
    >>> table = ["| Mill | Year |", "|---|---|", "| Esk | 1801 |", "| Orley | 1811 |"]
    >>> table_cuts(table, 30)
    (2, [3])
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["table_cuts"]

_MARKDOWN_ROW = re.compile(r"^\s*\|.*\|\s*$")
_MARKDOWN_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_SIMPLE_BORDER = re.compile(r"^\s*=+(?:[ \t]+=+)+\s*$")
_SIMPLE_RULE = re.compile(r"^\s*[=-]+(?:[ \t]+[=-]+)+\s*$")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_LINES = frozenset("-=─━═┄┅┈┉╌╍")
"""The horizontal strokes of a border."""
_STROKES = frozenset("+") | frozenset(map(chr, range(0x2500, 0x2580))) - frozenset("│┃║╎╏┆┇┊┋╽╿")
"""What a drawn border is made of: corners, junctions and horizontal strokes, no bars."""
_MOST_HEAD = 8
"""The most lines a table's head may take (its header rows and rules)."""


def table_cuts(lines: Sequence[str], max_chars: int) -> tuple[int, list[int]] | None:
    """For a paragraph's ``lines`` that make a table: how many lines its head takes, and the
    indexes of the lines where its chunks after the first start, each chunk's rows about
    ``max_chars`` long with the head beside it (a row longer than that is a chunk of its own);
    None when the lines are no table."""
    head = _head(lines)
    if head is None:
        return None
    budget = max(max_chars - sum(len(line) + 1 for line in lines[:head]), max_chars // 2)
    starts = _row_starts(lines, head)
    cuts: list[int] = []
    size = sum(len(line) + 1 for line in lines[:head])
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        row = sum(len(line) + 1 for line in lines[start:end])
        if size + row > (budget if cuts else max_chars) and size > 0 and start > head:
            cuts.append(start)
            size = 0
        size += row
    return head, cuts


def _head(lines: Sequence[str]) -> int | None:
    """How many lines the head of the table ``lines`` make takes; None when they are none."""
    if len(lines) < 3:
        return None
    if _MARKDOWN_ROW.match(lines[0]) and _MARKDOWN_RULE.match(lines[1]):
        return 2
    if _SIMPLE_BORDER.match(lines[0]) and lines[1].strip() and _SIMPLE_RULE.match(lines[2]):
        return 3
    if _border(lines[0]):
        return next(
            (at + 1 for at in range(2, min(len(lines), _MOST_HEAD)) if _border(lines[at])), None
        )
    return None


def _border(line: str) -> bool:
    """Whether ``line`` is a drawn table's border: "+----+----+", "╔══╤══╗"."""
    drawn = _TAG.sub("", line).strip()
    return (
        len(drawn) >= 3
        and drawn[0] not in _LINES
        and any(mark in _LINES for mark in drawn)
        and all(mark in _STROKES or mark in _LINES for mark in drawn)
    )


def _row_starts(lines: Sequence[str], head: int) -> list[int]:
    """The indexes of the lines below the head where a row of the table starts."""
    below = range(head, len(lines))
    if _SIMPLE_BORDER.match(lines[0]):
        indent = len(lines[0]) - len(lines[0].lstrip())
        return [
            at
            for at in below
            if lines[at][indent : indent + 1].strip() and not _SIMPLE_RULE.match(lines[at])
        ] or [head]
    if not _border(lines[0]):
        return list(below)  # a Markdown table: a row a line
    borders = [at for at in below if _border(lines[at])]
    parted = len(borders) > 1  # more than the bottom one
    starts = [
        at
        for at in below
        if not _border(lines[at]) and (not parted or at == head or _border(lines[at - 1]))
    ]
    return starts or [head]
