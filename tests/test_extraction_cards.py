"""Who made a thing, as a card, a manifest or a list of statements sets it out: a vCard's holder
by its title (a founder, not a treasurer), a ``CREDITS`` file's deed by its entry's name, a man
page's ``AUTHORS`` (not its bug contact), a release's credits one role to a line (its writer,
not its engineer), an item's statements as Wikidata lists them (its founder, not its
chairperson), a ``package.json``'s author (not its contributors), and a package's metadata as
``pip show`` prints it (its author, not its maintainer); asked who made it, the maker answers."""

from __future__ import annotations

from pathlib import Path

from framework.memory import MiniLMEmbedder, SemanticStore
from teams.extraction.cards import rfc_authors
from teams.extraction.credits import also_by
from tests.extracting import answer, triples
from tests.test_extraction_metadata import _fields

_CARDS = (
    "# Kell Gig Club: contacts\n\n```\nBEGIN:VCARD\nVERSION:4.0\nFN:Ada Holm\n"
    "ORG:Kell Gig Club\nTITLE:Founder\nEND:VCARD\nBEGIN:VCARD\nVERSION:4.0\nFN:Cai Rees\n"
    "ORG:Kell Gig Club\nTITLE:Treasurer\nEND:VCARD\n```\n"
)


def test_a_vcards_holder_by_the_title_that_names_a_maker() -> None:
    assert _fields(_CARDS) == {("Kell Gig Club", "founder", "Ada Holm")}
    escaped = "BEGIN:VCARD\nFN:Noor Halse\nTITLE:Co-founder\\, Brede Choir\nEND:VCARD\n"
    assert _fields(escaped) == {("Brede Choir", "founder", "Noor Halse")}


def test_a_credits_files_deed_and_a_man_pages_authors() -> None:
    credits = (
        "N: Jo Pike\nE: jo@example.org\nD: Wrote the kiln docs\n\n"
        "N: Ines Carrow\nD: Designed the glaze mixer\nS: Brede\n"
    )
    assert _fields(credits) == {
        ("kiln docs", "author", "Jo Pike"),
        ("glaze mixer", "designer", "Ines Carrow"),
    }
    page = (
        '.TH KILNSYNC 1 "May 2021"\n.SH NAME\nkilnsync \\- copy kiln logs\n.SH AUTHORS\n'
        "Written by Rhian Moss.\n.SH REPORTING BUGS\nReport bugs to Tom Bell <t@example.org>.\n"
    )
    assert _fields(page) == {("kilnsync", "author", "Rhian Moss")}


def test_a_releases_credits_and_an_items_statements() -> None:
    credits = (
        '# Brede Band – Salt Road (7", 1981)\n\n## Credits\n\n- Engineer – Tom Bell\n'
        "- Producer – Jo Pike\n- Written-By – Noor Halse\n"
    )
    assert _fields(credits) == {("Salt Road", "author", "Noor Halse")}
    item = (
        "# Brede Choir (Q12345)\n\n- **inception (P571)**\n  - 1897\n"
        "- **founded by (P112)**\n  - Ada Holm\n- **chairperson (P488)**\n  - Cai Rees\n"
    )
    assert _fields(item) == {("Brede Choir", "founder", "Ada Holm")}


def test_a_package_jsons_author_and_a_packages_metadata() -> None:
    manifest = (
        '# kiln-clock\n\n```json\n{\n  "name": "kiln-clock",\n'
        '  "author": "Ines Carrow <ines@example.org> (https://example.org/ines)",\n'
        '  "contributors": ["Tom Bell <tom@example.org>"]\n}\n```\n'
    )
    assert _fields(manifest) == {
        ("kiln-clock package", "author", "Ines Carrow"),
        ("kiln-clock", "contributor", "Tom Bell"),  # a role of its own, not the author
    }
    shown = (
        "```\n$ pip show kilnlog\nName: kilnlog\nVersion: 2.4.1\nAuthor: Rhian Moss\n"
        "Author-email: rhian@example.org\nMaintainer: Jo Pike\n```\n"
    )
    assert _fields(shown) == {
        ("kilnlog", "author", "Rhian Moss"),
        ("kilnlog", "maintainer", "Jo Pike"),
    }


def test_asked_who_founded_the_club_the_card_of_its_founder_answers(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with SemanticStore(tmp_path / "graph.sqlite", embedder=embedder) as store:
        said = answer(_CARDS, "Who founded the Kell Gig Club?", store)
    findings = said.split("## Sources")[0]
    assert "Ada Holm" in findings and "Cai Rees" not in findings, said


def test_an_rfcs_front_page_gives_its_authors_of_its_centred_title() -> None:
    page = (
        "Network Working Group                                         E. Varga\n"
        "Internet-Draft                                               Tarn Labs\n"
        "Intended status: Informational                    J. R. Holm, Ed.\n"
        "\n"
        "\n"
        "                         The Tarn Line Protocol\n"
        "\n"
        "Abstract\n"
    ).split("\n")
    assert list(rfc_authors(page)) == [
        (1, "The Tarn Line Protocol", "author", "E. Varga"),
        (3, "The Tarn Line Protocol", "author", "J. R. Holm"),
    ]
    assert list(rfc_authors(["Network Working Group      E. Varga", "", "Abstract"])) == []
    found, _ = triples(f"# Draft\n\n```\n{chr(10).join(page)}```\n")
    assert ("Tarn Line Protocol", "E Varga") in {(s, o) for s, _, o, _ in found}, found


def test_a_ris_records_author_and_a_hymns_words_credit_under_its_bold_title() -> None:
    ris = (
        "# Reading\n\n```\nTY  - BOOK\nAU  - Holm, Ada\nED  - Rees, Cai\nTI  - Salt Pans\n"
        "ER  - \n```\n"
    )
    found, _ = triples(ris)
    said = {(s, o) for s, _, o, _ in found}
    assert ("Salt Pans", "Ada Holm") in said and not any("Rees" in o for _, o in said), said
    hymn = "# Hymnal\n\n**Lord of the quay**\n\nWords: Ann Roe (1871)\nMusic: KELL, Jo Tamm\n"
    found, _ = triples(hymn)
    assert ("Lord of the quay", "Ann Roe") in {(s, o) for s, _, o, _ in found}, found


def test_an_also_by_page_gives_its_writer_of_each_title_in_italics() -> None:
    page = "## Facing the title page\n\nALSO BY ANN ROE\n\n*Salt and Granite*  \n*Kell Light*\n"
    assert list(also_by(page.split("\n"))) == [
        (5, "Salt and Granite", "author", "Ann Roe"),
        (6, "Kell Light", "author", "Ann Roe"),
    ]
