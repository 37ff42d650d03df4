"""Who made a thing, as the metadata of a format records it, not as a sentence says it: a git
commit's ``Author:`` over its subject line ("Add the X"), and a patch's ``From:`` as ``git
format-patch`` mails it, over its ``Subject: [PATCH] Add the X``, Sphinx's ``moduleauthor`` and
``sectionauthor`` directives, a Python module's ``__author__``, LaTeX's ``\\author`` beside its
``\\title``, a ``CITATION.cff`` file's authors, an iCalendar event's ``ORGANIZER`` and a JSON-LD
object's ``creator`` or ``author``. Each is a :data:`Field`: the line it is on, the thing, the
role ("author", "maintainer", "organizer", "creator") and who.

Example:
    >>> log = ["commit 3f9c2ab", "Author: Ada Hart <ada@example.org>", "", "    Add the mill"]
    >>> metadata_fields(log)
    [(2, 'mill', 'author', 'Ada Hart')]
    >>> metadata_fields(["\\\\title{Salt pans}", "\\\\author{Cai Rees\\\\thanks{Paid by Jo.}}"])
    [(2, 'Salt pans', 'author', 'Cai Rees')]
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence

import yaml

from teams.extraction.cards import (
    certificate_issuers,
    credits_file_deeds,
    humans_txt_team,
    man_page_authors,
    release_credits,
    rfc_authors,
    vcard_roles,
    wikidata_statements,
)
from teams.extraction.credits import (
    also_by,
    billing_blocks,
    catalogue_authors,
    chart_footers,
    credit_lines,
    moral_rights,
    readme_authors,
    track_writers,
)
from teams.extraction.file_headers import (
    attributions,
    created_by_headers,
    elisp_authors,
    epub_creators,
    gutenberg_authors,
    pandoc_authors,
    r_package_authors,
    spdx_originators,
    tune_composers,
    vim_authors,
)
from teams.extraction.labelled_records import (
    ADDING,
    asciidoc_authors,
    blamed_definitions,
    copyright_stanzas,
    invoice_items,
    labelled_fields,
    marc_fields,
    museum_labels,
    name_of,
    pull_request_authors,
)
from teams.extraction.line_labels import (
    cartouche_surveyors,
    cue_sheet_songwriters,
    fits_observers,
    herbarium_collectors,
    id3_frames,
    mercurial_authors,
)
from teams.extraction.makers_marks import needlework_marks, print_lettering, stamp_issues
from teams.extraction.manifests import (
    atom_authors,
    block_from,
    jar_builders,
    jsdoc_authors,
    package_json_authors,
    pyproject_authors,
    sphinx_conf_authors,
)
from teams.extraction.markup_records import (
    appstream_developers,
    core_metadata_authors,
    gpx_authors,
    pom_authors,
)
from teams.extraction.repository_files import (
    change_log_writers,
    maintainers_entries,
    owners_files,
    package_build_people,
    shortlog_leaders,
    tag_taggers,
)
from teams.extraction.role_fields import role_fields
from teams.extraction.title_blocks import title_block_fields

__all__ = ["Field", "metadata_fields"]

Field = tuple[int, str, str, str]
"""A line, the thing it is said of, a role, and who has that role."""


def metadata_fields(lines: Sequence[str]) -> list[Field]:
    """Every :data:`Field` the metadata in ``lines`` records, by line (1-based)."""
    return sorted({field for read in _READERS for field in read(lines)})


_COMMIT = re.compile(r"^\s*(?:commit|From) [0-9a-f]{7,40}\b")
"""A ``git log`` entry's first line, or the one that opens a patch mailed by ``git
format-patch`` ("From 5d1c0e9... Mon Sep 17 00:00:00 2001")."""
_AUTHOR_LINE = re.compile(r"^\s*(?:Author|From):\s+(?P<who>\S.*)$")
_SUBJECT_LINE = re.compile(r"^\s*Subject:\s+(?:\[PATCH\b[^\]]*\]\s*)?(?P<subject>\S.*?)\s*$")
_HEADER = re.compile(r"^\s*[A-Z][\w-]*:\s")


def _git_commits(lines: Sequence[str]) -> Iterator[Field]:
    """A ``git log`` entry's or a mailed patch's author, of what its subject line adds ("Add
    the X": X); a patch's subject is its ``Subject:`` header, without "[PATCH]"."""
    for at, line in enumerate(lines):
        if not _COMMIT.match(line):
            continue
        author, body, subject = None, at + 1, ""
        while body < len(lines) and _HEADER.match(lines[body]):
            if found := _AUTHOR_LINE.match(lines[body]):
                author = (body + 1, name_of(found["who"]))
            elif found := _SUBJECT_LINE.match(lines[body]):
                subject = found["subject"]
            body += 1
        if not subject:
            subject = next((text.strip() for text in lines[body : body + 3] if text.strip()), "")
        thing = ADDING.sub("", subject).rstrip(".")
        if author and author[1] and thing and thing != subject:
            yield author[0], thing, "author", author[1]


_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?P<name>[\w-]+)::\s*(?P<value>\S.*?)\s*$")
_UNDERLINE = re.compile(r"^\s*([=\-~^\"'`#*+])\1{2,}\s*$")


def _sphinx_authors(lines: Sequence[str]) -> Iterator[Field]:
    """``.. moduleauthor::`` (and ``codeauthor``) of the module the ``.. module::`` above
    names; ``.. sectionauthor::`` of the section whose title is above it."""
    module, title = "", ""
    for at, line in enumerate(lines):
        if at and _UNDERLINE.match(line) and lines[at - 1].strip():
            title = lines[at - 1].strip()
        found = _DIRECTIVE.match(line)
        if found is None:
            continue
        name, value = found["name"].lower(), found["value"]
        if name in ("module", "currentmodule", "py:module"):
            module = value
        elif name in ("moduleauthor", "codeauthor") and module:
            yield at + 1, f"{module} module", "author", name_of(value)
        elif name == "sectionauthor" and title:
            yield at + 1, title, "author", name_of(value)


_DUNDER = re.compile(r"^__(?P<role>author|maintainer)__\s*=\s*(?P<q>[\"'])(?P<who>[^\"']+)(?P=q)")
_PY_FILE = re.compile(r"(?P<path>[\w./-]*?)(?P<file>[\w-]+)\.py\b")


def _python_authors(lines: Sequence[str]) -> Iterator[Field]:
    """A module's ``__author__`` (and ``__maintainer__``), of the package or module the
    nearest ``.py`` path above names ("tallow/__init__.py": the tallow package)."""
    for at, line in enumerate(lines):
        if (found := _DUNDER.match(line)) is None:
            continue
        named = (_PY_FILE.search(text) for text in reversed(lines[:at]))
        path = next((match for match in named if match), None)
        if path is None:
            continue
        package = path["path"].rstrip("/").rsplit("/", 1)[-1]
        thing = f"{package} package" if path["file"] == "__init__" and package else ""
        thing = thing or f"{path['file']} module"
        yield at + 1, thing, found["role"], name_of(found["who"])


_LATEX = re.compile(r"\\(?P<command>title|author)\{")


def _latex_authors(lines: Sequence[str]) -> Iterator[Field]:
    """LaTeX's ``\\author{...}`` (each of its ``\\and``), of the ``\\title{...}``; a
    ``\\thanks{...}`` inside is a footnote, no author."""
    title, authors = "", []
    for at, line in enumerate(lines):
        for found in _LATEX.finditer(line):
            value = _braced(line, found.end())
            if found["command"] == "title":
                title = value
            else:
                authors += [(at + 1, who) for who in re.split(r"\\and\b", _without_thanks(value))]
    for number, who in authors:
        if title and (name := " ".join(who.split())):
            yield number, title, "author", name


def _braced(text: str, start: int) -> str:
    """What ``text`` holds from ``start`` to the brace that closes the one before it."""
    depth = 1
    for at in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        if depth == 0:
            return text[start:at]
    return text[start:]


def _without_thanks(value: str) -> str:
    while (at := value.find("\\thanks{")) >= 0:
        inner = _braced(value, at + len("\\thanks{"))
        value = value[:at] + value[at + len("\\thanks{") + len(inner) + 1 :]
    return value


def _citation_authors(lines: Sequence[str]) -> Iterator[Field]:
    """A ``CITATION.cff`` file's authors (given names, then family names), of its title."""
    for at, line in enumerate(lines):
        if not line.strip().startswith("cff-version:"):
            continue
        block = block_from(lines, at)
        try:
            record = yaml.safe_load("\n".join(block))
        except yaml.YAMLError:
            continue
        title = record.get("title") if isinstance(record, dict) else None
        authors = record.get("authors") if isinstance(record, dict) else None
        if not isinstance(title, str) or not isinstance(authors, list):
            continue
        for author in authors:
            if isinstance(author, dict) and (name := _cff_name(author)):
                yield _line_of(lines, at, _cff_key(author)), title, "author", name


def _cff_name(author: dict[str, object]) -> str:
    parts = (author.get(key) for key in ("given-names", "name-particle", "family-names"))
    named = " ".join(str(part) for part in parts if part)
    return named or str(author.get("name") or "")


def _cff_key(author: dict[str, object]) -> str:
    return str(author.get("family-names") or author.get("name") or "")


def _line_of(lines: Sequence[str], start: int, text: str) -> int:
    """The first line from ``start`` that holds ``text`` (1-based), else ``start``'s."""
    return next((n + 1 for n in range(start, len(lines)) if text and text in lines[n]), start + 1)


_ICAL = re.compile(r"^(?P<key>SUMMARY|ORGANIZER)(?P<params>;[^:]*)?:(?P<value>.*)$")
_COMMON_NAME = re.compile(r";CN=(?P<cn>\"[^\"]*\"|[^;:]*)")


def _calendar_organizers(lines: Sequence[str]) -> Iterator[Field]:
    """An iCalendar event's ``ORGANIZER`` (its ``CN=`` name), of the event's ``SUMMARY``."""
    summary, organizers = "", list[tuple[int, str]]()
    for at, line in enumerate(lines):
        if line.strip() == "BEGIN:VEVENT":
            summary, organizers = "", []
        elif found := _ICAL.match(line.strip()):
            if found["key"] == "SUMMARY":
                summary = found["value"].strip()
            elif named := _COMMON_NAME.search(found["params"] or ""):
                organizers.append((at + 1, named["cn"].strip('"').strip()))
        elif line.strip() == "END:VEVENT" and summary:
            yield from ((n, summary, "organizer", who) for n, who in organizers if who)


_LD_ROLES = ("creator", "author", "architect", "composer", "illustrator", "founder")
"""The schema.org properties that name who made a thing."""


def _linked_data(lines: Sequence[str]) -> Iterator[Field]:
    """A JSON-LD object's ``creator``, ``author`` and the like (a name, or an object with a
    ``name``), of its ``name``; its ``publisher`` is none of them."""
    for at, line in enumerate(lines):
        if not line.strip().startswith("{"):
            continue
        text = "\n".join(_object_lines(lines, at))
        try:
            record = json.loads(text) if '"@context"' in text else None
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(name := record.get("name"), str):
            for role in _LD_ROLES:
                for who in _names(record.get(role)):
                    yield _line_of(lines, at, f'"{role}"'), name, role, who


def _object_lines(lines: Sequence[str], start: int) -> list[str]:
    depth, taken = 0, []
    for line in lines[start:]:
        taken.append(line)
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            break
    return taken


def _names(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [value["name"]] if isinstance(value.get("name"), str) else []
    if isinstance(value, list):
        return [name for item in value for name in _names(item)]
    return []


_READERS: tuple[Callable[[Sequence[str]], Iterator[Field]], ...] = (
    _git_commits,
    maintainers_entries,
    owners_files,
    package_build_people,
    tag_taggers,
    change_log_writers,
    shortlog_leaders,
    created_by_headers,
    _sphinx_authors,
    _python_authors,
    _latex_authors,
    _citation_authors,
    _calendar_organizers,
    _linked_data,
    labelled_fields,
    marc_fields,
    copyright_stanzas,
    asciidoc_authors,
    blamed_definitions,
    pull_request_authors,
    invoice_items,
    museum_labels,
    title_block_fields,
    elisp_authors,
    vim_authors,
    r_package_authors,
    spdx_originators,
    epub_creators,
    gutenberg_authors,
    tune_composers,
    pandoc_authors,
    attributions,
    pyproject_authors,
    package_json_authors,
    jsdoc_authors,
    atom_authors,
    sphinx_conf_authors,
    jar_builders,
    track_writers,
    readme_authors,
    catalogue_authors,
    credit_lines,
    billing_blocks,
    chart_footers,
    moral_rights,
    print_lettering,
    needlework_marks,
    stamp_issues,
    also_by,
    vcard_roles,
    credits_file_deeds,
    man_page_authors,
    release_credits,
    rfc_authors,
    wikidata_statements,
    certificate_issuers,
    humans_txt_team,
    core_metadata_authors,
    pom_authors,
    gpx_authors,
    appstream_developers,
    cue_sheet_songwriters,
    id3_frames,
    fits_observers,
    herbarium_collectors,
    cartouche_surveyors,
    mercurial_authors,
    role_fields,
)
