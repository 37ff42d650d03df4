"""Markdown table rows read as statements: the row's subject, each column's attribute and value.

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

__all__ = ["table_statements"]

_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_UNIT = re.compile(r"^(.*?)\s*[(\[]\s*([^()\[\]]+?)\s*[)\]]\s*$")
_FIGURE = re.compile(r"^\d[\d,]*(?:\.\d+)?$")
_YEAR = re.compile(r"^(?:1[0-9]{3}|20[0-9]{2})$")
_GENERIC = frozenset("name item entry title id no number key field place thing".split())
_SIGNS = frozenset("$ € £ ¥".split())


def table_statements(text: str) -> str:
    """``text`` with every Markdown table's rows written as statements, line for line."""
    lines = text.split("\n")
    out = list(lines)
    index = 0
    while index + 1 < len(lines):
        if _ROW.match(lines[index]) and _RULE.match(lines[index + 1]):
            header = _cells(lines[index])
            out[index] = out[index + 1] = ""
            index += 2
            while index < len(lines) and _ROW.match(lines[index]):
                out[index] = _statement(header, _cells(lines[index]))
                index += 1
            continue
        index += 1
    return "\n".join(out)


def _cells(line: str) -> list[str]:
    matched = _ROW.match(line)
    inner = matched.group(1) if matched is not None else line
    return [" ".join(cell.strip().strip("*_`").split()) for cell in inner.split("|")]


def _statement(header: list[str], row: list[str]) -> str:
    """One row as "Subject: attribute value; ...".'"""
    if not row or not row[0]:
        return ""
    subject = _subject(header[0] if header else "", row[0])
    phrases = [
        _phrase(name, cell)
        for name, cell in zip(header[1:], row[1:], strict=False)
        if cell and cell not in ("-", "—", "–")
    ]
    return f"{subject}: {'; '.join(phrases)}." if phrases else ""


def _subject(name: str, cell: str) -> str:
    """The row's subject: its first cell, with the first header's noun when that is a word the
    cell lacks ("Brack" under "Lighthouse" is the Brack lighthouse)."""
    noun = name.lower()
    if noun.isalpha() and noun not in _GENERIC and noun not in cell.lower().split():
        return f"{cell} {noun}"
    return cell


def _phrase(name: str, cell: str) -> str:
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
