"""Who made a thing, as the header or listing of a format names them: a photograph's Exif "Artist"
beside its "Make" and "Model" (of the heading above when it has no title), a Vim runtime file's
"Original Author", a Sphinx ``conf.py``'s ``author`` of its project's documentation, a jar's
``MANIFEST.MF`` "Built-By", an SVG drawing's RDF ``dc:creator`` agent, the issuer of a
certificate as ``openssl x509 -text`` prints it and a ``humans.txt`` team; never a copyright
holder, a present maintainer, a build tool, a vendor, a publisher, a certificate's holder or
one thanked."""

from __future__ import annotations

from framework.memory import MiniLMEmbedder, SemanticStore
from tests.extracting import answer
from tests.test_extraction_metadata import _fields

_VIM = (
    '```vim\n" Vim syntax file\n" Language:         Kiln firing logs\n'
    '" Maintainer:       Tom Bell <tom@example.org>\n'
    '" Original Author:  Ada Holm <ada@example.org>\n" Last Change:      2021 Mar 2\n\n'
    'if exists("b:current_syntax")\n  finish\nendif\n```\n'
)
_CERTIFICATE = (
    "```\n$ openssl x509 -in kell.pem -noout -text\nCertificate:\n    Data:\n"
    "        Issuer: C = GB, O = Brede Trust Services, CN = Brede TLS CA 1\n"
    "        Validity\n            Not Before: Mar  1 00:00:00 2024 GMT\n"
    "        Subject: C = GB, O = Kell Rowing Club, CN = www.kell.example\n```\n"
)


def test_a_photographs_exif_artist_without_a_title_is_of_the_heading_above() -> None:
    exif = (
        "# Photograph details: Brede quay at dusk\n\n```\n$ exiftool -Artist -Make dusk.jpg\n"
        "Artist                          : Ada Holm\n"
        "Copyright                       : Kell Picture Agency\n"
        "Make                            : Lanyon\nModel                           : LX-7\n```\n"
    )
    assert _fields(exif) == {
        ("Photograph details: Brede quay at dusk", "photographer", "Ada Holm"),
        ("Photograph details", "artist", "Ada Holm"),
        ("Photograph details", "copyright", "Kell Picture Agency"),
    }
    song = "# Salt Road\n\nArtist: The Brede Singers\nCopyright: Kell Records\n"  # no camera
    assert _fields(song) == set()


def test_a_vim_files_original_author_not_its_maintainer() -> None:
    assert _fields(_VIM) == {("Vim syntax file for Kiln firing logs", "author", "Ada Holm")}
    kept = '" Vim indent file\n" Language: Kiln firing logs\n" Maintainer: Tom Bell\n'
    assert _fields(kept) == set()


def test_a_sphinx_confs_author_not_its_copyright_holder() -> None:
    conf = (
        '```python\nproject = "Kilnlog"\ncopyright = "2024, Brede Systems Ltd"\n'
        'author = "Ada Holm"\nrelease = "1.3"\n```\n'
    )
    assert _fields(conf) == {("Kilnlog documentation", "author", "Ada Holm")}
    held = '```python\nproject = "Kilnlog"\ncopyright = "2024, Brede Systems Ltd"\n```\n'
    assert _fields(held) == set()


def test_a_jar_manifests_built_by_not_its_tool_or_vendor() -> None:
    manifest = (
        "```\nManifest-Version: 1.0\nCreated-By: Apache Maven 3.9.6\nBuilt-By: Ada Holm\n"
        "Implementation-Title: kilnwatch\nImplementation-Version: 1.4\n"
        "Implementation-Vendor: Brede Systems\n```\n"
    )
    assert _fields(manifest) == {
        ("kilnwatch 1.4 jar", "builder", "Ada Holm"),
        ("kilnwatch", "implementation vendor", "Brede Systems"),
    }
    unbuilt = manifest.replace("Built-By: Ada Holm\n", "")
    assert _fields(unbuilt) == {("kilnwatch", "implementation vendor", "Brede Systems")}


def test_an_svg_drawings_creator_agent_not_its_publisher() -> None:
    svg = (
        "```xml\n<rdf:RDF>\n  <cc:Work>\n    <dc:title>Map of the Brede shoals</dc:title>\n"
        "    <dc:creator>\n      <cc:Agent>\n        <dc:title>Ada Holm</dc:title>\n"
        "      </cc:Agent>\n    </dc:creator>\n    <dc:publisher>\n      <cc:Agent>\n"
        "        <dc:title>Kell Heritage Trust</dc:title>\n      </cc:Agent>\n"
        "    </dc:publisher>\n  </cc:Work>\n</rdf:RDF>\n```\n"
    )
    assert _fields(svg) == {("Map of the Brede shoals", "creator", "Ada Holm")}
    published = svg.replace("dc:creator", "dc:contributor")
    assert _fields(published) == set()


def test_a_certificates_issuer_not_its_subject() -> None:
    assert _fields(_CERTIFICATE) == {
        ("certificate for www.kell.example", "issuer", "Brede Trust Services")
    }
    mail = "From: Ada Holm\nIssuer: the rowing club\nSubject: CN = www.kell.example\n"
    assert _fields(mail) == set()


def test_a_humans_txt_team_not_those_thanked() -> None:
    humans = (
        "# kell-rowing.example/humans.txt\n\n```\n/* TEAM */\nWeb designer: Ada Holm\n"
        "Developer: Cai Rees\nLocation: Brede\n\n/* THANKS */\nName: Tom Bell (photographs)\n```\n"
    )
    assert _fields(humans) == {
        ("Kell Rowing website", "designer", "Ada Holm"),
        ("Kell Rowing website", "developer", "Cai Rees"),
        ("Kell Rowing website", "builder", "Cai Rees"),
        ("kell-rowing.example/humans.txt", "web designer", "Ada Holm"),
        ("kell-rowing.example/humans.txt", "developer", "Cai Rees"),
    }  # not of "Name: Tom Bell (photographs)", a person thanked
    thanks = "```\n/* THANKS */\nDeveloper: Tom Bell\nSite: https://kell-rowing.example\n```\n"
    assert _fields(thanks) == set()


def test_who_originally_wrote_a_vim_file_and_who_issued_a_certificate(
    embedder: MiniLMEmbedder,
) -> None:
    with SemanticStore(":memory:", embedder=embedder) as store:
        vim = answer(
            f"# kiln.vim\n\n{_VIM}",
            "Who originally wrote the Vim syntax file for Kiln logs?",
            store,
        )
    assert "Ada Holm" in vim and "Tom Bell" not in vim
    with SemanticStore(":memory:", embedder=embedder) as store:
        issued = answer(
            f"# www.kell.example\n\n{_CERTIFICATE}",
            "Which authority issued the certificate for www.kell.example?",
            store,
        )
    assert "Brede Trust Services" in issued and "Kell Rowing Club" not in issued
