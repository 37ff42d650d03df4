"""Who wrote a package, a module or a post, as its manifest or markup records it: a
``pyproject.toml``'s ``authors`` (``maintainers`` as maintainers) of its ``[project]`` or
``[tool.poetry]`` name (a ``Cargo.toml``'s of its ``[package]`` crate), a JSDoc comment's
``@author`` of its ``@module``, an Atom entry's ``<author>`` of its ``<title>`` (a
``<contributor>`` is none), a Sphinx ``conf.py``'s ``author`` of its project's documentation
and a jar's ``MANIFEST.MF`` ``Built-By`` (its builder). Each is ``(line, thing, role, who)``, as
:mod:`teams.extraction.metadata` reads them.

Example:
    >>> toml = ['[project]', 'name = "tarn"', 'authors = [{name = "Ada Holm"}]']
    >>> list(pyproject_authors(toml))
    [(3, 'tarn package', 'author', 'Ada Holm')]
    >>> comment = ["/**", " * @module tide", " * @author Cai Rees <c@e.org>", " */"]
    >>> list(jsdoc_authors(comment))
    [(3, 'tide module', 'author', 'Cai Rees')]
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator, Sequence
from itertools import takewhile

from teams.extraction.labelled_records import Found, name_of

__all__ = [
    "atom_authors",
    "block_from",
    "jar_builders",
    "jsdoc_authors",
    "package_json_authors",
    "pyproject_authors",
    "sphinx_conf_authors",
]

_TABLE = re.compile(r"^\s*\[(?P<name>project|tool\.poetry|package)\]\s*$")
"""A manifest's table of the package: ``pyproject.toml``'s, Poetry's, a ``Cargo.toml``'s (a
Rust crate's)."""
_PEOPLE = {"authors": "author", "maintainers": "maintainer"}


def block_from(lines: Sequence[str], start: int) -> list[str]:
    """The lines from ``start`` to the end of their fenced block (or of the text)."""
    end = next((n for n in range(start, len(lines)) if lines[n].lstrip().startswith("```")), None)
    return list(lines[start:end])


def _person(entry: object) -> str:
    """A person of an ``authors`` array: an inline table's ``name``, or "Name <email>"."""
    if isinstance(entry, dict):
        entry = entry.get("name")
    return name_of(entry) if isinstance(entry, str) else ""


def pyproject_authors(lines: Sequence[str]) -> Iterator[Found]:
    """A ``pyproject.toml``'s authors and maintainers, of the package its table names (a
    ``Cargo.toml``'s, of its crate)."""
    for at, line in enumerate(lines):
        if (table := _TABLE.match(line)) is None:
            continue
        block = block_from(lines, at)
        try:
            record = tomllib.loads("\n".join(block))
        except tomllib.TOMLDecodeError:
            continue
        for key in table["name"].split("."):
            record = record.get(key, {}) if isinstance(record, dict) else {}
        name = record.get("name") if isinstance(record, dict) else None
        if not isinstance(name, str):
            continue
        for field, role in _PEOPLE.items():
            people = record.get(field)
            for who in map(_person, people if isinstance(people, list) else ()):
                if who:
                    line_at = next((at + n + 1 for n, text in enumerate(block) if who in text), 0)
                    kind = "crate" if table["name"] == "package" else "package"
                    yield line_at or at + 1, f"{name} {kind}", role, who


_CONF_ASSIGNED = re.compile(r"^(?P<name>project|author)\s*=\s*(?P<q>[\"'])(?P<value>[^\"']+)(?P=q)")
"""A module-level assignment of a Sphinx ``conf.py``'s project or author: 'author = "Y"'."""


def sphinx_conf_authors(lines: Sequence[str]) -> Iterator[Found]:
    """A Sphinx ``conf.py``'s ``author``, of the documentation of the ``project`` it assigns
    beside it (its ``copyright`` holder wrote nothing)."""
    for at, line in enumerate(lines):
        if not (found := _CONF_ASSIGNED.match(line)) or found["name"] != "project":
            continue
        assigned = ((n, _CONF_ASSIGNED.match(text)) for n, text in enumerate(block_from(lines, at)))
        for n, author in assigned:
            if author and author["name"] == "author" and (who := name_of(author["value"])):
                yield at + n + 1, f"{found['value']} documentation", "author", who


_JAR_FIELD = re.compile(r"^\s*(?P<name>[A-Za-z][\w-]*):\s*(?P<value>\S.*?)\s*$")
_JAR_TITLES = (
    "Implementation-Title",
    "Bundle-Name",
    "Specification-Title",
    "Automatic-Module-Name",
)
"""The main attributes of a manifest that name its jar, the likeliest first."""
_JAR_VERSIONS = ("Implementation-Version", "Bundle-Version", "Specification-Version")


def jar_builders(lines: Sequence[str]) -> Iterator[Found]:
    """A Java archive's ``META-INF/MANIFEST.MF``'s ``Built-By``, as the builder of the jar its
    title and version name ("X 2.3 jar"); ``Created-By`` names the build tool and
    ``Implementation-Vendor`` a vendor, neither its builder."""
    for at, line in enumerate(lines):
        if not line.strip().startswith("Manifest-Version:"):
            continue
        block = takewhile(lambda n: bool(_JAR_FIELD.match(lines[n])), range(at, len(lines)))
        fields = {
            found["name"]: (n, found["value"])
            for n in block
            if (found := _JAR_FIELD.match(lines[n]))
        }
        title = next((fields[name][1] for name in _JAR_TITLES if name in fields), "")
        version = next((fields[name][1] for name in _JAR_VERSIONS if name in fields), "")
        if title and "Built-By" in fields:
            n, who = fields["Built-By"]
            yield n + 1, " ".join(filter(None, (title, version, "jar"))), "builder", name_of(who)


_JSDOC_TAG = re.compile(r"^\s*\*?\s*@(?P<tag>module|author|file|fileoverview)\b\s*(?P<value>.*)$")


def jsdoc_authors(lines: Sequence[str]) -> Iterator[Found]:
    """A JSDoc comment's ``@author`` (each), of the module its ``@module`` tag names."""
    module, authors = "", list[tuple[int, str]]()
    for at, line in enumerate(lines):
        if line.strip().startswith("/**"):
            module, authors = "", []
        if found := _JSDOC_TAG.match(line):
            value = found["value"].strip()
            if found["tag"] == "module" and value:
                module = value.split()[0]
            elif found["tag"] == "author" and (who := name_of(value)):
                authors.append((at + 1, who))
        if line.strip().endswith("*/") and module:
            yield from ((n, f"{module} module", "author", who) for n, who in authors)
            module, authors = "", []


_ATOM = re.compile(
    r"<(?P<close>/)?(?P<tag>entry|author|contributor)\b[^>]*>"
    r"|<(?P<field>title|name)\b[^>]*>(?P<text>[^<]*)</(?P=field)>"
)
"""An Atom entry's elements that matter, in their order: the opening and closing tags of an
entry, an author and a contributor, and a title or a name with its text."""


def atom_authors(lines: Sequence[str]) -> Iterator[Found]:
    """An Atom entry's ``<author>`` (its ``<name>``), of the entry's ``<title>``."""
    title, inside, authors = "", "", list[tuple[int, str]]()
    for at, line in enumerate(lines):
        for found in _ATOM.finditer(line):
            tag, value = found["tag"], " ".join((found["text"] or "").split())
            if tag == "entry" and not found["close"]:
                title, inside, authors = "", "", []
            elif tag == "entry" and title:
                yield from ((n, title, "author", who) for n, who in authors)
                title, authors = "", []
            elif tag:
                inside = "" if found["close"] else tag
            elif found["field"] == "title" and not inside:
                title = title or value
            elif found["field"] == "name" and inside == "author" and value:
                authors.append((at + 1, value))


_JSON_OPEN = re.compile(r"^\s*```\s*json\s*$|^\s*\{\s*$", re.I)


def package_json_authors(lines: Sequence[str]) -> Iterator[Found]:
    """A ``package.json``'s ``author`` ("Name <email> (url)", or an object with a ``name``),
    of the package it names; its ``contributors`` are none."""
    for at, line in enumerate(lines):
        above = lines[at - 1].strip() if at else ""
        if not _JSON_OPEN.match(line) or above.endswith(("{", ",")) or above.startswith("```"):
            continue
        start = at + 1 if line.strip().startswith("```") else at
        block = block_from(lines, start)
        try:
            record = json.loads("\n".join(block))
        except ValueError:
            continue
        if not isinstance(record, dict) or not isinstance(name := record.get("name"), str):
            continue
        if who := _URL_AFTER.sub("", _person(record.get("author"))):
            line_at = next((n for n, text in enumerate(block) if '"author"' in text), 0)
            yield start + line_at + 1, f"{name} package", "author", who


_URL_AFTER = re.compile(r"\s*\([^()]*\)\s*$")
"""A person's address in brackets after the name ("Ada Holm (https://example.org/ada)")."""
