"""Who has a role in a software project, as the project's own files record it: an entry of a
``MAINTAINERS`` file (a title, then ``M:`` maintainers and ``R:`` reviewers among its other
one-letter fields), an ``OWNERS`` file's ``approvers`` and ``reviewers`` (not its
``emeritus_approvers``), a ``PKGBUILD``'s ``# Maintainer:`` and ``# Contributor:`` comments, and
an annotated tag's ``Tagger:`` as ``git show`` prints it, the writer of what a GNU ``ChangeLog``
entry calls new, and who made the most commits as ``git shortlog -s`` counts them; and a Debian
control file's long description, to be read as prose about its package. Each role is a
:data:`~teams.extraction.labelled_records.Found`: the line, the thing, the role and who.

Example:
    >>> entry = ["HARBOUR SENSOR DRIVER", "M:\\tNell Arm <nell@example.org>", "S:\\tMaintained"]
    >>> list(maintainers_entries(entry))
    [(2, 'harbour sensor driver', 'maintainer', 'Nell Arm')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from teams.extraction.labelled_records import Found, heading_above, name_of

__all__ = [
    "change_log_writers",
    "long_descriptions",
    "maintainers_entries",
    "owners_files",
    "package_build_people",
    "shortlog_leaders",
    "tag_taggers",
]

_ENTRY_FIELD = re.compile(r"^(?P<letter>[A-Z]):\s+(?P<value>\S.*?)\s*$")
"""A field of a ``MAINTAINERS`` entry: one capital letter, a colon, a tab ("M:\tNell ...")."""
_ENTRY_ROLES = {"M": "maintainer", "R": "reviewer"}
_OTHER_LETTERS = frozenset("SFLWTKNXQBCP")
"""The entry's other fields (status, files, list, web page, tree, ...): an entry has one."""


def maintainers_entries(lines: Sequence[str]) -> Iterator[Found]:
    """Each maintainer and reviewer of a ``MAINTAINERS`` entry, of the entry's title (in
    lower case when written in capitals)."""
    at = 0
    while at < len(lines):
        fields = []
        below = at + 1
        while below < len(lines) and (found := _ENTRY_FIELD.match(lines[below])):
            fields.append((below, found))
            below += 1
        title = lines[at].strip()
        letters = {found["letter"] for _, found in fields}
        if title and not _ENTRY_FIELD.match(lines[at]) and letters & _OTHER_LETTERS:
            thing = title.lower() if title.isupper() else title
            for line, found in fields:
                role = _ENTRY_ROLES.get(found["letter"])
                if role and (who := name_of(found["value"])):
                    yield line + 1, thing, role, who
        at = max(below, at + 1)


_OWNERS_LIST = re.compile(r"^(?P<role>approvers|reviewers):\s*$")
_OWNERS_ITEM = re.compile(r"^\s+-\s+(?P<who>[\w.-]+)\s*$")
_OWNERS_PATH = re.compile(r"(?:^|[\s/])(?P<folder>[\w.-]+)/OWNERS\b")


def owners_files(lines: Sequence[str]) -> Iterator[Found]:
    """Each approver and reviewer an ``OWNERS`` file lists, of the folder the heading over it
    names ("uploader/OWNERS": the uploader), by their handles."""
    for at, line in enumerate(lines):
        if (listed := _OWNERS_LIST.match(line)) is None:
            continue
        folder = _OWNERS_PATH.search(heading_above(lines[:at]))
        if folder is None:
            continue
        for below in range(at + 1, len(lines)):
            if (item := _OWNERS_ITEM.match(lines[below])) is None:
                break
            yield below + 1, folder["folder"], listed["role"][:-1], item["who"]


_PACKAGE_NAME = re.compile(r"^pkgname=(?P<q>[\"']?)(?P<name>[\w.+-]+)(?P=q)\s*$")
_PROJECT_URL = re.compile(r"^url=[\"']?\S*?/(?P<project>[\w.+-]+?)(?:\.git)?/?[\"']?\s*$")
_PACKAGER = re.compile(r"^#\s*(?P<role>Maintainer|Contributor):\s*(?P<who>\S.*?)\s*$")
_ADDRESS = re.compile(r"\s*<[^>]*>")


def package_build_people(lines: Sequence[str]) -> Iterator[Found]:
    """A ``PKGBUILD``'s maintainer and contributors, as its comments name them, of the package
    its ``pkgname`` names, and of the package of the project its ``url`` names, when the
    package's name holds it ("python-tidetable" packages the tidetable of ".../tidetable")."""
    name = next((found["name"] for line in lines if (found := _PACKAGE_NAME.match(line))), "")
    if not name:
        return
    urls = (found["project"] for line in lines if (found := _PROJECT_URL.match(line)))
    project = next((found for found in urls if found != name and found in name), "")
    things = [f"{name} package", *([f"{project} package"] if project else [])]
    for at, line in enumerate(lines):
        if (found := _PACKAGER.match(line)) and (who := _ADDRESS.sub("", found["who"]).strip()):
            yield from ((at + 1, thing, found["role"].lower(), who) for thing in things)


_TAG = re.compile(r"^\s*tag\s+(?P<tag>\S+)\s*$")
_TAGGER = re.compile(r"^\s*Tagger:\s+(?P<who>\S.*?)\s*$")


def tag_taggers(lines: Sequence[str]) -> Iterator[Found]:
    """Who made an annotated tag, on the ``Tagger:`` line under its ``tag`` line, of the
    release it tags (not the author of the commit it points to)."""
    for at, line in enumerate(lines[:-1]):
        tag, tagger = _TAG.match(line), _TAGGER.match(lines[at + 1])
        if tag and tagger and (who := name_of(tagger["who"])):
            yield at + 2, f"release {tag['tag']}", "tagger", who


_CHANGE_HEADER = re.compile(
    r"^(?P<date>\d{4}-\d\d-\d\d)\s{2,}(?P<who>[^<\s][^<]*?)\s{2,}<[^<>\s]+>\s*$"
)
"""A GNU ChangeLog entry's header: its date, its writer and their address, two spaces apart."""
_CHANGE_ITEM = re.compile(
    r"^\t(?:\*\s*(?P<file>[^\s(:]+))?\s*(?:\((?P<names>[^)]+)\))?:\s*(?P<what>\S.*)$"
)
"""One change of an entry, tab-indented: "* file (function): what changed"."""
_NEW = re.compile(
    r"^New\s+(?P<kind>function|file|class|method|module|macro|variable|command|option|type)s?\b",
    re.IGNORECASE,
)


def change_log_writers(lines: Sequence[str]) -> Iterator[Found]:
    """Who wrote what a GNU ChangeLog entry says is new ("* neap.py (check_neap): New
    function."): the writer its header names, of each function (or file) the change names."""
    who = ""
    for at, line in enumerate(lines):
        if header := _CHANGE_HEADER.match(line):
            who = " ".join(header["who"].split())
        elif who and (item := _CHANGE_ITEM.match(line)) and (new := _NEW.match(item["what"])):
            kind = new["kind"].lower()
            names = [name.strip() for name in (item["names"] or "").split(",") if name.strip()]
            things = [f"{name} {kind}" for name in names] or (
                [item["file"]] if item["file"] else []
            )
            yield from ((at + 1, thing, "author", who) for thing in things)
        elif line.strip() and not line.startswith(("\t", " ")):
            who = ""


_SHORTLOG = re.compile(r"^\s*\$?\s*git\s+shortlog\b")
_SHORTLOG_COUNT = re.compile(r"^\s*(?P<count>\d+)\t(?P<who>\S.*?)\s*$")


def shortlog_leaders(lines: Sequence[str]) -> Iterator[Found]:
    """Who made the most commits, as ``git shortlog -s`` counts them under its command line: the
    one of the highest count, of the project the heading above names (its part before a
    colon)."""
    for at, line in enumerate(lines):
        if not _SHORTLOG.match(line):
            continue
        counted = []
        for below in range(at + 1, len(lines)):
            if (found := _SHORTLOG_COUNT.match(lines[below])) is None:
                break
            counted.append((int(found["count"]), below + 1, name_of(found["who"])))
        thing = heading_above(lines[:at]).split(": ")[0]
        top = max(counted, default=None)
        if thing and top and [count for count, _, _ in counted].count(top[0]) == 1:
            yield top[1], thing, "author of the most commits", top[2]


_PACKAGE_FIELD = re.compile(r"^(?:Source|Package|Name):\s*(?P<name>\S+)\s*$")
_DESCRIPTION = re.compile(r"^Description:\s*(?P<synopsis>.*?)\s*$")


def long_descriptions(lines: Sequence[str]) -> Iterator[tuple[int, str, str]]:
    """The long description of a package in a Debian control file (its ``Description:``
    field's lines under it, each opened by a space), as prose: its first line (1-based), the
    package its ``Source:`` or ``Package:`` field names, and its text, line for line (a line
    of only "." a blank one)."""
    package = ""
    for at, line in enumerate(lines):
        if named := _PACKAGE_FIELD.match(line):
            package = package or named["name"]
        if not (_DESCRIPTION.match(line) and package):
            continue
        below = at + 1
        while below < len(lines) and lines[below].startswith(" ") and lines[below].strip():
            below += 1
        text = [" " if part.strip() == "." else part.strip() for part in lines[at + 1 : below]]
        if text:
            yield at + 2, package, "\n".join(text)
