"""A plain-text table whose columns are set out with spaces: a header line, a rule of dash runs
under it (one run per column), then a row per line, each cell under its column's run.

Example:
    >>> table = ["Bandstand     Year  Designer", "------------  ----  -----------",
    ...          "North Green   1889  Ada Marsh"]
    >>> list(fixed_width_records(table, 10))
    [(12, ('Bandstand', 'Year', 'Designer'), ('North Green', '1889', 'Ada Marsh'))]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from teams.extraction.data_blocks import Record

__all__ = ["fixed_width_records"]

_RULE = re.compile(r"^\s*-{2,}(?:[ \t]+-{2,})+\s*$")
_RUN = re.compile(r"-+")


def _cut(line: str, spans: Sequence[tuple[int, int]]) -> tuple[str, ...]:
    """``line`` cut into the columns ``spans`` mark, each running to the next column's start."""
    starts = [start for start, _ in spans]
    ends = [*starts[1:], max(len(line), spans[-1][1])]
    return tuple(" ".join(line[start:end].split()) for start, end in zip(starts, ends, strict=True))


def fixed_width_records(lines: Sequence[str], first_line: int) -> Iterator[Record]:
    """Each row of each space-aligned table in ``lines`` (the first on line ``first_line``)
    that fills every column, under its header; a blank line ends a table."""
    for at in range(1, len(lines)):
        if not _RULE.match(lines[at]) or not lines[at - 1].strip():
            continue
        spans = [(run.start(), run.end()) for run in _RUN.finditer(lines[at])]
        header = _cut(lines[at - 1], spans)
        if not all(header):
            continue
        for row in range(at + 1, len(lines)):
            if not lines[row].strip() or lines[row].lstrip().startswith("```"):
                break
            cells = _cut(lines[row], spans)
            if all(cells):
                yield first_line + row, header, cells
