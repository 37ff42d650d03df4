"""Who made a thing, as a record format's own fields name its maker: a Python distribution's core
metadata (a wheel's ``METADATA``, an sdist's ``PKG-INFO``) by the display names of its
``Author-email:`` header, a Maven ``pom.xml``'s ``<developer>`` whose ``<roles>`` hold
"author", a GPX file's ``<author>`` in its ``<metadata>`` and an AppStream metainfo file's
``<developer>`` (or legacy ``<developer_name>``). Each is ``(line, thing, role, who)``, as
:mod:`teams.extraction.metadata` reads them; a maintainer kept the package, a ``<contributor>``,
a copyright holder, an ``<organization>`` and the software named in ``creator=`` made nothing.

Example:
    >>> head = ["Metadata-Version: 2.1", "Name: kelp", "Author-email: Ada Holm <a@example.org>"]
    >>> list(core_metadata_authors(head))
    [(3, 'kelp package', 'author', 'Ada Holm')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from email.utils import getaddresses
from itertools import takewhile
from xml.parsers import expat

from teams.extraction.labelled_records import Found
from teams.extraction.manifests import block_from

__all__ = ["appstream_developers", "core_metadata_authors", "gpx_authors", "pom_authors"]

_CORE_FIELD = re.compile(r"^(?P<name>[A-Za-z][\w-]*):\s*(?P<value>.*?)\s*$")
_CORE_PEOPLE = {"author-email": "author", "maintainer-email": "maintainer"}
"""The core metadata headers that may name people ("Name <address>", comma separated); a plain
``Author:`` is a labelled field (:func:`~teams.extraction.labelled_records.labelled_fields`)."""


def core_metadata_authors(lines: Sequence[str]) -> Iterator[Found]:
    """The display names of a core metadata file's ``Author-email:`` (as authors) and
    ``Maintainer-email:`` (as maintainers), of the package its ``Name:`` names; the headers
    run from ``Metadata-Version:`` to the first blank line (the description follows it)."""
    for at, line in enumerate(lines):
        if not line.strip().startswith("Metadata-Version:"):
            continue
        header = takewhile(lambda n: lines[n].strip(), range(at, len(lines)))
        fields = [(n, found) for n in header if (found := _CORE_FIELD.match(lines[n].strip()))]
        name = next((found["value"] for _, found in fields if found["name"] == "Name"), "")
        for n, found in fields:
            if name and (role := _CORE_PEOPLE.get(found["name"].lower())):
                for who, _ in getaddresses([found["value"]]):
                    if who.strip():
                        yield n + 1, f"{name} package", role, " ".join(who.split())


@dataclass
class _Element:
    """An XML element: its tag without a namespace prefix, its attributes, its line and its
    text with spacing made single."""

    tag: str
    attributes: dict[str, str]
    line: int
    text: str = ""
    children: list[_Element] = field(default_factory=list)

    def along(self, *tags: str) -> list[_Element]:
        """The elements down the path of ``tags`` from this one (each a child's tag)."""
        found = [self]
        for tag in tags:
            found = [child for element in found for child in element.children if child.tag == tag]
        return found

    def text_of(self, *tags: str) -> str:
        """The text of the first element down ``tags`` without an ``xml:lang`` (the untranslated
        one), or ""."""
        plain = (found for found in self.along(*tags) if "xml:lang" not in found.attributes)
        return next((found.text for found in plain if found.text), "")


_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})\s*(?:xml|gpx)?\s*$", re.I)
"""The opening fence of a block that may hold XML: "```xml", "```gpx" or a bare "```"."""


def _xml_roots(lines: Sequence[str]) -> Iterator[_Element]:
    """The root element of each fenced block of ``lines`` that is well-formed XML, its lines
    numbered in ``lines`` (1-based)."""
    inside = False
    for at, line in enumerate(lines):
        if not line.strip().startswith(("```", "~~~")):
            continue
        inside = not inside
        if inside and _FENCE.match(line):
            block = block_from(lines, at + 1)
            skipped = len(list(takewhile(lambda text: not text.strip(), block)))
            if root := _parsed("\n".join(block[skipped:]).lstrip(), at + 1 + skipped):
                yield root


def _parsed(text: str, lines_before: int) -> _Element | None:
    """The root of XML ``text``, each element with its line (after ``lines_before`` others);
    None when it is not well-formed."""
    if not text.startswith("<"):
        return None
    parser, open_elements = expat.ParserCreate(), list[_Element]()
    roots: list[_Element] = []

    def start(tag: str, attributes: dict[str, str]) -> None:
        line = lines_before + parser.CurrentLineNumber
        element = _Element(tag.rsplit(":", maxsplit=1)[-1], attributes, line)
        (open_elements[-1].children if open_elements else roots).append(element)
        open_elements.append(element)

    def end(_: str) -> None:
        element = open_elements.pop()
        element.text = " ".join(element.text.split())

    def characters(data: str) -> None:
        if open_elements:
            open_elements[-1].text += data

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler = characters
    try:
        parser.Parse(text, True)
    except expat.ExpatError:
        return None
    return roots[0] if roots else None


def pom_authors(lines: Sequence[str]) -> Iterator[Found]:
    """Each ``<developer>`` of a Maven ``pom.xml`` whose ``<roles>`` hold "author", of the
    project's ``<artifactId>`` (and its ``<name>``, when it has one); a developer of other roles
    and a ``<contributor>`` wrote nothing."""
    for root in _xml_roots(lines):
        artifact = root.text_of("artifactId")
        if root.tag != "project" or not artifact:
            continue
        things = dict.fromkeys(filter(None, (artifact, root.text_of("name"))))
        for developer in root.along("developers", "developer"):
            roles = {role.text.lower() for role in developer.along("roles", "role")}
            named = developer.along("name")
            if "author" in roles and named and named[0].text:
                yield from ((named[0].line, thing, "author", named[0].text) for thing in things)


def gpx_authors(lines: Sequence[str]) -> Iterator[Found]:
    """The ``<name>`` of a GPX file's ``<author>`` in its ``<metadata>`` (who made the file),
    as the creator of what the metadata's ``<name>`` names and of each track and route; the
    ``<copyright>``'s ``author`` holds its rights and the ``<gpx>``'s ``creator`` is the
    software that wrote it."""
    for root in _xml_roots(lines):
        if root.tag != "gpx":
            continue
        named = root.along("metadata", "author", "name")
        routes = (route.text for route in (*root.along("trk", "name"), *root.along("rte", "name")))
        things = dict.fromkeys(filter(None, (root.text_of("metadata", "name"), *routes)))
        if named and named[0].text:
            yield from ((named[0].line, thing, "creator", named[0].text) for thing in things)


def appstream_developers(lines: Sequence[str]) -> Iterator[Found]:
    """The ``<name>`` of an AppStream metainfo ``<component>``'s ``<developer>`` (or its legacy
    ``<developer_name>``), as the developer of the component's own ``<name>``; its
    ``<update_contact>`` and a packager made nothing."""
    for root in _xml_roots(lines):
        if root.tag != "component" or not (app := root.text_of("name")):
            continue
        for developer in (*root.along("developer", "name"), *root.along("developer_name")):
            if developer.text and "xml:lang" not in developer.attributes:
                yield developer.line, app, "developer", developer.text
