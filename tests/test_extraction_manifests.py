"""Who wrote a package, a module or a post, as its manifest or markup records it: a
``pyproject.toml``'s authors (its maintainers as maintainers), a JSDoc comment's ``@author`` of
its ``@module``, an Atom entry's ``<author>`` of its title (never its ``<contributor>``), a track
listing's writers in brackets, a README's authors of the initial work (not of the
documentation), a catalogue record's writer (not its illustrator), a programme's credit line
(who wrote the music, who wrote the book; not the director); asked who wrote it, the author is
the answer. A table set out with spaces is read by its columns."""

from __future__ import annotations

from pathlib import Path

from framework.memory import MiniLMEmbedder, SemanticStore
from tests.extracting import answer, triples
from tests.test_extraction_metadata import _fields

_PYPROJECT = (
    '# kiln-sync\n\n```toml\n[project]\nname = "kiln-sync"\nversion = "1.2.0"\n'
    'authors = [\n  {name = "Noor Halse", email = "noor@example.org"},\n]\n'
    'maintainers = [{ name = "Jo Pike", email = "jo@example.org" }]\n```\n'
)


def test_a_pyprojects_authors_and_maintainers_of_its_package() -> None:
    assert _fields(_PYPROJECT) == {
        ("kiln-sync package", "author", "Noor Halse"),
        ("kiln-sync package", "maintainer", "Jo Pike"),
    }
    poetry = '[tool.poetry]\nname = "tide"\nauthors = ["Rhian Moss <rhian@example.org>"]\n'
    assert _fields(poetry) == {("tide package", "author", "Rhian Moss")}
    assert not _fields('[project]\nauthors = [{name = "Noor Halse"}]\n')  # no name: of nothing


def test_a_jsdoc_author_of_its_module_and_an_atom_entrys_author_of_its_title() -> None:
    comment = (
        "```js\n/**\n * Draws the kiln clock.\n * @module kilnClock\n"
        " * @author Ines Carrow <ines@example.org>\n * @copyright Brede Council 2021\n */\n```\n"
    )
    assert _fields(comment) == {("kilnClock module", "author", "Ines Carrow")}
    feed = (
        "<feed>\n  <title>Brede history</title>\n  <entry>\n    <title>The salt road</title>\n"
        "    <author><name>Tom Bell</name></author>\n"
        "    <contributor><name>Ada Marsh</name></contributor>\n  </entry>\n</feed>\n"
    )
    assert _fields(feed) == {("The salt road", "author", "Tom Bell")}


def test_asked_who_wrote_the_package_its_author_answers(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with SemanticStore(tmp_path / "graph.sqlite", embedder=embedder) as store:
        said = answer(_PYPROJECT, "Who wrote the kiln-sync package?", store)
    findings = said.split("## Sources")[0]
    assert "Noor Halse" in findings and "Jo Pike" not in findings, said


def test_a_track_listings_writers_and_a_readmes_initial_authors() -> None:
    album = (
        "# Salt Road: album notes\n\nAll tracks performed by The Brede Band.\n\n"
        "1. Harbour Lights (Ada Marsh) – 3:41\n"
        "2. The Miller's Daughter (Tom Bell & Jo Pike) – 4:12\n"
    )
    assert _fields(album) == {
        ("Harbour Lights", "author", "Ada Marsh"),
        ("The Miller's Daughter", "author", "Tom Bell"),
        ("The Miller's Daughter", "author", "Jo Pike"),
    }
    readme = (
        "# kiln-sync\n\nKeeps two kilns in step.\n\n## Authors\n\n"
        "* **Noor Halse** - *Initial work* - [noorh](https://example.org/noorh)\n"
        "* **Ines Carrow** - *Documentation* - [inesc](https://example.org/inesc)\n"
    )
    assert _fields(readme) == {("kiln-sync", "author", "Noor Halse")}
    assert not _fields("# kiln-sync\n\n## Usage\n\n* **Noor Halse** - *Initial work*\n")


def test_a_table_set_out_with_spaces_is_read_by_its_columns() -> None:
    table = (
        "# Brede bandstands\n\n```\nBandstand        Year  Designer\n"
        "---------------  ----  ----------------\nNorth Green      1889  Ada Marsh\n"
        "Harbour Walk     1902  Tom Bell\n```\n"
    )
    found, _ = triples(table)
    assert ("Harbour Walk", "'s designer is", "Tom Bell", 7) in found
    assert ("North Green", "'s designer is", "Ada Marsh", 6) in found


def test_a_catalogue_records_writer_not_its_illustrator_or_editor() -> None:
    record = (
        "The salt road / written by Noor Halse ; illustrated by Tom Bell. -- Brede : "
        "Kiln Press, 1921. -- 96 p. : ill. ; 19 cm.\n"
    )
    assert _fields(record) == {("The salt road", "author", "Noor Halse")}
    assert not _fields("Salt pans / edited by Jo Pike. -- Brede : Kiln Press, 1930.\n")


def test_a_programmes_credit_line_names_who_wrote_the_music_and_the_words() -> None:
    programme = (
        "**The Salt Road**\n"
        "Book and lyrics by Noor Halse · Music by Tom Bell · Directed by Jo Pike\n"
    )
    assert _fields(programme) == {
        ("The Salt Road", "author", "Noor Halse"),
        ("music for The Salt Road", "author", "Tom Bell"),
    }
    assert not _fields("Book by Noor Halse · Music by Tom Bell\n")  # no title above it
