"""Records in fenced XML and INI blocks read as table rows, a GitHub alert's text read without
its marker, and a thing of the same kind ("Lynn footbridge" beside "Lynn packhorse bridge")
never given as the answer about another."""

from __future__ import annotations

from framework.memory import SemanticStore, prose_sentences
from teams.extraction.data_blocks import ini_records, xml_records
from teams.extraction.documents import document_of
from tests.extracting import answer

_XML = (
    "# Weirs of the Tamm\n\n```xml\n<weirs>\n"
    '  <weir name="Tamm upper weir" builder="Ada Rook" year="1802"/>\n'
    "  <weir>\n    <name>Tamm mill weir</name>\n    <builder>Hugh Senn</builder>\n  </weir>\n"
    "</weirs>\n```\n"
)


def test_an_xml_block_gives_a_row_per_element_of_attributes_or_of_leaf_children() -> None:
    rows = document_of("weirs.md", _XML).rows
    assert [(row.line, row.header, row.cells) for row in rows] == [
        (5, ("name", "builder", "year"), ("Tamm upper weir", "Ada Rook", "1802")),
        (7, ("name", "builder"), ("Tamm mill weir", "Hugh Senn")),
    ]


def test_an_ini_block_gives_a_row_per_section_under_its_name() -> None:
    block = ["[Oke mill]", "# the first", "builder = Ann Moss", "year: 1712", "", "[Oke barn]"]
    assert list(ini_records(block, 10)) == [
        (10, ("name", "builder", "year"), ("Oke mill", "Ann Moss", "1712"))
    ]
    assert list(xml_records(["<a><b>text</b></a>"], 1)) == []


def test_a_github_alert_marker_is_not_part_of_its_text() -> None:
    text = "The canal carried coal.\n\n> [!NOTE]\n> The Ferne lock was built by Abel Lunn.\n"
    assert prose_sentences(text)[-1] == (4, "The Ferne lock was built by Abel Lunn.")


def test_a_thing_of_the_same_kind_is_not_the_answer(store: SemanticStore) -> None:
    said = answer(
        _XML.replace("Tamm mill weir", "Tamm footweir"), "Who built the Tamm upper weir?", store
    )
    assert "Ada Rook" in said and "Hugh Senn" not in said
