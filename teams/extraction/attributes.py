"""Relations stated by layout rather than by a sentence: a key and its value on a line
("- **Founder:** Amos Tull", "**Built:** 1890", "- Keeper: Jon Marr") and a Markdown table's
cells under their headers.

The key names the attribute. A key ending in a preposition keeps it ("Founded by"); a
participle reads as a passive, "in" a date or a place ("Founded: 1861", "Born: Whitby"), "by"
anything else ("Designed: Ada Marsh"); a location is "located in"; any other key is a
possessive ("Keeper: Jon Marr": 's keeper is Jon Marr; "Length (m): 95": 's length (m) is
95). Values are kept as written, so that each is an excerpt of the document.

A table row's subject is its cell under a header such as "Name" or "Title", else its first
cell that is not a figure (a row of figures has none); that column's header, when a noun
("Lighthouse"), is the subject's type. A table with a blank corner and a name over every
other column is transposed: each column's header is its subject, each row's label the key.

Example:
    >>> key_values("- **Founder:** Amos Tull\\nFounded: 1861\\nBuilt: 1890", 3)
    {3: ('Founder', 'Amos Tull'), 4: ('Founded', '1861'), 5: ('Built', '1890')}
    >>> [(r.predicate, r.object) for r in attribute_readings("Wend foundry", "Founded", "1861")]
    [('founded in', '1861')]
"""

from __future__ import annotations

import re

from teams.extraction.documents import Row
from teams.extraction.patterns import Reading, whole_noun_phrases
from teams.language.tables import DITTO, header_noun
from teams.language.values import values_in
from teams.language.verbs import IRREGULAR
from teams.language.words import STOPWORDS

__all__ = ["attribute_readings", "key_values", "row_readings"]

_FIELD = re.compile(
    r"^\s*(?P<item>(?:[-*+]|\d+[.)])\s+)?"
    r"(?:(?P<mark>\*\*|__)(?P<bold>[^*_:]+?)(?::(?P=mark)|(?P=mark):)|:(?P<field>[A-Z][^:`]*?):"
    r"|(?P<plain>[A-Z][^:]*?):|(?P<dotted>[A-Z][^:.]*?)\s*\.{3,})"
    r"\s+(?P<value>\S.*?)\s*$"
)
"""A key and its value: "**Key:** value", "**Key**: value", a reStructuredText field
(":Key: value"), "Key: value" or a key with dot leaders ("Design ...... Mabel Orr", as
credits are set), in a list item or not."""
_MAX_KEY_WORDS = 3
_CONFIDENCE = 0.8
_PREPOSITIONS = frozenset("by in at on from for to of with into near".split())
_PLACING = frozenset("born based located situated buried held".split())
"""Participles whose value is a place, not who did it."""
_LOCATIONS = frozenset("location place site address".split())
_NAMING = frozenset("name title".split())
"""Headers of the column that names each row's subject."""
_EMPTY = frozenset("- — – n/a".split())


_FRONT_FIELD = re.compile(r"^(?P<plain>[A-Za-z][\w -]*?):\s+(?P<value>\S.*?)\s*$")
"""A front matter's "key: value", its key in lower case as YAML writes it."""


def _field(line: str, front: bool = False) -> tuple[str, str, bool] | None:
    """A line's key, value and whether the key is marked (bold, or a list item's, or any key
    of a front matter)."""
    match = _FRONT_FIELD.match(line) if front else _FIELD.match(line)
    if match is None:
        return None
    if front:
        key = " ".join(match["plain"].replace("_", " ").split())
        fits = _attribute(key) and whole_noun_phrases(match["value"])
        return (key, match["value"].strip("\"'"), True) if fits else None
    key = " ".join((match["bold"] or match["field"] or match["plain"] or match["dotted"]).split())
    value = match["value"]
    marked = bool(match["bold"] or match["field"] or match["item"])
    return (key, value, marked) if _attribute(key) and whole_noun_phrases(value) else None


def key_values(text: str, first_line: int, front: bool = False) -> dict[int, tuple[str, str]]:
    """The key-value lines of ``text`` by line number (from ``first_line``), each as its key
    and value: a marked key on any line, a plain one ("Founded: 1861") only beside another
    key-value line; a ditto in a value stands for what the line above has in its place. A
    lead-in ("The toolkit includes: a compiler") or a value that is a sentence ("**Pause**: a
    review point pauses the run") is none. With ``front`` (a front
    matter's lines), a key in lower case ("builder: Nell Harrow") is one too."""
    lines = enumerate(text.split("\n"), first_line)
    fields = {number: _field(line, front) for number, line in lines}
    found: dict[int, tuple[str, str]] = {}
    for number, field in fields.items():
        if field is not None and (field[2] or fields.get(number - 1) or fields.get(number + 1)):
            above = found.get(number - 1)
            found[number] = (field[0], _ditto_filled(field[1], above[1] if above else ""))
    return found


def _ditto_filled(value: str, above: str) -> str:
    """``value`` with each comma-separated part that is a ditto ("ditto", "do.") replaced by
    the part in its place in the value of the line above ("Jonas Ashdale, 1821" above
    "ditto, 1826": "Jonas Ashdale, 1826")."""
    parts, over = value.split(", "), above.split(", ")
    return ", ".join(
        over[at] if part.lower() in DITTO and at < len(over) else part
        for at, part in enumerate(parts)
    )


def _attribute(key: str) -> str:
    """The attribute a key names, in lower case; "" for what is no key: several words, a
    phrase opening with a function word ("What it does", "The toolkit includes"), code
    ("--flag")."""
    words = key.lower().split()
    if not 0 < len(words) <= _MAX_KEY_WORDS or words[0] in STOPWORDS or not key[0].isalpha():
        return ""
    return " ".join(words)


def _participle(word: str) -> bool:
    """Whether a key's word is a participle ("built", "founded"), not a noun ("cost")."""
    return IRREGULAR.get(word, word) != word or (word.endswith("ed") and len(word) > 4)


def _predicate(attribute: str, value: str) -> str:
    """The predicate a key names for its value."""
    last = attribute.rsplit(maxsplit=1)[-1]
    if last in _PREPOSITIONS:
        return attribute
    dated = any(found.kind == "date" for found in values_in(value))
    if _participle(last) or (dated and last in IRREGULAR):  # "Cast: 1861"
        return f"{attribute} {'in' if dated or last in _PLACING else 'by'}"
    if attribute in _LOCATIONS:
        return "located in"
    return f"'s {attribute} is"


def attribute_readings(subject: str, key: str, value: str) -> list[Reading]:
    """What ``key: value`` says of ``subject``, one reading per thing the value names; none
    when the value is not names or figures."""
    attribute = _attribute(key)
    if not subject or not attribute or value.lower() in _EMPTY:
        return []
    predicate = _predicate(attribute, value)
    return [Reading(subject, predicate, thing, _CONFIDENCE) for thing in whole_noun_phrases(value)]


def _subject_column(row: Row) -> int | None:
    """The column of a row's subject: the first headed like "Name", else the first whose cell
    is not a figure ("1901" under "Year"); None when every cell is one."""
    for index, name in enumerate(row.header):
        words = name.lower().split()
        if words and words[-1] in _NAMING:
            return index
    return next((i for i, cell in enumerate(row.cells) if cell and not cell[0].isdigit()), None)


def _transposed(row: Row) -> bool:
    """Whether the row's table has its things as column headers and attributes as row labels:
    a blank corner, every other header one name, and the row's first cell a label."""
    things = row.header[1:]
    return (
        not row.header[0].strip()
        and bool(things)
        and all(len(whole_noun_phrases(thing)) == 1 for thing in things)
        and bool(row.cells)
        and bool(row.cells[0])
        and not row.cells[0][0].isdigit()
    )


def _column_readings(row: Row) -> list[Reading]:
    """What a row of a transposed table says of each column's thing ("Designer | Noel Hart |
    Carl Dunn" under " | Brede bridge | Orme bridge": the Orme bridge's designer is Carl
    Dunn)."""
    return [
        reading
        for thing, cell in zip(row.header[1:], row.cells[1:], strict=False)
        for reading in attribute_readings(whole_noun_phrases(thing)[0], row.cells[0], cell)
    ]


def row_readings(row: Row) -> list[Reading]:
    """What a table row says of its subject, cell by cell, with the subject's type; of each
    column's thing in a transposed table."""
    if _transposed(row):
        return _column_readings(row)
    column = _subject_column(row)
    if column is None or column >= min(len(row.cells), len(row.header)):
        return []
    named = whole_noun_phrases(row.cells[column])
    if len(named) != 1:
        return []  # no subject, or a list of them
    subject, kind = named[0], header_noun(row.header[column])
    return [
        Reading(reading.subject, reading.predicate, reading.object, _CONFIDENCE, kind)
        for index, (key, cell) in enumerate(zip(row.header, row.cells, strict=False))
        if index != column
        for reading in attribute_readings(subject, key, cell)
    ]
