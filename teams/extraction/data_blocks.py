"""Records in fenced blocks of data, read as table rows: an XML block's elements (one whose
attributes name a thing's fields, ``<bridge name="X" builder="Y"/>``, or whose children each hold
one field, ``<name>X</name>`` then ``<engineer>Y</engineer>``), an INI block's sections (the
section's name, then its ``key = value`` lines), a YAML block's mappings (each item of a list,
``- lock: X`` then ``designer: Y``), the rows of an SQL ``INSERT ... VALUES``, a wiki's
infobox (``{{Infobox mill`` then ``| builder = Y`` lines) and a graph's labelled edges (Mermaid's
``A[Mara Quill] -- designed --> B[Tern bridge]``, Graphviz's ``"X" -> "Y" [label="built"]``:
the target's name, then the source under the label, "designed by"). Each record is ``(line,
header, cells)``: the line it starts on, its field names, its values.

Example:
    >>> list(xml_records(['<bridge name="Lynn bridge" builder="Hester Dunn"/>'], 5))
    [(5, ('name', 'builder'), ('Lynn bridge', 'Hester Dunn'))]
    >>> list(ini_records(["[Oke saw mill]", "builder = Clara Venn"], 8))
    [(8, ('name', 'builder'), ('Oke saw mill', 'Clara Venn'))]
    >>> list(graph_records(["  A[Mara Quill] -- designed --> B[Tern bridge]"], 3))
    [(3, ('name', 'designed by'), ('Tern bridge', 'Mara Quill'))]
    >>> list(yaml_records(["- lock: Lee lock", "  designer: Ada Hart"], 2))
    [(2, ('lock', 'designer'), ('Lee lock', 'Ada Hart'))]
    >>> box = ["{{Infobox mill", "| builder = Jo Rudd", "| name = Oke mill", "}}"]
    >>> list(infobox_records(box, 1))
    [(1, ('name', 'builder'), ('Oke mill', 'Jo Rudd'))]
    >>> list(sql_records(["INSERT INTO mills (name, built_by) VALUES ('Oke mill', 'Jo Rudd');"], 4))
    [(4, ('name', 'built by'), ('Oke mill', 'Jo Rudd'))]
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence

import yaml

__all__ = [
    "DATA_FENCE",
    "Record",
    "graph_records",
    "infobox_records",
    "ini_records",
    "sql_records",
    "xml_records",
    "yaml_records",
]

Record = tuple[int, tuple[str, ...], tuple[str, ...]]
"""A record: the line it starts on, its field names, its values."""

DATA_FENCE = re.compile(
    r"^ {0,3}(`{3,}|~{3,})\s*(?P<kind>xml|ini|cfg|conf|toml|mermaid|dot|graphviz|ya?ml|sql)\s*$",
    re.I,
)
"""The opening fence of a block of data read as records: "```xml", "```ini", "```mermaid"."""
GRAPHS = frozenset({"mermaid", "dot", "graphviz"})
"""The kinds of fenced block that draw a graph (see :func:`graph_records`)."""

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


_NODE = (
    r"(?P<{0}>\w+)(?:\s*(?:\[\(?|\(\(?|\{{)\s*\"?(?P<{0}_text>[^\]\)\}}\"]+?)\"?\s*"
    r"(?:\)?\]|\)\)?|\}}))?"
)
"""A Mermaid node, its id (group named by the format's argument) and its text in brackets:
``A[Mara Quill]``, ``B(Tern bridge)``, ``C{Gate}``, ``D["Ivo Hart"]``."""
_MERMAID_EDGE = re.compile(
    rf"^\s*{_NODE.format('source')}\s*(?:--\s*(?P<label>[^->|][^->|]*?)\s*-->|-->\s*\|"
    rf"\s*(?P<piped>[^|]+?)\s*\|)\s*{_NODE.format('target')}\s*;?\s*$"
)
"""A Mermaid edge with its label: ``A[Mara Quill] -- designed --> B[Tern bridge]``, ``A -->|built|
B``."""
_MERMAID_NODE = re.compile(rf"^\s*{_NODE.format('node')}\s*;?\s*$")
_DOT_ID = r"(?:\"(?P<{0}_q>[^\"]+)\"|(?P<{0}>\w+))"
_DOT_EDGE = re.compile(
    rf"^\s*{_DOT_ID.format('source')}\s*->\s*{_DOT_ID.format('target')}\s*"
    r"\[[^\]]*?\blabel\s*=\s*\"?(?P<label>[^\",\]]+)\"?[^\]]*\]\s*;?\s*$"
)
"""A Graphviz edge with its label: ``"Jonas Bell" -> "Skerry breakwater" [label="built"]``."""
_DOT_NODE = re.compile(
    rf"^\s*{_DOT_ID.format('node')}\s*\[[^\]]*?\blabel\s*=\s*\"(?P<text>[^\"]+)\"[^\]]*\]\s*;?\s*$"
)


def graph_records(lines: Sequence[str], first_line: int) -> Iterator[Record]:
    """The records of a Mermaid or Graphviz block's ``lines`` (the first on ``first_line``):
    each labelled edge, its target's name under ``name`` and its source under the label, with
    "by" after a label that is a past participle ("designed" as "designed by")."""
    names: dict[str, str] = {}
    for number, line in enumerate(lines, first_line):
        edge = _MERMAID_EDGE.match(line)
        if edge is not None:
            source = _named(names, edge["source"], edge["source_text"])
            target = _named(names, edge["target"], edge["target_text"])
            yield number, ("name", _role(edge["label"] or edge["piped"])), (target, source)
        elif edge := _DOT_EDGE.match(line):
            source = names.get(edge["source"] or "", edge["source_q"] or edge["source"])
            target = names.get(edge["target"] or "", edge["target_q"] or edge["target"])
            yield number, ("name", _role(edge["label"])), (target, source)
        elif node := _MERMAID_NODE.match(line) or _DOT_NODE.match(line):
            groups = node.groupdict()
            text = groups.get("node_text") or groups.get("text")
            if text and groups.get("node"):
                names[groups["node"]] = text.strip()


def _named(names: dict[str, str], node: str, text: str | None) -> str:
    """A Mermaid node's name: the text given it here or before, else its id."""
    if text:
        names[node] = text.strip()
    return names.get(node, node)


def _role(label: str) -> str:
    """An edge's label as a field name: "designed" as "designed by"."""
    label = " ".join(label.split())
    return f"{label} by" if re.fullmatch(r"[a-z]+(?:ed|en|t)", label) else label


_ITEM = re.compile(r"^(?P<indent>\s*)-\s")


def yaml_records(lines: Sequence[str], first_line: int) -> Iterator[Record]:
    """The records of a YAML block's ``lines`` (the first on ``first_line``): each mapping of a
    top-level list with two or more plain values (``- lock: X`` then ``designer: Y``), on the
    line its item starts; none when the block is no YAML."""
    try:
        data = yaml.safe_load("\n".join(lines))
    except yaml.YAMLError:
        return
    if not isinstance(data, list):
        return
    items = [
        (number, item)
        for number, line in enumerate(lines, first_line)
        if (item := _ITEM.match(line))
    ]
    top = min((len(item["indent"]) for _, item in items), default=0)
    starts = [number for number, item in items if len(item["indent"]) == top]  # not nested
    for number, item in zip(starts, data, strict=False):
        fields = list(item.items()) if isinstance(item, dict) else []
        if len(fields) >= _MIN_FIELDS and all(_plain(value) for _, value in fields):
            yield number, tuple(str(key) for key, _ in fields), tuple(str(v) for _, v in fields)


def _plain(value: object) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


_INSERT = re.compile(
    r"\binsert\s+into\s+[\w.\"`]+\s*\((?P<columns>[^()]+)\)\s*values\s*(?P<rows>.*?)(?:;|$)",
    re.IGNORECASE | re.DOTALL,
)
_ROW = re.compile(r"\((?P<values>(?:[^()'\"]|'(?:[^']|'')*'|\"[^\"]*\")*)\)")
_VALUE = re.compile(r"'((?:[^']|'')*)'|\"([^\"]*)\"|([^,\s][^,]*?)\s*(?:,|$)")


def sql_records(lines: Sequence[str], first_line: int) -> Iterator[Record]:
    """The records of an SQL block's ``lines`` (the first on ``first_line``): each row of an
    ``INSERT INTO t (a, b) VALUES (...), (...)``, under its columns ("built_by" read "built
    by"), on the line it is written on."""
    text = "\n".join(lines)
    for insert in _INSERT.finditer(text):
        columns = tuple(
            column.strip(' "`').replace("_", " ") for column in insert["columns"].split(",")
        )
        for row in _ROW.finditer(text, insert.start("rows"), insert.end("rows")):
            values = tuple(
                (quoted or double or bare).replace("''", "'").strip()
                for quoted, double, bare in _VALUE.findall(row["values"])
            )
            if len(values) == len(columns) >= _MIN_FIELDS:
                yield first_line + text.count("\n", 0, row.start()), columns, values


_INFOBOX = re.compile(r"^\s*\{\{\s*infobox\b[^|\n]*$", re.IGNORECASE)
_INFOBOX_FIELD = re.compile(r"^\s*\|\s*(?P<key>[\w .-]+?)\s*=\s*(?P<value>.*?)\s*$")


def infobox_records(lines: Sequence[str], first_line: int) -> Iterator[Record]:
    """The records of the wiki infoboxes in ``lines`` (the first on ``first_line``): each
    ``{{Infobox ...`` up to its ``}}``, its ``| key = value`` fields with a value, its ``name``
    first, on the line it opens."""
    opened: int | None = None
    fields: list[tuple[str, str]] = []
    for number, line in enumerate(lines, first_line):
        if _INFOBOX.match(line):
            opened, fields = number, []
        elif opened is not None and (field := _INFOBOX_FIELD.match(line)):
            if field["value"]:
                fields.append((field["key"].strip(), field["value"]))
        elif opened is not None and line.strip().startswith("}}"):
            fields.sort(key=lambda field: field[0].lower() != "name")
            if len(fields) >= _MIN_FIELDS:
                yield opened, tuple(k for k, _ in fields), tuple(v for _, v in fields)
            opened = None
