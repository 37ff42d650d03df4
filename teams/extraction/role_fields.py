"""Who has a role in a record of structured data, as a field keyed by the role says, whatever
the syntax: each fenced block is read into one tree of fields, and a field whose key (or whose
``type``/``role`` attribute) is a role's label
(:data:`~teams.extraction.labelled_records.ROLE_LABELS`: author, composer, architect,
ownerName, contact, ...) gives who has that role, of what the title-like field of its record
names ("title", "name", ``work-title``; else of a record above it, else of the heading over
the block, its part before a colon).

A field is read from a line as ``key=value``, ``key = value``, ``key: value`` (nested by
indentation, a YAML list item a record of its own), ``"key": "value"``, ``key => value``,
``spec.authors = ["Y"]`` or ``author="Y"`` (several to a line), or from a REPL's ``>>>
meta["Author"]`` and the output line under it; from markup, as an element named by the role
(``<author>Y</author>``), one whose ``type``, ``role`` or ``itemprop`` attribute is the role
(with its value in a nested ``name`` when it has one), a ``<meta name="author" content="Y">`` or
a ``<tag k="architect" v="Y"/>``, or from Texinfo's ``@author Y``.

A field of another key (maintainer, lyricist, publisher, "Original Translation") gives that
role, never a maker's, and only to a whole name (two to four capitalised words), not of what a
``name`` field that may be a person's names; a record's ``contributions`` (or ``roles``) list
gives each of its entries as a role of the person its ``name`` field names
(all-contributors' ``"contributions": ["design"]``); people listed under a section title that
names their role ("Development Lead" over "* Hedra Colenso <...>") have that role, of the thing
the heading over the block names.

Example:
    >>> block = ["```", "name=Tidelog", "author=Ada Holm <ada@example.org>", "```"]
    >>> list(role_fields(block))
    [(3, 'Tidelog', 'author', 'Ada Holm')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser

from teams.extraction.labelled_records import (
    ROLE_LABELS,
    Found,
    by_software,
    field_label,
    heading_above,
    name_of,
    title_label,
)
from teams.extraction.manifests import block_from
from teams.language.words import singular

__all__ = ["role_fields"]

_FIRST = re.compile(r"^(?:initial|original|first)[ _-](?P<role>[a-z]+)$")
"""A label of who first had a role ("initial-creator", "original author")."""


@dataclass
class _Field:
    """A field of a record: its key, its values, its line (1-based) and the fields under it."""

    key: str
    values: tuple[str, ...]
    line: int
    children: list[_Field] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The key as a label: its last dotted or namespaced part, in lower case."""
        return field_label(self.key) if self.key else ""


def role_fields(lines: Sequence[str]) -> Iterator[Found]:
    """Each role a field of a fenced block's records keys, of the thing its record names."""
    inside = False
    for at, line in enumerate(lines):
        if not line.lstrip().startswith("```"):
            continue
        inside = not inside
        if not inside:
            continue
        block = block_from(lines, at + 1)
        opening = next((text.lstrip() for text in block if text.strip()), "")
        markup = opening.startswith("<") and not _TEMPLATE.search(opening)  # not <ref>{{cite
        root = (_markup_tree if markup else _line_tree)(block, at + 2)
        heading = heading_above(lines[:at]).split(": ")[0]
        yield from _roles(root, [], heading)
        if heading and not markup:
            yield from ((n, heading, role, who) for n, role, who in _headed_lists(block, at + 2))


_UNDERLINE = re.compile(r"^([=~^+*#-])\1{2,}\s*$")
"""A reStructuredText section title's underline."""
_SECTION = re.compile(r"^(?:#{1,6}\s+)?(?P<title>[A-Z][A-Za-z]*(?: [A-Za-z]+){0,2})\s*$")


def _headed_lists(block: Sequence[str], first: int) -> Iterator[tuple[int, str, str]]:
    """Each person listed under a section title that names their role (a cookiecutter
    ``AUTHORS.rst``'s "Development Lead" over "* Hedra Colenso <hedra@example.org>"), with its
    line (the block's first on line ``first``): the title underlined, or a Markdown heading."""
    role = ""
    for at, text in enumerate(block):
        underlined = at + 1 < len(block) and _UNDERLINE.match(block[at + 1].strip())
        titled = _SECTION.match(text.strip())
        if titled and (underlined or text.lstrip().startswith("#")):
            role = _other_role(titled["title"].lower())
        elif (item := _ITEM.match(text.strip())) and role:
            who = _person(text.strip()[item.end() :])
            if _FULL_NAME.match(who):
                yield first + at, ROLE_LABELS.get(role, (role,))[0], who


def _roles(node: _Field, path: list[_Field], heading: str) -> Iterator[Found]:
    """The roles keyed in ``node``'s tree (``path`` the fields above it), each of its thing;
    not a "creator" that names the software that made the file, nor one beside an "initial"
    or "original" one (``<meta:initial-creator>`` wrote it; ``<dc:creator>`` edited it last)."""
    labels = {child.label for child in node.children}
    firsts = {found["role"] for label in labels if (found := _FIRST.match(label))}
    for child in node.children:
        first = _FIRST.match(child.label)
        key = first["role"] if first else child.label
        roles = ROLE_LABELS.get(key, ())
        if (child.label == "creator" and by_software(labels)) or child.label in firsts:
            roles = ()  # the software; the last of several (ODF's dc:creator beside the first)
        named = _named(child) if roles else []
        if child.label in _CREDITS:  # what the one the record names did
            named, roles = _credited(node), tuple(singular(v.lower()) for v in child.values)
        elif key not in ROLE_LABELS and (role := _other_role(child.label)):
            named, roles = [(n, who) for n, who in _named(child) if _FULL_NAME.match(who)], (role,)
        whose = (path, node) if child.label in _CREDITS else ([*path, node], child)
        thing = _thing(*whose, heading) if named else ""
        if key not in ROLE_LABELS and _a_person(thing, [*path, node]):
            thing = heading  # "Name: Tom Bell (photographs)" names a person, not the thing
        if thing:
            yield from ((line, thing, role, who) for line, who in named for role in roles)
        yield from _roles(child, [*path, node], heading)


_NOT_ROLES = frozenset(
    "title name email mail login username user handle url uri homepage website github gitlab "
    "twitter orcid id key affiliation organization organisation company institution license "
    "licence language location country city status type category platform make model value "
    "string from to cc subject commit software application info person agent individual".split()
)
"""Labels of a field that names someone, or what a record is, without giving them a role."""
_NAME_WORD = r"(?:[A-Z][\w'’.-]*|[a-z]{1,3}['’-][A-Z][\w'’.-]*)"
_PARTICLE = r"(?:van|von|de|da|del|der|di|du|la|le|ten|ter|an|na|nic|bin|ibn|al|dos|das|do)"
_FULL_NAME = re.compile(rf"^{_NAME_WORD}(?:\s+(?:{_PARTICLE}\s+)*{_NAME_WORD}){{1,3}}$")
"""A person's whole name, two to four capitalised words ("t-Saoir", "d'Arcy" too), particles
between them ("Peigi Mac an t-Saoir", "Anna van der Berg")."""
_PERSONS = frozenset({"person", "agent", "individual"})
"""Labels of a record of a person nested in a role's field (FOAF's ``<foaf:Person>``)."""
_CREDITS = frozenset({"contributions", "roles", "credits"})
"""Labels of a field listing what the one its record names did ("contributions": ["design"])."""


def _a_person(thing: str, records: list[_Field]) -> bool:
    """Whether ``thing`` is a person's whole name (an aside after it dropped) that a ``name``
    field of ``records`` gives."""
    named = (f for record in records for f in record.children if f.label == "name" and f.values)
    person = _FULL_NAME.match(_ASIDE.sub("", thing)) is not None
    return person and any(field.values[0] == thing for field in named)


def _other_role(label: str) -> str:
    """A role a field's label gives that :data:`ROLE_LABELS` does not ("original translation",
    "maintainers" as "maintainer"), or "" for one that names no role (:data:`_NOT_ROLES`, a
    title's: ``plugin_name``)."""
    words = label.replace("_", " ").replace("-", " ").split()
    if (
        label.startswith("_")
        or not words
        or not all(word.isalpha() for word in words)
        or len(words) > _ROLE_WORDS
    ):
        return ""
    if len(words[-1]) < _CODE_LETTERS:  # a code ("M:" of a MAINTAINERS entry, OPF's "ill")
        return ""
    if words[-1] in _NOT_ROLES or title_label([label]) or label.endswith(("name", "title")):
        return ""
    return " ".join([*words[:-1], singular(words[-1])])


_ASIDE = re.compile(r"\s*\([^)]*\)")
"""A bracketed aside after a name: "Tom Bell (photographs)"."""
_ROLE_WORDS = 3
_CODE_LETTERS = 4


def _credited(record: _Field) -> list[tuple[int, str]]:
    """Who a record that lists what they did names (all-contributors' ``"name"`` beside its
    ``"contributions": ["code", "design"]``): its ``name`` field's person, on that line."""
    names = (field for field in record.children if field.label == "name" and field.values)
    return [(name.line, who) for name in names if _FULL_NAME.match(who := _person(name.values[0]))]


def _named(role: _Field) -> list[tuple[int, str]]:
    """Who a role's field names, each with its line: its values, else the ``name`` field
    under it (or under each item of it)."""
    if role.values:
        continued = [
            (item.line, value) for item in role.children if not item.key for value in item.values
        ]
        values = [(role.line, value) for value in role.values] + continued  # "Authors: A\n   B"
        return [(line, who) for line, value in values if (who := _person(value))]
    items = [role, *(item for item in role.children if not item.key or item.label in _PERSONS)]
    own = {"name", f"{role.label}name"}  # DataCite's <creator><creatorName>
    names = (name for item in items for name in item.children if name.label in own)
    named = [(name.line, who) for name in names for value in name.values if (who := _person(value))]
    parts = ({f.label: (f.line, f.values[0]) for f in item.children if f.values} for item in items)
    whole = ((part, _whole_name({k: v for k, (_, v) in part.items()})) for part in parts)
    return named or [(min(n for n, _ in part.values()), who) for part, who in whole if who]


_GIVEN = ("given", "given-names", "givenname", "first", "firstname", "first-name", "forename")
_FAMILY = ("family", "family-names", "familyname", "last", "lastname", "last-name", "surname")


def _whole_name(fields: dict[str, str]) -> str:
    """A person's name a record gives in parts (CSL JSON's ``given`` and ``family``,
    ``givenName`` and ``familyName``), as it is said: "Peigi Mac an t-Saoir"; "" for none."""
    given = next((fields[key] for key in _GIVEN if fields.get(key)), "")
    family = next((fields[key] for key in _FAMILY if fields.get(key)), "")
    return f"{given} {family}" if given and family else ""


_NOT_A_NAME = re.compile(r"[@(){}=<>/\\]|^(?:True|False|None|Null)$")


_INVERTED = re.compile(
    r"^(?P<family>[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)?), (?P<given>[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*)?)$"
)
"""A name written family name first, as catalogues and archives write it ("Heron, Ebba")."""


_ADDRESS_NAMED = re.compile(r"^[^\s@()]+@[^\s@()]+\s+\((?P<name>[^()]+)\)$")
"""An e-mail address with its owner's name in brackets after it, as RSS writes an author."""


def _person(value: str) -> str:
    """``value`` as a name (its e-mail address dropped, or the name bracketed after it;
    "Heron, Ebba" as "Ebba Heron"), or ""
    for what opens with no capital (a handle, a figure, a variable), an address, a link, code
    or a constant."""
    named = name_of(value)
    if addressed := _ADDRESS_NAMED.match(named):  # RSS: "nerys@example.org (Nerys Vaughan)"
        named = addressed["name"]
    if inverted := _INVERTED.match(named):
        named = f"{inverted['given']} {inverted['family']}"
    return named if named[:1].isupper() and not _NOT_A_NAME.search(named) else ""


def _thing(above: list[_Field], role: _Field, heading: str) -> str:
    """What the record of ``role`` names: the title-like field beside it (or a ``...title``
    one level under a field beside it), else one beside a record above; else ``heading``. A
    level of two such titles is a list of records: its role names nothing."""
    came = role
    for record in reversed(above):
        beside = [other for other in record.children if other is not came]
        fields = [
            *(other for other in beside if other.values and not other.children),
            *(under for other in beside for under in other.children if _titled(under)),
        ]
        label = title_label(other.label for other in fields)
        titles = {other.values[0] for other in fields if other.label == label}
        if label:
            return titles.pop() if len(titles) == 1 else ""
        came = record
    return heading


def _titled(candidate: _Field) -> bool:
    """Whether a field is a title ("title", ``work-title``) with one value."""
    return candidate.label.endswith("title") and len(candidate.values) == 1


_PAIR = re.compile(
    r"""^(?P<quote>["']?)(?P<key>[A-Za-z_][\w.:-]*?(?: [A-Za-z][\w-]*){0,2})(?P=quote)\s*"""
    r"(?:=>|=|:(?=\s|$))\s*"
    r"(?P<value>.*?)[\s,;]*$"
)
"""A line's one field: ``key=value``, ``key: value``, ``"key": "value",``, ``key => value``."""
_ASSIGNED = re.compile(r"(?P<key>[A-Za-z_][\w.]*)\s?=\s?(?P<q>[\"'])(?P<value>[^\"']*)(?P=q)")
"""A keyword argument among others: ``setup(name="kiln", author="Y")``."""
_COMMAND = re.compile(r"^@(?P<key>[a-z]+)\s+(?P<value>[^@{}\s].*?)\s*$")
"""A Texinfo command and its argument on one line: ``@author Elestren Vosper``."""
_QUOTED = re.compile(r"\"([^\"]*)\"|'([^']*)'")
_REPL = re.compile(r"^>>>\s+[\w.]+(?:\[(?P<q>[\"'])(?P<key>[^\"']+)(?P=q)\]|\.(?P<attr>\w+))\s*$")
"""A REPL prompt that reads one field of an object: ``>>> meta["Author"]``, ``>>> dist.name``."""
_ITEM = re.compile(r"^[-*]\s+")
_COMMENT = ("#", "//", ";", "<!--")


def _values(value: str) -> tuple[str, ...]:
    """A field's values: each quoted string of a list (``["A", "B"]``), or its one value
    unquoted; none for a mapping or a YAML block scalar's opening (``{``, ``|``, ``>``)."""
    if value.startswith(("[", "(")):
        records = [_INLINE_PAIR.finditer(record) for record in _RECORD.findall(value)]
        pairs = [{p["key"].lower(): p["value"].strip("\"'") for p in found} for found in records]
        if records:  # a list of records on one line: each one's name
            return tuple(p.get("name") or p.get("literal") or _whole_name(p) for p in pairs)
        return tuple(a or b for a, b in _QUOTED.findall(value))
    if quoted := _QUOTED.match(value):
        return (quoted[1] if quoted[1] is not None else quoted[2],)
    return (value,) if value and not value.startswith(("{", "|", ">")) else ()


_TEMPLATE = re.compile(r"\{\{\s*cite\s+[\w ]+?(?P<params>\|[^{}]*)\}\}", re.IGNORECASE)
"""A wiki's citation template: ``{{cite book |last=Bevan |first=Catrin |title=...}}``."""
_PARAMETER = re.compile(r"\|\s*(?P<key>[\w-]+)\s*=\s*(?P<value>[^|]*?)\s*(?=\||$)")
_PART = re.compile(r"^(?:(?P<role>[a-z]+?)-?)?(?P<part>last|first|surname|given)\d*$")
"""A parameter giving part of a name: ``last``, ``first1`` (the author's), ``translator-last``."""


def _template_fields(parameters: str, line: int) -> list[_Field]:
    """A citation template's parameters as fields, a name given in parts (``translator-last``
    and ``translator-first``) as one field of its role (``last`` and ``first``: the author's)."""
    found = {p["key"].lower(): p["value"] for p in _PARAMETER.finditer(parameters) if p["value"]}
    parts: dict[str, dict[str, str]] = {}
    fields = []
    for key, value in found.items():
        if named := _PART.match(key):
            parts.setdefault(named["role"] or "author", {})[named["part"]] = value
        else:
            fields.append(_Field(key, (value,), line))
    whole = ((role, _whole_name(named)) for role, named in parts.items())
    return [*fields, *(_Field(role, (name,), line) for role, name in whole if name)]


_RECORD = re.compile(r"\{[^{}]*\}")
_INLINE = re.compile(r"^\{(?P<pairs>.*)\}[\s,]*$")
"""A record written on one line, as a list's item: ``{"name": "Heron, Ebba", "orcid": ...},``
(JSON), ``{name = "Odile Penrose", email = ...},`` (TOML)."""
_INLINE_PAIR = re.compile(
    r"(?P<q>[\"']?)(?P<key>[A-Za-z_][\w.:-]*)(?P=q)\s*[:=]\s*"
    r"(?P<value>\"[^\"]*\"|'[^']*'|\[[^\]]*\])"
)


def _line_fields(text: str, line: int) -> list[_Field]:
    """The fields of one line (none for a comment; a line of no field, an unkeyed one holding
    its text, as a list's item or a value continued from the line above holds it; a record
    written on the line, an unkeyed one over its fields)."""
    if template := _TEMPLATE.search(text):  # {{cite book |last=Bevan |first=Catrin |...}}
        return [_Field("", (), line, _template_fields(template["params"], line))]
    if inline := _INLINE.match(text):
        pairs = _INLINE_PAIR.finditer(inline["pairs"])
        return [_Field("", (), line, [_Field(p["key"], _values(p["value"]), line) for p in pairs])]
    if (pair := _PAIR.match(text)) and not _ASSIGNED.search(pair["value"]):
        return [_Field(pair["key"], _values(pair["value"]), line)]
    if command := _COMMAND.match(text):
        return [_Field(command["key"], (command["value"],), line)]
    assigned = [_Field(a["key"], (a["value"],), line) for a in _ASSIGNED.finditer(text)]
    return assigned or [_Field("", (text,) if text else (), line)]


def _line_tree(block: Sequence[str], first: int) -> _Field:
    """The fields of a block of lines (its first on line ``first``), each line's under the
    last less indented one's; a list item's fields under an unkeyed field of their own."""
    root = _Field("", (), first)
    open_fields: list[tuple[int, _Field]] = [(-1, root)]
    skip = False
    for at, text in enumerate(block):
        body, line = text.strip(), first + at
        if skip or not body or body.startswith(_COMMENT):
            skip = False
            continue
        indent = len(text) - len(text.lstrip())
        if item := _ITEM.match(body):
            _place(open_fields, indent, _Field("", (), line))
            indent, body = indent + item.end(), body[item.end() :]
        if (repl := _REPL.match(body)) and at + 1 < len(block):
            output = block[at + 1].strip()
            fields, skip = [_Field(repl["key"] or repl["attr"], _values(output), line + 1)], True
        else:
            fields = _line_fields(body, line)
        for found in fields:
            _place(open_fields, indent, found)
    return root


def _place(open_fields: list[tuple[int, _Field]], indent: int, found: _Field) -> None:
    """Put ``found`` under the last open field less indented than ``indent``, and open it."""
    while open_fields[-1][0] >= indent:
        open_fields.pop()
    open_fields[-1][1].children.append(found)
    open_fields.append((indent, found))


_VOID = frozenset("meta link br hr img input col area base param source wbr".split())
"""The HTML elements that have no closing tag."""


class _Markup(HTMLParser):
    """The elements of XML or HTML as fields (see :func:`_element`), each under the one it is
    in, with its text as its value when its attributes give none."""

    def __init__(self, first: int) -> None:
        super().__init__(convert_charrefs=True)
        self.first, self.root = first, _Field("", (), first)
        self.open: list[tuple[str, _Field, list[str]]] = [("", self.root, [])]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = _element(tag, {key: value or "" for key, value in attrs}, self._line())
        self.open[-1][1].children.append(element)
        if tag not in _VOID:
            self.open.append((tag, element, []))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = _element(tag, {key: value or "" for key, value in attrs}, self._line())
        self.open[-1][1].children.append(element)

    def handle_endtag(self, tag: str) -> None:
        if all(opened != tag for opened, _, _ in self.open):
            return
        while self.open:
            opened, element, text = self.open.pop()
            said = " ".join("".join(text).split())
            if said and not element.values and not element.children:
                element.values = (said,)
            if opened == tag:
                break

    def handle_data(self, data: str) -> None:
        self.open[-1][2].append(data)

    def _line(self) -> int:
        return self.first + self.getpos()[0] - 1


def _element(tag: str, attributes: dict[str, str], line: int) -> _Field:
    """An element as a field: keyed by its ``k`` (with a ``v``), its ``itemprop``, ``name``
    or ``property`` (with a ``content``), else its ``itemprop``, ``type`` or ``role``, else its
    tag (an attribute's namespace dropped: ``opf:role``); its value that ``v`` or ``content``."""
    pairs = (("k", "v"), ("itemprop", "content"), ("name", "content"), ("property", "content"))
    for key, value in pairs:
        if key in attributes and value in attributes:
            return _Field(attributes[key], (attributes[value],), line)
    local = {key.rsplit(":", maxsplit=1)[-1]: value for key, value in attributes.items()}
    keyed = next((local[key] for key in ("itemprop", "type", "role") if key in local), "")
    return _Field(keyed or tag, (), line)


def _markup_tree(block: Sequence[str], first: int) -> _Field:
    """The elements of a block of XML or HTML (its first line on ``first``) as fields."""
    parser = _Markup(first)
    parser.feed("\n".join(block))
    parser.close()
    return parser.root
