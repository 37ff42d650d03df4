"""Who has a role in a record of structured data, as a field keyed by the role gives it, read
one way whatever the syntax (``key=value``, ``key: value`` nested, JSON and Python entries, a
Ruby array, keyword arguments, a REPL's output, XML and HTML elements and attributes), of what
the record's title-like field names; a field of another role (maintainer, lyricist, publisher,
"Original Translation") as that role, never as the maker's, and only a whole name; what a
record's "contributions" list says its person did; people listed under a section title that
names their role; Texinfo's ``@author``."""

from __future__ import annotations

import pytest

from framework.memory import MiniLMEmbedder, SemanticStore
from teams.extraction.role_fields import role_fields
from tests.extracting import answer


def _roles(text: str) -> set[tuple[str, str, str]]:
    return {(thing, role, who) for _, thing, role, who in role_fields(text.split("\n"))}


def test_key_value_lines_with_and_without_spaces() -> None:
    props = "```\nname=Kilnwatch\nauthor=Ada Holm <ada@example.org>\nmaintainer=Tom Bell\n```"
    assert list(role_fields(props.split("\n"))) == [
        (3, "Kilnwatch", "author", "Ada Holm"),
        (4, "Kilnwatch", "maintainer", "Tom Bell"),
    ]
    ini = "```ini\n[metadata]\nname = brede-tides\nauthor = Cai Rees\npublisher = Kell Press\n```"
    assert _roles(ini) == {
        ("brede-tides", "author", "Cai Rees"),
        ("brede-tides", "publisher", "Kell Press"),
    }


def test_a_nested_yaml_contact_name_of_the_title_beside_it() -> None:
    spec = (
        "```yaml\nasyncapi: 3.0.0\ninfo:\n  title: Brede Ferry Events\n  contact:\n"
        "    name: Ines Carrow\n    url: https://example.org\n  license:\n    name: MIT\n"
        "servers:\n  main:\n    description: Run by Kell Hosting Ltd\n```"
    )
    assert list(role_fields(spec.split("\n"))) == [
        (6, "Brede Ferry Events", "contact", "Ines Carrow")
    ]


def test_yaml_list_items_are_records_of_their_own() -> None:
    plugins = (
        "```yaml\nplugins:\n  - name: salt-pan\n    author: Noor Halse\n"
        "  - name: kiln-log\n    author: Oli Pry\n    maintainer: Jo Pike\n```"
    )
    assert _roles(plugins) == {
        ("salt-pan", "author", "Noor Halse"),
        ("kiln-log", "author", "Oli Pry"),
        ("kiln-log", "maintainer", "Jo Pike"),
    }


def test_json_and_python_entries_a_ruby_array_and_keyword_arguments() -> None:
    manifest = (
        '```json\n{\n  "name": "harbour-lights",\n  "author": "Mira Lusk",\n'
        '  "publisher": "Kell Software"\n}\n```'
    )
    assert _roles(manifest) == {
        ("harbour-lights", "author", "Mira Lusk"),
        ("harbour-lights", "publisher", "Kell Software"),
    }
    gem = (
        '```ruby\nGem::Specification.new do |s|\n  s.name = "quaylog"\n'
        '  s.authors = ["Ada Holm", "Cai Rees"]\n  # packaged by Tom Bell\nend\n```'
    )
    assert _roles(gem) == {("quaylog", "author", "Ada Holm"), ("quaylog", "author", "Cai Rees")}
    setup = '```python\nsetup(name="tidy-nets", author="Jo Pike", maintainer="Oli Pry")\n```'
    assert _roles(setup) == {
        ("tidy-nets", "author", "Jo Pike"),
        ("tidy-nets", "maintainer", "Oli Pry"),
    }


def test_a_repl_output_under_its_prompt_of_the_heading_over_the_block() -> None:
    session = (
        "# brinekit: read in the REPL\n\n```\n>>> dist = distribution('brinekit')\n"
        ">>> dist.metadata['Author']\n'Ada Holm'\n>>> dist.metadata['Maintainer']\n'Tom Bell'\n```"
    )
    assert list(role_fields(session.split("\n"))) == [
        (6, "brinekit", "author", "Ada Holm"),
        (8, "brinekit", "maintainer", "Tom Bell"),
    ]


def test_xml_elements_by_name_and_by_type_attribute() -> None:
    score = (
        "```xml\n<score-timewise>\n  <work><work-title>Salt Road Reel</work-title></work>\n"
        '  <identification>\n    <creator type="composer">Noor Halse</creator>\n'
        '    <creator type="lyricist">Jo Bell</creator>\n'
        "    <encoding><encoder>Tom Wren</encoder></encoding>\n  </identification>\n"
        "</score-timewise>\n```"
    )
    assert list(role_fields(score.split("\n"))) == [
        (5, "Salt Road Reel", "composer", "Noor Halse"),
        (6, "Salt Road Reel", "lyricist", "Jo Bell"),
        (7, "Salt Road Reel", "encoder", "Tom Wren"),
    ]
    feed = (
        "```xml\n<opml>\n  <head>\n    <title>Kell quay diaries</title>\n"
        "    <ownerName>Ada Holm</ownerName>\n  </head>\n  <body>\n"
        '    <outline text="Cai Rees on the tides"/>\n  </body>\n</opml>\n```'
    )
    assert _roles(feed) == {("Kell quay diaries", "compiler", "Ada Holm")}


def test_html_meta_osm_tags_and_microdata() -> None:
    page = (
        '```html\n<head>\n  <title>Brede salt pans</title>\n  <meta charset="utf-8">\n'
        '  <meta name="author" content="Ines Carrow">\n'
        '  <meta name="generator" content="Pagewright 2">\n</head>\n```'
    )
    assert _roles(page) == {("Brede salt pans", "author", "Ines Carrow")}
    way = (
        '```xml\n<way id="7" user="kell_mapper">\n  <tag k="name" v="Kell Lighthouse"/>\n'
        '  <tag k="architect" v="Oli Pry"/>\n  <tag k="operator" v="Brede Trust"/>\n</way>\n```'
    )
    assert _roles(way) == {("Kell Lighthouse", "architect", "Oli Pry")}  # a "name" that may
    # be a person's gives no other role of what it names
    card = (
        '```html\n<div itemscope itemtype="https://schema.org/Book">\n'
        '  <h2 itemprop="name">Tides of Kell</h2>\n'
        '  <span itemprop="illustrator" itemscope><span itemprop="name">Jo Bell</span></span>\n'
        '  <span itemprop="author" itemscope>\n    <span itemprop="name">Mira Lusk</span>\n'
        "  </span>\n</div>\n```"
    )
    assert list(role_fields(card.split("\n"))) == [
        (4, "Tides of Kell", "illustrator", "Jo Bell"),
        (6, "Tides of Kell", "author", "Mira Lusk"),
    ]


def test_no_creator_of_another_role_nor_the_software_beside_a_producer() -> None:
    opf = (
        "```xml\n<metadata>\n  <dc:title>Kell Tides</dc:title>\n"
        '  <dc:creator opf:role="ill">Jo Bell</dc:creator>\n</metadata>\n```'
    )
    assert _roles(opf) == set()  # an illustrator, by its namespaced role attribute
    info = "```\nTitle:    Brede survey\nCreator:  Quillwright 9\nProducer: Quillwright 9\n```"
    assert _roles(info) == set()
    odf = (
        "```xml\n<office:meta>\n  <dc:title>Kell dues</dc:title>\n"
        "  <meta:initial-creator>Ada Holm</meta:initial-creator>\n"
        "  <dc:creator>Tom Bell</dc:creator>\n</office:meta>\n```"
    )
    assert ("Kell dues", "author", "Ada Holm") in _roles(odf)  # the first; the last edited it
    assert not any(who == "Tom Bell" for _, _, who in _roles(odf))


def test_no_role_without_a_single_title_nor_one_that_names_no_one() -> None:
    two = "```\nname: salt-pan\nname: kiln-log\nauthor: Ada Holm\n```"
    assert _roles(two) == set()  # which of the two?
    code = "```python\nname = 'kiln'\nauthor = get_author()\nwriter = user_handle\n```"
    assert _roles(code) == set()
    prose = "name: Kell\nauthor: Ada Holm\n"  # outside a fenced block: another reader's
    assert _roles(prose) == set()


_SCORE = (
    "# Salt Road Reel: its MusicXML\n\n```xml\n<score-partwise>\n  <work>\n"
    "    <work-title>Salt Road Reel</work-title>\n  </work>\n  <identification>\n"
    '    <creator type="composer">Noor Halse</creator>\n'
    '    <creator type="lyricist">Jo Bell</creator>\n  </identification>\n'
    "</score-partwise>\n```\n"
)
_OPML = (
    "# Kell quay diaries\n\n```xml\n<opml>\n  <head>\n    <title>Kell quay diaries</title>\n"
    "    <ownerName>Ada Holm</ownerName>\n  </head>\n  <body>\n"
    '    <outline text="Cai Rees on the tides"/>\n  </body>\n</opml>\n```\n'
)
_SPEC = (
    "# Brede Ferry Events\n\n```yaml\ninfo:\n  title: Brede Ferry Events\n  contact:\n"
    "    name: Ines Carrow\nservers:\n  main:\n"
    "    description: Hosted by Kell Hosting Ltd\n```\n"
)


@pytest.mark.parametrize(
    ("text", "question", "right", "wrong"),
    [
        (_SCORE, "Who composed the music of the Salt Road Reel?", "Noor Halse", "Jo Bell"),
        (_OPML, "Who put together the list of Kell quay diaries?", "Ada Holm", "Cai Rees"),
        (
            _SPEC,
            "Who is the contact person for the Brede Ferry Events API?",
            "Ines Carrow",
            "Kell Hosting",
        ),
    ],
)
def test_who_composed_put_together_and_is_the_contact(
    text: str, question: str, right: str, wrong: str, embedder: MiniLMEmbedder
) -> None:
    with SemanticStore(":memory:", embedder=embedder) as store:
        said = answer(text, question, store)
    assert right in said and wrong not in said


def test_a_field_of_another_role_gives_that_role_to_a_whole_name_only() -> None:
    script = (
        "# The Drowned Quay: drowned-quay.fr.ass\n\n```\n[Script Info]\n"
        "Title: The Drowned Quay\nOriginal Script: Lamorna Pentreath\n"
        "Original Translation: Gwinear Tonkin\nScriptType: v4.00+\n```"
    )
    assert _roles(script) == {
        ("The Drowned Quay", "original script", "Lamorna Pentreath"),
        ("The Drowned Quay", "original translation", "Gwinear Tonkin"),
    }
    assert not _roles("```\nname: brede\nlicense: Apache License\nreviewer: jo-pike\n```")
    assert not _roles("```\nname: brede\nM: Jo Pike\n```")  # a one-letter code


def test_what_a_contributions_list_says_its_person_did() -> None:
    rc = (
        '# tidecheck: .all-contributorsrc\n\n```json\n{\n  "contributors": [\n'
        '    {"login": "ada-h", "name": "Ada Holm", "contributions": ["code", "design"]},\n'
        '    {\n      "login": "jo-p",\n      "name": "Jo Pike",\n'
        '      "contributions": ["doc"]\n    }\n  ]\n}\n```'
    )
    assert {found for found in _roles(rc) if found[1] != "contributor"} == {
        ("tidecheck", "code", "Ada Holm"),
        ("tidecheck", "design", "Ada Holm"),
        ("tidecheck", "doc", "Jo Pike"),
    }


def test_people_under_a_section_title_naming_their_role_and_a_texinfo_author() -> None:
    credits = (
        "# tidecheck: AUTHORS.rst\n\n```rst\nDevelopment Lead\n----------------\n\n"
        "* Hedra Colenso <hedra@example.org>\n\nContributors\n------------\n\n"
        "* Tristan Keast <tristan@example.org>\n* not a name\n```"
    )
    assert list(role_fields(credits.split("\n"))) == [
        (7, "tidecheck", "development lead", "Hedra Colenso"),
        (12, "tidecheck", "contributor", "Tristan Keast"),
    ]
    texinfo = "```\n@title The kiln Manual\n@author Elestren Vosper\n@page\n```"
    assert _roles(texinfo) == {("The kiln Manual", "author", "Elestren Vosper")}


def test_names_given_in_parts_and_names_with_particles() -> None:
    csl = (
        '```json\n[\n  {\n    "title": "Tide Mills",\n'
        '    "author": [{"family": "MacLeod", "given": "Una"}],\n'
        '    "translator": [{"family": "Mac an t-Saoir", "given": "Peigi"}]\n  }\n]\n```'
    )
    assert _roles(csl) == {
        ("Tide Mills", "author", "Una MacLeod"),
        ("Tide Mills", "translator", "Peigi Mac an t-Saoir"),
    }
    nested = "```yaml\ntitle: Kell Tides\neditor:\n  given: Jo\n  family: van der Berg\n```"
    assert _roles(nested) == {("Kell Tides", "editor", "Jo van der Berg")}


def test_a_value_continued_on_the_next_line_and_a_person_record_under_a_role() -> None:
    meta = (
        "```md\nTitle:    Reading the tide tables\nAuthors:  Morwenna Keast\n"
        "          Jory Pascoe\nReviewer: Ysella Bolitho\n```"
    )
    assert _roles(meta) == {
        ("Reading the tide tables", "author", "Morwenna Keast"),
        ("Reading the tide tables", "author", "Jory Pascoe"),
        ("Reading the tide tables", "reviewer", "Ysella Bolitho"),
    }
    doap = (
        "```xml\n<Project>\n  <name>quillmark</name>\n  <documenter>\n    <foaf:Person>\n"
        "      <foaf:name>Senara Polglase</foaf:name>\n    </foaf:Person>\n  </documenter>\n"
        "  <developer>\n    <foaf:Organization>\n      <foaf:name>Kell Software Guild</foaf:name>\n"
        "    </foaf:Organization>\n  </developer>\n</Project>\n```"
    )
    assert _roles(doap) == {("quillmark", "documenter", "Senara Polglase")}


def test_a_datacite_creator_name_and_a_wiki_citation_template() -> None:
    datacite = (
        "```xml\n<resource>\n  <creators>\n    <creator>\n"
        '      <creatorName nameType="Personal">Howells, Branwen</creatorName>\n'
        "    </creator>\n  </creators>\n  <titles>\n    <title>Teifi gauge readings</title>\n"
        "  </titles>\n</resource>\n```"
    )
    assert ("Teifi gauge readings", "creator", "Branwen Howells") in _roles(datacite)
    cited = (
        "```\n<ref>{{cite book |last=Bevan |first=Catrin |translator-last=Madoc "
        "|translator-first=Iestyn |title=Tide Mills |year=2017}}</ref>\n```"
    )
    assert _roles(cited) == {
        ("Tide Mills", "author", "Catrin Bevan"),
        ("Tide Mills", "translator", "Iestyn Madoc"),
    }
