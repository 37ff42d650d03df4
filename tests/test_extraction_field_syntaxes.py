"""Who made a thing, as a record's fields name them in the syntax of its format: a photograph's
Exif "Artist" beside its camera (the photographer), a ``Cargo.toml``'s ``authors``, an XML element
(an Office file's ``dc:creator``, a podcast feed's ``itunes:author``), a field in a comment
block (a WordPress plugin's " * Author:"), a record titled by a field naming its kind ("Plugin
Name", ``role_name``), a Perl module's POD ``AUTHOR`` paragraph; never a copyright holder,
a camera's maker, a last editor, a company, a feed's owner or a package's maintainer. A question
asking who "makes" a thing is answered by its author, and one asking who "took" a photograph
by its photographer; a clause after a semicolon with a pronoun subject ("...; I wrote it") is
read as a sentence of its own."""

from __future__ import annotations

from framework.memory import MiniLMEmbedder, SemanticStore
from teams.extraction.clauses import clauses_apart
from teams.language.senses import deed_wording
from tests.extracting import answer
from tests.test_extraction_metadata import _fields

_EXIF = (
    "```\n$ exiftool dawn.jpg\nFile Name                       : dawn.jpg\n"
    "Make                            : Lanyon Optics\n"
    "Camera Model Name               : LX-7\n"
    "Title                           : Brede harbour at dawn\n"
    "Artist                          : Ada Holm\n"
    "Copyright                       : Kell Picture Agency\n```\n"
)
_FEED = (
    '```xml\n<rss version="2.0">\n  <channel>\n    <title>Tales of Brede</title>\n'
    "    <itunes:author>Noor Halse</itunes:author>\n    <itunes:owner>\n"
    "      <itunes:name>Kell Sound Network</itunes:name>\n    </itunes:owner>\n"
    "  </channel>\n</rss>\n```\n"
)


def test_a_photographs_exif_artist_beside_its_camera_took_it() -> None:
    assert _fields(_EXIF) == {
        ("Brede harbour at dawn", "photographer", "Ada Holm"),
        ("Brede harbour at dawn", "artist", "Ada Holm"),
        ("Brede harbour at dawn", "copyright", "Kell Picture Agency"),
    }  # not the camera's "Make" as who made it
    song = "Title: Salt Road\nArtist: The Brede Singers\n"  # no camera: a performer
    assert _fields(song) == set()


def test_a_toml_array_an_xml_element_and_a_comment_blocks_field() -> None:
    cargo = (
        '[package]\nname = "kilnwatch"\nauthors = ["Cai Rees <cai@example.org>", "Jo Pike"]\n\n'
        '[package.metadata.deb]\nmaintainer = "Tom Bell <tom@example.org>"\n'
    )
    assert _fields(cargo) == {
        ("kilnwatch crate", "author", "Cai Rees"),
        ("kilnwatch crate", "author", "Jo Pike"),
    }
    core = (
        "<cp:coreProperties>\n  <dc:title>Brede Quay Survey</dc:title>\n"
        "  <dc:creator>Ines Carrow</dc:creator>\n"
        "  <cp:lastModifiedBy>Tom Bell</cp:lastModifiedBy>\n</cp:coreProperties>\n"
    )
    assert _fields(core) == {
        ("Brede Quay Survey", "creator", "Ines Carrow"),
        ("Brede Quay Survey", "author", "Ines Carrow"),
    }
    assert _fields(_FEED) == {
        ("Tales of Brede", "author", "Noor Halse"),
        ("Tales of Brede", "owner", "Kell Sound Network"),  # owns it; made nothing
    }
    plugin = (
        "<?php\n/**\n * Plugin Name: Tide Clock\n * Version: 1.3.0\n * Author: Ada Holm\n"
        " * Author URI: https://example.org/ada\n */\n"
    )
    assert _fields(plugin) == {("Tide Clock", "author", "Ada Holm")}
    role = "galaxy_info:\n  role_name: kiln_agent\n  author: Jo Pike\n  company: Brede Systems\n"
    assert _fields(role) == {("kiln_agent", "author", "Jo Pike")}


def test_a_perl_modules_pod_author_not_its_copyright_holder() -> None:
    pod = (
        "=head1 NAME\n\nKiln::Log - read kiln logs\n\n=head1 AUTHOR\n\n"
        "Ada Holm E<lt>ada@example.orgE<gt>\n\n=head1 COPYRIGHT AND LICENSE\n\n"
        "This software is copyright (c) 2019 by Brede Kiln Trust.\n\n=cut\n"
    )
    assert _fields(pod) == {("Kiln::Log", "author", "Ada Holm")}


def test_who_makes_a_podcast_and_who_took_a_photograph(embedder: MiniLMEmbedder) -> None:
    assert deed_wording("Who took the photograph of the quay?").startswith("Who photographed")
    assert deed_wording("Who took over the firm?") == "Who took over the firm?"
    with SemanticStore(":memory:", embedder=embedder) as store:
        podcast = answer(
            f"# Tales of Brede: feed\n\n{_FEED}", "Who makes the podcast Tales of Brede?", store
        )
    assert "Noor Halse" in podcast and "Kell Sound" not in podcast
    with SemanticStore(":memory:", embedder=embedder) as store:
        photo = answer(
            f"# dawn.jpg\n\n{_EXIF}", 'Who took the photograph "Brede harbour at dawn"?', store
        )
    assert "Ada Holm" in photo and "Kell Picture" not in photo and "Lanyon" not in photo


def test_a_clause_after_a_semicolon_with_a_pronoun_subject_is_a_sentence(
    embedder: MiniLMEmbedder,
) -> None:
    assert clauses_apart("The kilnlog package does exactly this; I wrote it in 2019.") == [
        "The kilnlog package does exactly this",
        "I wrote it in 2019.",
    ]
    assert clauses_apart("It opened in 1890; the hall seats 300.") == [
        "It opened in 1890; the hall seats 300."
    ]
    page = (
        "# How do I read kiln logs?\n\nThe `kilnlog` package does exactly this; I wrote it in "
        "2019 for my own surveys.\n\nanswered Jun 11, 2019 at 8:40\nAda Holm\n"
    )
    with SemanticStore(":memory:", embedder=embedder) as store:
        found = answer(page, "Who wrote the kilnlog package?", store)
    assert "Ada Holm wrote" in found
