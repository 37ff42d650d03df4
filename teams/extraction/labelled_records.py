"""Who made a thing, as a record of labelled fields gives it: a field whose label names a maker's
role ("(72) Inventor:", ``DC.creator``, ``org.opencontainers.image.authors``, an ffprobe
``composer``) beside the record's title field, a MARC 21 record's main entry with its relator
term, a Debian copyright file's ``Files: *`` stanza, an AsciiDoc header's author line, the
author ``git blame`` gives a ``def`` line, the one who opened a pull request, and an invoice's
issuer of the making its line items bill ("Building of X": its builder), and a museum label's
maker (a name with life dates under the object and its year). Each field is
``(line, thing, role, who)``, as :mod:`teams.extraction.metadata` reads them; a field of another
role (applicant, agent, publisher, contributor, maintainer, vendor, performer, illustrator,
packager, reviewer) gives none.

Example:
    >>> patent = ["(54) Title: Tide gauge", "(71) Applicant: Ness Ltd", "(72) Inventor: Ada Holm"]
    >>> list(labelled_fields(patent))
    [(3, 'Tide gauge', 'inventor', 'Ada Holm')]
    >>> list(marc_fields(["=100  1\\\\$aHolm, Ada,$eauthor.", "=245  10$aSalt pans."]))
    [(1, 'Salt pans', 'author', 'Ada Holm')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise

__all__ = [
    "ADDING",
    "BOLD_TITLE",
    "ROLE_LABELS",
    "Found",
    "asciidoc_authors",
    "blamed_definitions",
    "by_software",
    "copyright_stanzas",
    "field_label",
    "heading_above",
    "invoice_items",
    "labelled_fields",
    "marc_fields",
    "museum_labels",
    "name_of",
    "out_of_capitals",
    "pull_request_authors",
    "title_label",
]

Found = tuple[int, str, str, str]
"""A line, the thing it is said of, a role, and who has that role."""

_EMAIL = re.compile(r"\s*<[^<>@\s]+@[^<>\s]+>")
ADDING = re.compile(
    r"^(?:add(?:ed|s)?|implement(?:ed|s)?|introduc(?:e|ed|es)|creat(?:e|ed|es)|writ(?:e|es)|"
    r"wrote|new)\s+(?:(?:the|a|an)\s+)?",
    re.I,
)
"""How a commit's subject line or a pull request's title opens on the thing it brings ("Add
the X", "Implement X")."""
ROLE_LABELS = {
    "author": ("author",),
    "authors": ("author",),
    "writer": ("author",),
    "by": ("author",),
    "creator": ("creator", "author"),
    "creators": ("creator", "author"),
    "composer": ("composer",),
    "inventor": ("inventor",),
    "inventors": ("inventor",),
    "designer": ("designer",),
    "design": ("designer",),
    "architect": ("architect",),
    "builder": ("builder",),
    "maker": ("maker",),
    "words": ("author",),
    "lyrics": ("author",),
    "compiler": ("compiler",),
    "ownername": ("compiler",),
    "contact": ("contact",),
}
"""A label of a role a record names someone in (a maker's, a compiler's, a contact's), in lower
case, and the roles it gives (Dublin Core's creator of a text is its author too; the owner an
OPML file's ``ownerName`` gives compiled the list it is, a podcast's ``owner`` made nothing)."""
_TITLES = frozenset({"title", "upstream-name", "name"})
"""The labels of a record's title field ("Name" of a package's metadata, as ``pip show`` and
``PKG-INFO`` give it)."""
_CAMERA = frozenset(
    {"camera model name", "camera model", "model", "exposure time", "f number", "lens"}
)
"""Labels of a photograph's metadata (Exif, as ``exiftool`` prints it, or with ``-s`` its tag
names): there, the "Artist" took the photograph."""
_NAMED = re.compile(
    r"^(?!(?:file|user|author|owner|last|first|display|host)[ _-]?name$)\w+[ _-](?:name|title)$"
)
"""A label naming what a record is of by its kind ("Plugin Name", ``role_name``,
``work-title``), a title field when the record has no "title" (not a file's or a person's
name)."""
_INID = re.compile(r"^\s*\(\d{2}\)\s*")
"""A patent's bracketed INID code before a field's label: "(72) Inventor: ..."."""
_COLON_FIELD = re.compile(
    r"^\s*(?P<label>[A-Za-z][\w.-]*(?: [A-Za-z][\w-]*){0,2})\s*:\s+(?P<value>\S.*?)\s*$"
)
_ASSIGNED = re.compile(r"(?P<label>[A-Za-z][\w.-]*)\s?=\s?\"(?P<value>[^\"]*)\"")
_META = re.compile(r"<meta\s+name=\"(?P<label>[^\"]+)\"\s+content=\"(?P<value>[^\"]*)\"", re.I)


_YEARS_AFTER = re.compile(r"\s*\((?:c\.\s*)?\d{4}(?:\s*[-–]\s*\d{2,4})?\)\s*$")
"""A year or a span of years in brackets after a name: "Elowen Pascoe (1871)"."""
BOLD_TITLE = re.compile(r"^\s*(?:\*\*|__)(?P<title>[^*_]+?)(?:\*\*|__)\s*$")
"""A title a line sets in bold alone ("**Lord of the salt and the shore**")."""


def _bold_title(line: str) -> str:
    """The title ``line`` sets in bold alone (:data:`BOLD_TITLE`), or ""."""
    found = BOLD_TITLE.match(line)
    return found["title"].strip() if found else ""


_HEADING = re.compile(r"^#{1,6}\s+(?P<heading>\S.*?)[\s#]*$")


def heading_above(lines: Sequence[str]) -> str:
    """The last Markdown heading of ``lines`` outside a fenced block, without its "#"; ""
    for none."""
    heading, fenced = "", False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (found := _HEADING.match(line)):
            heading = found["heading"]
    return heading


def field_label(text: str) -> str:
    """A label's last dotted or namespaced part, in lower case: "DC.creator" and "dc:creator"
    are "creator"."""
    return re.split(r"[.:]", text.lower())[-1].strip()


def _fields_of(line: str) -> list[tuple[str, str]]:
    """The labelled fields of one line: a RIS record's author or title ("AU  - Holm, Ada", the
    name put in order), an HTML ``<meta>`` element's name and content, a ``label="value"``
    assignment (a Dockerfile's ``LABEL``, a LilyPond header's ``composer = "Y"``), a PDF
    dictionary's "/Author (Y)", an Org file's "#+AUTHOR: Y", or ``label: value`` (after a
    patent's INID code, with spaces before the colon as ffprobe aligns it)."""
    if (tagged := _RIS.match(line)) and (label := _RIS_LABELS.get(tagged["tag"])):
        value = tagged["value"]
        return [(label, _uninverted(value) if label == "author" else value)]
    found = [(m["label"], m["value"]) for m in _META.finditer(line)]
    found = found or [(m["label"], m["value"]) for m in _ELEMENT.finditer(line)]
    found = found or [(m["label"], m["value"]) for m in _ASSIGNED.finditer(line)]
    keyed = _PDF_ENTRY.match(line) or _ORG_KEYWORD.match(line)
    bare = _COMMENT_LEADER.sub("", _INID.sub("", line), count=1)
    if not found and (match := keyed or _COLON_FIELD.match(bare)):
        found = [(match["label"], match["value"])]
    return [(field_label(label), value.strip()) for label, value in found]


_ELEMENT = re.compile(
    r"<(?:[\w-]+:)?(?P<label>[A-Za-z][\w-]*)>(?P<value>[^<>]*\S[^<>]*)</(?:[\w-]+:)?(?P=label)>"
)
"""An XML element on one line, without attributes (one with a role in them, as an EPUB's
``opf:role``, is its format's to read): "<dc:creator>Kerensa Trounson</dc:creator>"."""
_COMMENT_LEADER = re.compile(r"^\s*(?:\*|//|--|;|%|\"|#(?!\+))\s*(?=[A-Za-z])")
"""What opens a line of a comment block before a field in it: " * Author: Y" in a PHP
docblock, '" Maintainer: Y' in a Vim script."""


_PDF_ENTRY = re.compile(r"^\s*/(?P<label>[A-Z][A-Za-z]*)\s*\((?P<value>[^()]*)\)\s*$")
"""An entry of a PDF's document information dictionary: "/Author (Morvoren Tregenza)"."""
_ORG_KEYWORD = re.compile(r"^\s*#\+(?P<label>[A-Za-z_]+):\s*(?P<value>\S.*?)\s*$")
"""An Org file's keyword line: "#+AUTHOR: Demelza Penhale"."""


_RIS = re.compile(r"^\s*(?P<tag>[A-Z][A-Z0-9])\s{1,2}-\s+(?P<value>\S.*?)\s*$")
"""A line of a RIS citation record: a two-letter tag, "  - ", its value ("AU  - Holm, Ada")."""
_RIS_LABELS = {"AU": "author", "A1": "author", "TI": "title", "T1": "title"}
"""The RIS tags of a record's authors and its title (an editor, "ED", made nothing)."""


def out_of_capitals(value: str) -> str:
    """A value set in capitals with its words capitalised ("A. PENBERTHY": "A. Penberthy")."""
    return value.title() if value.isupper() else value


def name_of(value: str) -> str:
    """A name without its e-mail address, its spacing made single, or ""."""
    return " ".join(_EMAIL.sub("", value).split()).strip("\"'")


def title_label(labels: Iterable[str]) -> str:
    """The label of a record's title field among ``labels``: "title", else another of
    :data:`_TITLES`, else one naming the record's kind (:data:`_NAMED`); "" for none."""
    found = set(labels)
    if "title" in found:
        return "title"
    if known := sorted(found & _TITLES):
        return known[0]
    return min((label for label in found if _NAMED.match(label)), default="")


_GPX_ROOT = re.compile(r"^\s*<gpx\b")


def by_software(labels: set[str], line: str = "") -> bool:
    """Whether a "creator" field (among ``labels``, on ``line``) names the application that
    made the file: a PDF's beside a "Producer", a GPX file's ``creator`` attribute on its
    ``<gpx>`` element."""
    return "producer" in labels or bool(_GPX_ROOT.match(line))


def labelled_fields(lines: Sequence[str]) -> Iterator[Found]:
    """Each maker's field of a record (a run of lines without a blank one) that has a title
    field, or a title in bold alone on the line above it (a hymn's first line over its "Words:"
    and "Music:" credits), of that title (a photograph's without one, of the heading above it);
    not a "Creator" that names the application that made the file (:func:`by_software`), nor a
    record of two titles (a list of records, as repeated XML elements are:
    :mod:`teams.extraction.data_blocks` reads them as a table's rows)."""
    start = 0
    for end in (*(n for n, line in enumerate(lines) if not line.strip()), len(lines)):
        fields = [(n, field) for n in range(start, end) for field in _fields_of(lines[n])]
        above = _bold_title(lines[start - 2]) if start >= 2 and not lines[start - 1].strip() else ""
        first, start = start, end + 1
        titled = title_label(label for _, (label, _) in fields)
        titles = {value for _, (label, value) in fields if label == titled and titled}
        if len(titles) > 1:
            continue  # a list of records (repeated XML elements): read as a table's rows
        labels = {label for _, (label, _) in fields}
        photo = bool(labels & _CAMERA)
        title = next(iter(titles), above) or (heading_above(lines[:first]) if photo else "")
        if not title:
            continue
        for n, (label, value) in fields:
            if label == "creator" and by_software(labels, lines[n]):
                continue
            roles = ("photographer",) if photo and label == "artist" else ROLE_LABELS.get(label, ())
            for role in roles:
                named = (_YEARS_AFTER.sub("", name_of(part)) for part in value.split(";"))
                for who in filter(None, named):
                    yield n + 1, title, role, who


_MARC = re.compile(r"^\s*=?(?P<tag>\d{3})\s+[\w\\#]{0,2}\s*(?P<data>\$.*)$")
_SUBFIELD = re.compile(r"\$(?P<code>[a-z0-9])\s*(?P<value>[^$]*)")
_MAIN_ENTRIES = frozenset({"100", "110", "700", "710"})


def _subfields(data: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for match in _SUBFIELD.finditer(data):
        found.setdefault(match["code"], match["value"].strip().rstrip(",./:; ").strip())
    return found


def _uninverted(name: str) -> str:
    """ "Holm, Ada" as "Ada Holm"; any other name as it is."""
    parts = [part.strip() for part in name.split(",")]
    return f"{parts[1]} {parts[0]}" if len(parts) == 2 and all(parts) else name


def marc_fields(lines: Sequence[str]) -> Iterator[Found]:
    """A MARC 21 record's name entries (100, 110, 700, 710) whose relator term (``$e``) is a
    maker's role, the main entry (100, 110) without one as its author, of its 245 title."""
    title, names = "", list[tuple[int, str, str]]()
    for n, line in enumerate(lines):
        if (match := _MARC.match(line)) is None:
            continue
        fields = _subfields(match["data"])
        if match["tag"] == "245" and fields.get("a"):
            title = fields["a"]
        elif match["tag"] in _MAIN_ENTRIES and fields.get("a"):
            relator = fields.get("e", "author" if match["tag"][0] == "1" else "")
            names += [
                (n + 1, role, _uninverted(fields["a"])) for role in ROLE_LABELS.get(relator, ())
            ]
    if title:
        yield from ((n, title, role, who) for n, role, who in names)


_DEP5 = re.compile(r"^\s*Format:\s*\S*copyright-format/", re.I)
_YEARS = re.compile(r"^[\d\s,–-]+")


def copyright_stanzas(lines: Sequence[str]) -> Iterator[Found]:
    """A Debian machine-readable copyright file's holders of the ``Files: *`` stanza (the
    upstream work's, not a packaging stanza's), as authors of its ``Upstream-Name``."""
    start = next((n for n, line in enumerate(lines) if _DEP5.match(line)), None)
    if start is None:
        return
    name, files = "", ""
    for n in range(start, len(lines)):
        fields = dict(_fields_of(lines[n]))
        if not lines[n].strip() or lines[n].lstrip().startswith("```"):
            files = ""
        name = fields.get("upstream-name", name)
        files = fields.get("files", files)
        if name and files == "*" and (holder := fields.get("copyright")):
            yield n + 1, name, "author", name_of(_YEARS.sub("", holder))


_ADOC_TITLE = re.compile(r"^=\s+(?P<title>\S.*?)\s*$")
_ADOC_AUTHOR = re.compile(r"^(?P<who>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)+)(?:\s*<[^<>\s]+>)?\s*$")


def asciidoc_authors(lines: Sequence[str]) -> Iterator[Found]:
    """An AsciiDoc header's author line (the one right under its ``=`` title), of the title."""
    for n in range(len(lines) - 1):
        title, author = _ADOC_TITLE.match(lines[n]), _ADOC_AUTHOR.match(lines[n + 1].strip())
        if title and author:
            yield n + 2, title["title"], "author", author["who"]


_BLAME = re.compile(
    r"^\^?[0-9a-f]{7,40}\s+(?:\S+\s+)?\((?P<who>.+?)\s+\d{4}-\d{2}-\d{2}\s+[\d:]+\s+"
    r"[+-]\d{4}\s+\d+\)\s?(?P<code>.*)$"
)
_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?P<kind>def|class)\s+(?P<name>\w+)")


_BLAMED_FILE = re.compile(r"\bgit\s+blame\s+(?:-\S+\s+)*(?P<file>[\w./-]+)")


def blamed_definitions(lines: Sequence[str]) -> Iterator[Found]:
    """``git blame``'s author of a line that defines a function or a class, of it ("compact
    function in ferrow/compact.py", the file the ``git blame`` command above names): who wrote
    its ``def`` line wrote it."""
    file = ""
    for n, line in enumerate(lines):
        if command := _BLAMED_FILE.search(line):
            file = command["file"]
        if (blamed := _BLAME.match(line)) and (defined := _DEFINITION.match(blamed["code"])):
            kind = "function" if defined["kind"] == "def" else "class"
            thing = f"{defined['name']} {kind}" + (f" in {file}" if file else "")
            yield n + 1, thing, "author", blamed["who"].strip()


_OPENED = re.compile(
    r"(?P<who>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)+)\s+(?:wants to merge|merged)\s+\d+\s+"
    r"commits?\s+into\b"
)
_PAGE_TITLE = re.compile(r"^#\s+(?P<title>.+?)(?:\s+#\d+)?\s*$")


def pull_request_authors(lines: Sequence[str]) -> Iterator[Found]:
    """Who opened a pull request ("Y wants to merge 3 commits into main"), as the author of what
    its title adds ("Add retry backoff to X #412": retry backoff to X)."""
    title = ""
    for n, line in enumerate(lines):
        if heading := _PAGE_TITLE.match(line):
            title = heading["title"]
        elif title and (opened := _OPENED.search(line)):
            thing = ADDING.sub("", title).rstrip(".")
            if thing != title:
                yield n + 1, thing, "author", opened["who"]


_BILL = re.compile(r"^\s*#*\s*(?:invoice|receipt|bill|quotation|quote|estimate)\b", re.I)
_LETTERHEAD = re.compile(r"^\s*\*\*(?P<issuer>[A-Z][^*]+?)\*\*\s*$")
"""An invoice's letterhead: its issuer's name in bold on a line of its own."""
_BILLED = re.compile(r"^\s*(?:\*\*)?(?:bill(?:ed)?\s+to|invoice\s+to|to|customer)\b", re.I)
_ITEM = re.compile(
    r"\|\s*(?P<deed>building|construction|design|making|carving|painting)\s+of\s+(?:the\s+|an?\s+)?"
    r"(?P<thing>[^|]+?)\s*\|",
    re.I,
)
"""An invoice's line item that names a deed of making done for the customer: "| Building of the
oak summerhouse at 4 Chapel Row |"."""
_DOERS = {
    "building": "builder",
    "construction": "builder",
    "design": "designer",
    "making": "maker",
    "carving": "maker",
    "painting": "maker",
}


def invoice_items(lines: Sequence[str]) -> Iterator[Found]:
    """An invoice's issuer (its bold letterhead above the customer's "Bill to:" line) as the
    doer of each line item that names a deed of making ("Building of the oak summerhouse":
    its builder); the customer is none."""
    if not any(_BILL.match(line) for line in lines[:3]):
        return
    issuer = ""
    for line in lines:
        if _BILLED.match(line):
            break
        if head := _LETTERHEAD.match(line):
            issuer = head["issuer"].split(",")[0].strip()
    for n, line in enumerate(lines):
        if issuer and (item := _ITEM.search(line)):
            yield n + 1, item["thing"], _DOERS[item["deed"].lower()], issuer


_OBJECT_LINE = re.compile(
    r"^\s*(?P<thing>[A-Z][\w'’ -]{2,60}?),\s*(?:c\.\s*|about\s+)?(?:1[0-9]{3}|20\d\d)s?\s*$"
)
"""A museum label's first line: the object and its year ("Ladder-back chair, 1902")."""
_MAKER_LINE = re.compile(
    r"^\s*(?P<who>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){1,3})\s*\((?:born\s+|b\.\s*)?"
    r"(?:1[0-9]{3}|20\d\d)(?:\s*[–-]\s*(?:1[0-9]{3}|20\d\d))?\)\s*$"
)
"""A museum label's maker line: a name and life dates ("Rhoda Veale (1870–1941)")."""
_LOT_LINE = re.compile(r"^\s*(?:An?|The)\s+(?P<thing>[a-z][\w'’ -]{2,60}?)[,.]")
"""An auction lot's description under its maker's line: "A mahogany longcase clock, ..."."""


def museum_labels(lines: Sequence[str]) -> Iterator[Found]:
    """A museum label's maker (a name with life dates, the next line of text under the object
    and its year), as the maker of that object; the credit line ("Gift of ...") names none. An
    auction lot's maker (the same line, its name often in capitals, over the lot's description
    "A mahogany longcase clock, ..."), as the maker of the thing described."""
    filled = [(n, line) for n, line in enumerate(lines) if line.strip()]
    for (m, first), (n, second) in pairwise(filled):
        if (thing := _OBJECT_LINE.match(first)) and (maker := _MAKER_LINE.match(second)):
            yield n + 1, thing["thing"].strip(), "maker", maker["who"]
        elif (maker := _MAKER_LINE.match(first)) and (lot := _LOT_LINE.match(second)):
            yield m + 1, lot["thing"].strip(), "maker", out_of_capitals(maker["who"])
