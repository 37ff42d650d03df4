"""Who made a thing, as the marks on the work and the credits around it say it, with no verb:
a print's lettering (the engraver's "sculp." made it; the draughtsman's "delin." and the
publisher did not), a needlework's "her work" inscription (not the school's mistress), a
poster's billing block in capitals (the screenwriter wrote the screenplay; the novelist,
producer and director did not), a chart's footer (its maker, not its source), a stamp
catalogue's "Des" line (not its engraver) and an answer's "answered" card (its "I", past a code
block; not the "edited" card's name)."""

from __future__ import annotations

from framework.memory import MiniLMEmbedder, SemanticStore
from tests.extracting import answer, triples
from tests.test_extraction_metadata import _fields

_PRINT = (
    "# Prints and drawings: accession 1950.12\n\n"
    "**Brede mill at dawn**, line engraving on paper, 1831.\n\n"
    'Lettered below the image: "Ada Holm delin. · C. Rees sculp." and "Published by J. Pike, '
    'Brede, 2 June 1831."\n'
)


def test_a_prints_lettering_names_its_engraver_as_its_maker() -> None:
    assert _fields(_PRINT) == {
        ("Brede mill at dawn", "draughtsman", "Ada Holm"),
        ("Brede mill at dawn", "maker", "C. Rees"),
    }
    assert _fields('# Notes\n\nHe said "Ada Holm del. it" to me.\n') == set()  # no title


def test_the_engraver_is_who_made_the_print(embedder: MiniLMEmbedder) -> None:
    with SemanticStore(":memory:", embedder=embedder) as store:
        found = answer(_PRINT, "Who made the engraving Brede mill at dawn?", store)
    assert "Rees" in found
    assert "Holm" not in found and "Pike" not in found


def test_a_needlework_inscription_names_its_maker_not_the_schools_mistress() -> None:
    sampler = (
        "# Brede museum: a sampler\n\n"
        "This wool sampler was stitched at the dame school kept by Mrs Ines Carrow. Its last "
        "row reads:\n\n> Rhian Moss her work aged 9 1790\n"
    )
    assert _fields(sampler) == {("wool sampler", "maker", "Rhian Moss")}


def test_a_billing_block_credits_the_screenplay_to_its_writer_only() -> None:
    poster = (
        "# Brede Marsh: poster\n\n```\nKILN PICTURES presents\n"
        'NOOR HALSE   TOM BELL   "BREDE MARSH"\n'
        "based on the novel by INES CARROW screenplay by OLI PRY\n"
        "produced by JO PIKE directed by CAI REES\n```\n"
    )
    assert _fields(poster) == {("screenplay for Brede Marsh", "author", "Oli Pry")}


def test_a_charts_footer_names_its_maker_not_its_source() -> None:
    page = (
        "# Eels caught in the Brede, 2010-2020\n\n![Line chart of eels caught](eels.png)\n\n"
        "Chart: Rhian Moss • Source: Brede River Trust • Get the data\n"
    )
    assert _fields(page) == {("chart of Eels caught in the Brede", "maker", "Rhian Moss")}
    assert _fields("# Eels\n\nChart: Rhian Moss\n") == set()  # a label alone is no footer


def test_a_stamp_catalogues_des_line_names_the_issues_designer_only() -> None:
    entry = (
        "# Brede: the 1951 definitives\n\n1951 (2 May). *Marsh Birds*. Recess Pike & Co. P 13.\n\n"
        "(Des Ines Carrow. Eng Tom Bell)\n\n| No. | Value |\n|---|---|\n| 7 | 2d. |\n"
    )
    assert _fields(entry) == {("Marsh Birds", "designer", "Ines Carrow")}
    assert _fields("*Marsh Birds*\n\n(Eng Tom Bell)\n") == set()


def test_an_answers_i_is_the_writer_its_answered_card_names_past_a_code_block() -> None:
    page = (
        "# How do I read kiln logs?\n\n**Answer**\n\nI wrote the `kilnread` package in 2019.\n\n"
        "```\npip install kilnread\n```\n\nedited Mar 3, 2021 at 10:12\nJo Pike\n\n"
        "answered Jun 11, 2019 at 8:40\nAda Holm\n"
    )
    found = {(s, p, o) for s, p, o, _ in triples(page)[0]}
    assert ("Ada Holm", "wrote", "kilnread package") in found
    assert not any("Jo Pike" in (s, o) for s, _, o in found)
