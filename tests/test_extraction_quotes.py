"""The evidence an answer quotes holds no more than the relation: the clauses that state it
when the rest of the sentence names someone else, the cells of a table row that hold it; a
transposed table's column read as its header's thing, and a passive's agent read past an aside
before its "by"."""

from __future__ import annotations

import pytest

from framework.memory import SemanticStore
from teams.extraction.documents import Row
from teams.language.quotations import quoted_clauses
from tests.extracting import answer, triples


def _quoted(said: str) -> str:
    """The answer's first line, lower case."""
    return next(line for line in said.lower().splitlines() if line.startswith("- "))


@pytest.mark.parametrize(
    ("text", "question", "right", "rival"),
    [
        (
            "Ida Venn built the Sark bridge in 1801. The same mason also built the Tarn mill, "
            "though its wheel was cast by Olaf Pim.",
            "Who built the Tarn mill?",
            "ida venn",
            "olaf pim",
        ),
        (
            "Rosa Thorne carved every font in the abbey except the Wyke font, which Ned Aske "
            "carved.",
            "Who carved the Wyke font?",
            "ned aske",
            "rosa thorne",
        ),
    ],
)
def test_an_answer_quotes_only_the_clauses_that_state_it(
    text: str, question: str, right: str, rival: str, store: SemanticStore
) -> None:
    said = _quoted(answer(f"# Notes\n\n{text}\n", question, store))
    assert right in said
    assert rival not in said


def test_a_sentence_without_a_rival_is_quoted_whole() -> None:
    sentence = "In March 1820, Ann Roe built the mill, and it still grinds."
    assert quoted_clauses(sentence, ["Ann Roe", "mill"]) == sentence


def test_the_cut_is_marked_where_the_quotation_leaves_the_sentence() -> None:
    sentence = "Ava Gale built each chapel except the Holt chapel, which Lusk built, said Dr Ames."
    assert quoted_clauses(sentence, ["Lusk", "Holt chapel"]) == (
        "… the Holt chapel, which Lusk built …"
    )


def test_a_name_in_apposition_stays_with_what_it_names() -> None:
    sentence = "It was restored by its owner, Lena Ward, though Kit Ames paid for it."
    assert quoted_clauses(sentence, ["mill", "owner"]) == (
        "It was restored by its owner, Lena Ward …"
    )


def test_a_rival_in_the_same_clause_is_quoted_with_it() -> None:
    sentence = "The Ashby and Corran bridges were designed by Hal Tam and Iris Penn respectively."
    assert quoted_clauses(sentence, ["Corran bridge", "Iris Penn"]) == sentence


def test_an_aside_between_a_passive_and_its_agent_is_read_past() -> None:
    found, _ = triples(
        "# Notes\n\nThe Tolley dome was designed, after a long quarrel over its site and two "
        "plans the council refused, by Edith Marr.\n"
    )
    assert ("Tolley dome", "designed by", "Edith Marr", 3) in found


def test_a_row_keeps_its_label_and_the_cells_of_the_relation() -> None:
    header = ("Bridge", "Designer", "Builder", "Opened")
    row = Row(line=3, header=header, cells=("Harrow bridge", "Ada Marsh", "Tom Bell", "1880"))
    assert row.quote(["Harrow bridge", "Tom Bell"]) == "Harrow bridge | … | Tom Bell | …"


_TRANSPOSED = (
    "# Bridges of the Orme estuary\n\n"
    "| | Brede bridge | Orme bridge | Tarr bridge |\n"
    "| --- | --- | --- | --- |\n"
    "| Designer | Noel Hart | Carl Dunn | Ivy Sorn |\n"
    "| Opened | 1872 | 1880 | 1891 |\n"
)


def test_a_transposed_table_gives_each_column_its_header_thing() -> None:
    found, _ = triples(_TRANSPOSED)
    assert {
        ("Orme bridge", "'s designer is", "Carl Dunn", 5),
        ("Tarr bridge", "opened in", "1891", 6),
    } <= found
    assert not [t for t in found if "Designer" in t[0]]


def test_a_transposed_table_answers_with_its_column_alone(store: SemanticStore) -> None:
    said = _quoted(answer(_TRANSPOSED, "Who designed the Orme bridge?", store))
    assert "carl dunn" in said
    assert "noel hart" not in said
    assert "ivy sorn" not in said
