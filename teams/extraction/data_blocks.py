"""Records in fenced blocks of data, read as table rows: an XML block's elements (one whose
attributes name a thing's fields, ``<bridge name="X" builder="Y"/>``, or whose children each hold
one field, ``<name>X</name>`` then ``<engineer>Y</engineer>``) and an INI block's sections (the
section's name, then its ``key = value`` lines). Each record is ``(line, header, cells)``: the
line it starts on, its field names, its values.

Example:
    >>> list(xml_records(['<bridge name="Lynn bridge" builder="Hester Dunn"/>'], 5))
    [(5, ('name', 'builder'), ('Lynn bridge', 'Hester Dunn'))]
    >>> list(ini_records(["[Oke saw mill]", "builder = Clara Venn"], 8))
    [(8, ('name', 'builder'), ('Oke saw mill', 'Clara Venn'))]
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence

__all__ = ["DATA_FENCE", "Record", "ini_records", "xml_records"]

Record = tuple[int, tuple[str, ...], tuple[str, ...]]
"""A record: the line it starts on, its field names, its values."""

DATA_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*(?P<kind>xml|ini|cfg|conf|toml)\s*$", re.I)
"""The opening fence of a block of data read as records: "```xml", "```ini"."""

_ATTRIBUTED = re.compile(
    r"^\s*<(?P<tag>[\w:-]+)(?P<attributes>(?:\s+[\w:-]+\s*=\s*\"[^\"]*\")+)\s*/?>"
)
_ATTRIBUTE = re.compile(r"(?P<key>[\w:-]+)\s*=\s*\"(?P<value>[^\"]*)\"")
_LEAF = re.compile(r"^\s*<(?P<tag>[\w:-]+)>(?P<value>[^<>]*)</(?P=tag)>\s*$")
_SECTION = re.compile(r"^\s*\[(?P<name>[^\[\]]+)\]\s*$")
_SETTING = re.compile(r"^\s*(?P<key>[\w .-]+?)\s*[=:]\s*(?P<value>.*?)\s*$")
_MIN_FIELDS = 2


def xml_records(lines: Sequence[str], first_line: int) -> Iterator[Record]:
    """The records of an XML block's ``lines`` (the first on ``first_line``): an element with
    two or more attributes, and a run of two or more elements that each hold only text."""
    leaves: list[tuple[int, str, str]] = []
    for number, line in enumerate(lines, first_line):
        if leaf := _LEAF.match(line):
            leaves.append((number, leaf["tag"], html.unescape(leaf["value"].strip())))
            continue
        yield from _leaf_record(leaves)
        leaves = []
        if element := _ATTRIBUTED.match(line):
            fields = _ATTRIBUTE.findall(element["attributes"])
            if len(fields) >= _MIN_FIELDS:
                yield (
                    number,
                    tuple(key for key, _ in fields),
                    tuple(html.unescape(value) for _, value in fields),
                )
    yield from _leaf_record(leaves)


def _leaf_record(leaves: Sequence[tuple[int, str, str]]) -> Iterator[Record]:
    if len(leaves) >= _MIN_FIELDS:
        yield leaves[0][0], tuple(tag for _, tag, _ in leaves), tuple(v for _, _, v in leaves)


def ini_records(lines: Sequence[str], first_line: int) -> Iterator[Record]:
    """The records of an INI block's ``lines`` (the first on ``first_line``): each section, its
    name under ``name``, then its settings (comments and blank lines skipped)."""
    section: tuple[int, str] | None = None
    fields: list[tuple[str, str]] = []
    for number, line in enumerate(lines, first_line):
        if opened := _SECTION.match(line):
            yield from _section_record(section, fields)
            section, fields = (number, opened["name"].strip()), []
        elif (
            section
            and not line.lstrip().startswith(("#", ";"))
            and (setting := _SETTING.match(line))
        ):
            fields.append((setting["key"], setting["value"].strip("\"'")))
    yield from _section_record(section, fields)


def _section_record(
    section: tuple[int, str] | None, fields: list[tuple[str, str]]
) -> Iterator[Record]:
    if section is not None and fields:
        header = ("name", *(key for key, _ in fields))
        yield section[0], header, (section[1], *(value for _, value in fields))
