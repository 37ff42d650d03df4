"""Who has a role in a software project, as the project's own files record it: an entry of a
``MAINTAINERS`` file (a title, then ``M:`` maintainers and ``R:`` reviewers among its other
one-letter fields), an ``OWNERS`` file's ``approvers`` and ``reviewers`` (not its
``emeritus_approvers``), a ``PKGBUILD``'s ``# Maintainer:`` and ``# Contributor:`` comments, and
an annotated tag's ``Tagger:`` as ``git show`` prints it. Each is a
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

__all__ = ["maintainers_entries", "owners_files", "package_build_people", "tag_taggers"]

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
