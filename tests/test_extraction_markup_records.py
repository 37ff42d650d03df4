"""Who made a thing, as a record format's own fields name its maker: a Python distribution's core
metadata by its ``Author-email:`` display names, a Maven ``pom.xml``'s ``<developer>`` of role
"author", a GPX file's ``<metadata>`` ``<author>`` and an AppStream metainfo file's
``<developer>``; never a maintainer, a contributor, a copyright holder, an organisation, the
software that wrote the file or a packager."""

from __future__ import annotations

from framework.memory import MiniLMEmbedder, SemanticStore
from teams.extraction.metadata import metadata_fields
from tests.extracting import answer
from tests.test_extraction_metadata import _fields

_WHEEL = (
    "```\nMetadata-Version: 2.3\nName: saltpan\nVersion: 0.9.1\n"
    'Author-email: Ada Holm <ada@example.org>, "Rees, Cai" <cai@example.org>\n'
    "Maintainer-email: Tom Bell <tom@example.org>\n\nSaltpan reads brine gauges.\n```\n"
)
_POM = (
    "```xml\n<project>\n  <groupId>org.example.kiln</groupId>\n"
    "  <artifactId>kiln-log</artifactId>\n  <developers>\n    <developer>\n"
    "      <name>Tom Bell</name>\n      <roles><role>release manager</role></roles>\n"
    "    </developer>\n    <developer>\n      <name>Ada Holm</name>\n"
    "      <roles>\n        <role>Author</role>\n      </roles>\n    </developer>\n"
    "  </developers>\n  <contributors>\n    <contributor>\n      <name>Cai Rees</name>\n"
    "      <roles><role>author</role></roles>\n    </contributor>\n  </contributors>\n"
    "  <organization><name>Brede Software</name></organization>\n</project>\n```\n"
)
_GPX = (
    '```xml\n<gpx version="1.1" creator="Wayfarer 5" xmlns="http://www.topografix.com/GPX/1/1">\n'
    "  <metadata>\n    <name>Brede estuary loop</name>\n    <author>\n"
    "      <name>Ada Holm</name>\n    </author>\n"
    '    <copyright author="Kell Ramblers"><year>2021</year></copyright>\n  </metadata>\n'
    "  <rte>\n    <name>Salt marsh path</name>\n  </rte>\n</gpx>\n```\n"
)
_METAINFO = (
    '```xml\n<?xml version="1.0" encoding="UTF-8"?>\n<component type="desktop-application">\n'
    "  <id>org.example.Kilnwatch</id>\n  <name>Kilnwatch</name>\n"
    '  <name xml:lang="cy">Gwyliwr Odyn</name>\n  <developer id="org.example">\n'
    "    <name>Ada Holm</name>\n  </developer>\n"
    "  <update_contact>packaging@example.org</update_contact>\n</component>\n```\n"
)


def test_a_wheels_author_email_display_names_not_its_maintainer() -> None:
    assert _fields(_WHEEL) == {
        ("saltpan package", "author", "Ada Holm"),
        ("saltpan package", "author", "Rees, Cai"),
        ("saltpan package", "maintainer", "Tom Bell"),
    }
    assert metadata_fields(_WHEEL.split("\n"))[0][0] == 5  # the "Author-email:" line
    bare = "Metadata-Version: 2.1\nName: saltpan\nAuthor-email: ada@example.org\n"
    assert _fields(bare) == set()  # an address without a display name names no one


def test_a_poms_developer_of_role_author_not_its_contributor_or_organisation() -> None:
    assert _fields(_POM) == {("kiln-log", "author", "Ada Holm")}
    assert metadata_fields(_POM.split("\n"))[0][0] == 11  # the author's <name>
    unroled = _POM.replace("Author", "tester")
    assert _fields(unroled) == set()


def test_a_gpx_files_metadata_author_not_its_copyright_holder_or_software() -> None:
    assert _fields(_GPX) == {
        ("Brede estuary loop", "creator", "Ada Holm"),
        ("Brede estuary loop", "author", "Ada Holm"),  # its <author> field, as any record's
        ("Salt marsh path", "creator", "Ada Holm"),
    }
    assert metadata_fields(_GPX.split("\n"))[0][0] == 6
    unsigned = _GPX.replace("<author>\n      <name>Ada Holm</name>\n    </author>", "")
    assert _fields(unsigned) == set()  # neither "Kell Ramblers" nor "Wayfarer 5"


def test_an_appstream_components_developer_of_its_untranslated_name() -> None:
    assert _fields(_METAINFO) == {("Kilnwatch", "developer", "Ada Holm")}
    legacy = _METAINFO.replace(
        '<developer id="org.example">\n    <name>Ada Holm</name>\n  </developer>',
        "<developer_name>Cai Rees</developer_name>",
    )
    assert _fields(legacy) == {("Kilnwatch", "developer", "Cai Rees")}
    broken = _METAINFO.replace("</component>", "")
    assert _fields(broken) == set()  # not well-formed XML: no reading


def test_who_wrote_a_wheel_and_who_made_a_gpx_route(embedder: MiniLMEmbedder) -> None:
    with SemanticStore(":memory:", embedder=embedder) as store:
        wrote = answer(f"# saltpan metadata\n\n{_WHEEL}", "Who wrote the saltpan package?", store)
    assert "Ada Holm" in wrote and "Tom Bell" not in wrote
    with SemanticStore(":memory:", embedder=embedder) as store:
        made = answer(f"# A walk\n\n{_GPX}", "Who made the Brede estuary loop route?", store)
    assert "Ada Holm" in made and "Kell Ramblers" not in made and "Wayfarer" not in made
