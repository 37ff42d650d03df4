"""Who made a thing, as a card or a list of statements sets it out: a vCard's holder by its
``TITLE`` (a founder of its ``ORG``), a ``CREDITS`` file's entry whose ``D:`` line tells what
its ``N:`` did ("Wrote the X"), a man page's ``AUTHORS`` section ("Written by Y."), an RFC's or
an Internet-Draft's front page (its authors at the right of its header lines), a release's
credits one role to a line ("Written-By – Y", as Discogs lists them), an item's statements as
Wikidata shows them ("**founded by (P112)**" over its value), a site's ``humans.txt`` team and
a certificate's issuer as ``openssl x509 -text`` prints it. Each is ``(line, thing, role,
who)``, as :mod:`teams.extraction.metadata` reads them; a role that made nothing (treasurer,
secretary, engineer, producer, chairperson, one thanked) gives none.

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
from itertools import takewhile

from teams.extraction.labelled_records import Found, name_of
from teams.extraction.reorderings import NAME
from teams.language.verbs import lemma

__all__ = [
    "certificate_issuers",
    "credits_file_deeds",
    "humans_txt_team",
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


_HUMANS_SECTION = re.compile(r"^\s*/\*\s*(?P<name>[A-Z][A-Z ]*?)\s*\*/\s*$")
_HUMANS_FIELD = re.compile(r"^\s*(?P<label>[A-Za-z][\w -]*?)\s*:\s*(?P<value>\S.*?)\.?\s*$")
_HOST = re.compile(r"\b(?!humans\.txt)(?P<host>[a-z0-9][\w-]*(?:\.[\w-]+)+)", re.I)
_SITE_FIELDS = frozenset({"site", "url", "website", "web"})


def humans_txt_team(lines: Sequence[str]) -> Iterator[Found]:
    """Each member of a ``humans.txt`` file's ``/* TEAM */`` whose role is a maker's (by its
    last word: "Web designer", "Developer", who built the site), of the site whose host the
    text names with "humans.txt" (its heading), else the team's "Site:" field; whoever is
    under ``/* THANKS */`` made nothing."""
    for start, line in enumerate(lines):
        if (found := _HUMANS_SECTION.match(line)) is None or found["name"] != "TEAM":
            continue
        team = takewhile(
            lambda n: not _HUMANS_SECTION.match(lines[n]), range(start + 1, len(lines))
        )
        fields = [(n, field) for n in team if (field := _HUMANS_FIELD.match(lines[n]))]
        sites = [field["value"] for _, field in fields if field["label"].lower() in _SITE_FIELDS]
        naming = [text for text in lines if "humans.txt" in text.lower()]
        hosts = [found["host"] for text in naming + sites if (found := _HOST.search(text))]
        for n, field in fields if hosts else ():
            if role := _MAKERS.get(field["label"].lower().split()[-1]):
                built = ("builder",) if role == "developer" else ()  # a site's developer built it
                for deed in (role, *built):
                    yield n + 1, _site_name(hosts[0]), deed, name_of(field["value"])


def _site_name(host: str) -> str:
    """A site's name, as its host gives it: "kell-ferry.example" is the Kell Ferry website."""
    labels = [label for label in host.lower().split(".") if label != "www"][:-1]
    words = (word.capitalize() for label in labels for word in label.split("-"))
    return " ".join([*words, "website"])


_DISTINGUISHED = re.compile(r"^\s*(?P<key>Issuer|Subject)\s*[:=]\s*(?P<name>\S.*?)\s*$", re.I)
_PART = re.compile(r"(?:^|[,/])\s*(?P<key>[A-Za-z]+)\s*=\s*(?P<value>[^,/]*[^,/\s])")
"""A part of a distinguished name: "O = Kell Trust" (``openssl``'s), "/O=Kell Trust"."""


def certificate_issuers(lines: Sequence[str]) -> Iterator[Found]:
    """Who issued a certificate, as ``openssl x509 -text`` prints it: the organisation (else
    the common name) of its ``Issuer:``, of the certificate for its ``Subject:``'s common name;
    the subject holds it."""
    issuer: tuple[int, str] | None = None
    for at, line in enumerate(lines):
        if (found := _DISTINGUISHED.match(line)) is None:
            continue
        parts = {part["key"].upper(): part["value"] for part in _PART.finditer(found["name"])}
        named = parts.get("O") or parts.get("CN")
        if found["key"].lower() == "issuer":
            issuer = (at + 1, named) if named else None
        elif issuer and (holder := parts.get("CN")):
            yield issuer[0], f"certificate for {holder}", "issuer", issuer[1]
            issuer = None


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
