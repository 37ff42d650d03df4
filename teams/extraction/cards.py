"""Who made a thing, as a card or a list of statements sets it out: a vCard's holder by its
``TITLE`` (a founder of its ``ORG``), a ``CREDITS`` file's entry whose ``D:`` line tells what
its ``N:`` did ("Wrote the X"), a man page's ``AUTHORS`` section ("Written by Y."), an RFC's or
an Internet-Draft's front page (its authors at the right of its header lines), a release's
credits one role to a line ("Written-By – Y", as Discogs lists them), and an item's statements
as Wikidata shows them ("**founded by (P112)**" over its value). Each is ``(line, thing,
role, who)``, as :mod:`teams.extraction.metadata` reads them; a role that made nothing
(treasurer, secretary, engineer, producer, chairperson) gives none.

Example:
    >>> card = ["BEGIN:VCARD", "FN:Ada Holm", "ORG:Kell Rowing Club", "TITLE:Founder", "END:VCARD"]
    >>> list(vcard_roles(card))
    [(4, 'Kell Rowing Club', 'founder', 'Ada Holm')]
    >>> list(credits_file_deeds(["N: Cai Rees", "D: Wrote the tide tables"]))
    [(2, 'tide tables', 'author', 'Cai Rees')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from teams.extraction.labelled_records import Found, name_of
from teams.extraction.reorderings import NAME
from teams.language.verbs import lemma

__all__ = [
    "credits_file_deeds",
    "man_page_authors",
    "release_credits",
    "rfc_authors",
    "vcard_roles",
    "wikidata_statements",
]

_MAKERS = {
    "founder": "founder",
    "co-founder": "founder",
    "cofounder": "founder",
    "architect": "architect",
    "designer": "designer",
    "builder": "builder",
    "author": "author",
    "writer": "author",
    "creator": "creator",
    "inventor": "inventor",
    "composer": "composer",
    "developer": "developer",
}
"""The titles of a card that name a maker of its organisation, and the role each gives."""
_DEEDS = {
    "write": "author",
    "design": "designer",
    "build": "builder",
    "found": "founder",
    "create": "creator",
    "invent": "inventor",
    "compose": "composer",
    "develop": "developer",
}
"""The verbs of a deed of making, by their base form, and the role of who did it."""
_PROPERTY = re.compile(r"^(?P<name>[A-Z][A-Z-]*)(?:;[^:]*)?:(?P<value>.*)$")


def _unescaped(value: str) -> str:
    return re.sub(r"\\([,;\\])", r"\1", value).replace("\\n", " ").strip()


def vcard_roles(lines: Sequence[str]) -> Iterator[Found]:
    """Each vCard's holder (its ``FN``) whose ``TITLE`` names a maker's role, of the
    organisation the title names after a comma ("Founder, X"), else its ``ORG``."""
    card: dict[str, tuple[int, str]] = {}
    for at, line in enumerate(lines):
        text = line.strip()
        if text.upper() == "BEGIN:VCARD":
            card = {}
        elif text.upper() == "END:VCARD":
            yield from _card_role(card)
        elif found := _PROPERTY.match(text):
            card.setdefault(found["name"].upper(), (at + 1, _unescaped(found["value"])))


def _card_role(card: dict[str, tuple[int, str]]) -> Iterator[Found]:
    if not {"FN", "TITLE"} <= card.keys():
        return
    line, title = card["TITLE"]
    role, _, of = (part.strip() for part in title.partition(","))
    organisation = of or card.get("ORG", (0, ""))[1].split(";")[0].strip()
    if (maker := _MAKERS.get(role.lower())) and organisation:
        yield line, organisation, maker, card["FN"][1]


_CREDITS_FIELD = re.compile(r"^\s*(?P<tag>[NEDSWP]):\s*(?P<value>\S.*?)\s*$")
_DEED = re.compile(r"^(?P<verb>[A-Z][a-z]+)\s+(?:(?:the|a|an)\s+)?(?P<thing>\S.*?)\.?$")


def credits_file_deeds(lines: Sequence[str]) -> Iterator[Found]:
    """Each ``D:`` line of a ``CREDITS`` file entry that opens with a deed of making ("Wrote
    the X"), of what it made, by the entry's ``N:``."""
    who = ""
    for at, line in enumerate(lines):
        if not line.strip():
            who = ""
        elif (field := _CREDITS_FIELD.match(line)) is None:
            continue
        elif field["tag"] == "N":
            who = field["value"]
        elif (
            field["tag"] == "D"
            and who
            and (deed := _DEED.match(field["value"]))
            and (role := _deed_role(deed["verb"].lower()))
        ):
            yield at + 1, deed["thing"], role, who


def _deed_role(verb: str) -> str:
    """The role of who did a deed of making, by its verb in the past tense ("wrote",
    "designed", "created"), or ""."""
    base = lemma(verb)
    forms = (base, base[:-2], base[:-1]) if base.endswith("ed") else (base,)
    return next((_DEEDS[form] for form in forms if form in _DEEDS), "")


_ROFF_SECTION = re.compile(r'^(?:\.SH|=head1)\s+"?(?P<name>[^"]+?)"?\s*$')
_ROFF_NAME = re.compile(r"^(?P<name>[\w.+:-]+)\s+\\?-\s")
_BY = re.compile(rf"\b(?:written|created|developed|designed)\s+by\s+(?P<who>{NAME})", re.I)
_NAME_ALONE = re.compile(rf"^(?P<who>{NAME})\s*(?:(?:<|E<lt>)[^\s<>]+@[^\s<>]+(?:>|E<gt>))?\s*,?$")
"""A POD ``AUTHOR`` paragraph's line: a name, perhaps with an address ("Ada Holm
E<lt>ada@example.orgE<gt>")."""


def man_page_authors(lines: Sequence[str]) -> Iterator[Found]:
    """Who a man page's or a Perl module's POD ``AUTHOR`` or ``AUTHORS`` section says wrote it
    ("Written by Y.", or a POD paragraph of names), of the command or module its ``NAME``
    section names ("kiln \\- ...", "Tide::Gauge - ...")."""
    section, command = "", ""
    for at, line in enumerate(lines):
        if found := _ROFF_SECTION.match(line.strip()):
            section = found["name"].strip().upper()
        elif section == "NAME" and (named := _ROFF_NAME.match(line.strip())):
            command = named["name"]
        elif section in ("AUTHOR", "AUTHORS") and command:
            alone = _NAME_ALONE.match(line.strip())
            for who in [by["who"] for by in _BY.finditer(line)] or (
                [alone["who"]] if alone else []
            ):
                yield at + 1, command, "author", who.rstrip(".")


_RFC_HEADER = re.compile(
    r"^\s*(?:Internet\s+Engineering\s+Task\s+Force|Internet\s+Research\s+Task\s+Force|"
    r"Network\s+Working\s+Group|Internet[- ]Draft|Request\s+for\s+Comments|IETF|IRTF)\b"
)
"""The first line of an RFC's or an Internet-Draft's front page."""
_RIGHT_COLUMN = re.compile(r"\S\s{3,}(?P<right>\S.*?)\s*$")
_INITIALLED = re.compile(
    r"^(?P<who>(?:[A-Z]\.\s?){1,3}(?:[A-Z][\w'’-]+\s)?[A-Z][\w'’-]+)(?:\s*,\s*Ed\.)?$"
)
"""An author as a front page gives one: initials and a surname ("M. Angove", "J. R. Doe, Ed.")."""
_FRONT_SECTIONS = frozenset({"abstract", "status of this memo", "copyright notice"})


def rfc_authors(lines: Sequence[str]) -> Iterator[Found]:
    """Who wrote an RFC or an Internet-Draft, as its front page gives them: the initials and
    surname at the right end of its header lines ("Network Working Group ... E. Varga"), of the
    title centred below the header (its first indented line)."""
    for at, line in enumerate(lines):
        if not _RFC_HEADER.match(line):
            continue
        end = at
        while end < len(lines) and lines[end].strip():
            end += 1
        authors = [
            (row + 1, found["who"])
            for row in range(at, end)
            if (right := _RIGHT_COLUMN.search(lines[row]))
            and (found := _INITIALLED.match(right["right"]))
        ]
        below = (text for text in lines[end : end + 6] if text.strip())
        title = next(below, "")
        centred = title.startswith(_CENTRED) and title.strip().lower() not in _FRONT_SECTIONS
        for row, who in authors if centred else ():
            yield row, title.strip(), "author", who
        return


_CENTRED = " " * 4
"""How far a centred title stands in at least, on a front page of 72 columns."""


_RELEASE_TITLE = re.compile(r"^#\s+(?:.+?\s+[–—-]\s+)?(?P<title>[^–—(]+?)\s*(?:\(.*\))?\s*$")
_CREDIT = re.compile(rf"^\s*[-*+]\s+(?P<role>[A-Z][\w -]*?)\s+[–—]\s+(?P<who>{NAME})\s*$")
_CREDITED = {
    "written-by": "author",
    "written by": "author",
    "words by": "author",
    "lyrics by": "author",
    "music by": "composer",
    "composed by": "composer",
    "design": "designer",
    "designed by": "designer",
}
"""A credit's role (as Discogs words it), and the role of who made the release's work."""


def release_credits(lines: Sequence[str]) -> Iterator[Found]:
    """Each credit one role to a line ("- Written-By – Y") that names a writer, composer or
    designer, of the title the document's heading gives after its artist ("Artist – Title
    (7", 1978)")."""
    title = ""
    for at, line in enumerate(lines):
        if not title and (heading := _RELEASE_TITLE.match(line)):
            title = heading["title"]
        elif (
            title
            and (credit := _CREDIT.match(line))
            and (role := _CREDITED.get(credit["role"].lower()))
        ):
            yield at + 1, title, role, credit["who"]


_ITEM = re.compile(r"^#\s+(?P<label>\S.*?)\s+\(Q\d+\)\s*$")
_STATEMENT = re.compile(r"^\s*[-*+]\s+(?:\*\*|__)(?P<property>[^*_]+?)\s+\(P\d+\)(?:\*\*|__)\s*$")
_VALUE = re.compile(r"^\s{2,}[-*+]\s+(?P<value>\S.*?)\s*$")
_PROPERTIES = {
    "founded by": "founder",
    "author": "author",
    "architect": "architect",
    "designed by": "designer",
    "creator": "creator",
    "developer": "developer",
    "composer": "composer",
    "inventor": "inventor",
    "manufacturer": "maker",
}
"""A Wikidata property of who made an item, and the role it gives."""


def wikidata_statements(lines: Sequence[str]) -> Iterator[Found]:
    """Each value of a statement of who made the item the heading names ("# X (Q123)"), as
    Wikidata lists it: its property in bold with its P-number, each value indented below."""
    item, role = "", ""
    for at, line in enumerate(lines):
        if found := _ITEM.match(line):
            item, role = found["label"], ""
        elif found := _STATEMENT.match(line):
            role = _PROPERTIES.get(found["property"].strip().lower(), "")
        elif item and role and (value := _VALUE.match(line)):
            if who := name_of(value["value"]):
                yield at + 1, item, role, who
        elif line.strip():
            role = ""
