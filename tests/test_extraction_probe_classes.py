"""The classes of text the extraction probe set checks, each in words of its own: relative
clauses, key-value lines, Markdown table rows, abbreviations in brackets, and exchanges asked
from the other side (with a pronoun subject); extracted offline, then asked offline."""

from __future__ import annotations

import pytest

from framework.memory import SemanticStore
from teams.extraction import document_of
from teams.extraction.abbreviations import defined, without_definitions
from teams.extraction.attributes import key_values
from teams.extraction.clauses import simple_clauses
from teams.extraction.patterns import read_sentence
from teams.language.tables import markdown_tables
from teams.language.verbs import Converse, converse
from tests.extracting import Expected, answer, triples


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "# Viaducts\n\nIda Voss, who trained in Leeds, designed the Corve viaduct.\n",
            {("Ida Voss", "trained in", "Leeds", 3), ("Ida Voss", "designed", "Corve viaduct", 3)},
        ),
        (
            "# Mills\n\nThe Hale mill, which Tom Pike built in 1820, grinds oats.\n",
            {("Tom Pike", "built", "Hale mill", 3), ("Hale mill", "grinds", "oat", 3)},
        ),
        (
            "# Foundries\n\nAmos Tull founded the Wend foundry that casts church bells.\n",
            {
                ("Amos Tull", "founded", "Wend foundry", 3),
                ("Wend foundry", "casts", "church bell", 3),
            },
        ),
        (
            "# People\n\nRuth Kemble, whose father was a miller, bought the Marl estate.\n",
            {
                ("Ruth Kemble", "'s father is", "miller", 3),
                ("Ruth Kemble", "bought", "Marl estate", 3),
            },
        ),
    ],
    ids=["who", "which-object", "that", "whose"],
)
def test_a_relative_clause_is_read_apart_from_its_main_clause(
    text: str, expected: Expected
) -> None:
    found, _ = triples(text)
    assert expected <= found


def test_a_clause_without_commas_after_the_subject_or_a_that_of_speech_is_left_alone() -> None:
    kept = [
        "The mill that Tull built grinds corn.",
        "Ada told the Council that the Esk bridge leaks.",
    ]
    assert [simple_clauses(sentence) for sentence in kept] == [[sentence] for sentence in kept]
    assert simple_clauses("Danby, where Nora Pell was born, lies on the Tees.") == [
        "Danby lies on the Tees.",
        "Nora Pell was born in Danby",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "# Brackley station\n\n- Opened: 12 May 1852\n- Architect: John Lowe\n"
            "- Location: Brackley, Kent\n- Visitors: 12,500\n",
            {
                ("Brackley station", "opened in", "12 May 1852", 3),
                ("Brackley station", "'s architect is", "John Lowe", 4),
                ("Brackley station", "located in", "Brackley", 5),
                ("Brackley station", "located in", "Kent", 5),
                ("Brackley station", "'s visitors is", "12,500", 6),
            },
        ),
        (
            "# The Orme lifeboat\n\n**Built:** 1890\n**Builder**: Hart and Sons\n"
            "**Designed:** Ada Marsh\n",
            {
                ("Orme lifeboat", "built in", "1890", 3),
                ("Orme lifeboat", "'s builder is", "Hart", 4),
                ("Orme lifeboat", "designed by", "Ada Marsh", 5),
            },
        ),
        (
            "# Ferries\n\nThe Corran ferry crosses the loch.\n\n"
            "1. **Operator:** Highland Council\n",
            {("Corran ferry", "'s operator is", "Highland Council", 5)},
        ),
        (
            "# The Rook tower\n\nHeight: 30 m\nArchitect: Lucy Harle\n",
            {
                ("Rook tower", "'s height is", "30 m", 3),
                ("Rook tower", "'s architect is", "Lucy Harle", 4),
            },
        ),
    ],
    ids=["plain-keys", "bold-keys", "after-a-sentence", "unmarked-block"],
)
def test_a_key_value_line_is_an_attribute_of_what_the_section_is_about(
    text: str, expected: Expected
) -> None:
    found, _ = triples(text)
    assert expected <= found


def test_a_lead_in_a_sentence_after_a_key_or_a_lone_plain_key_is_no_key_value_line() -> None:
    lines = [
        "- The toolkit includes: a compiler",
        "**Pause**: a review point pauses the run.",
        "",
        "Note: Amos Tull",
        "",
        "- Founded by: Amos Tull",
        "Opened: 1861",
    ]
    assert key_values("\n".join(lines), 1) == {
        6: ("Founded by", "Amos Tull"),
        7: ("Opened", "1861"),
    }


@pytest.mark.parametrize(
    ("text", "expected", "types"),
    [
        (
            "# Players\n\n| Name | Born | Instrument |\n|---|---|---|\n"
            "| Ada Marsh | 1850 | violin |\n| Eli Voss | 1862 | cello |\n",
            {
                ("Ada Marsh", "born in", "1850", 5),
                ("Eli Voss", "'s instrument is", "cello", 6),
            },
            set(),
        ),
        (
            "# Ships\n\n| Year | Ship | Captain |\n|---|---|---|\n| 1901 | Mora | Eli Voss |\n",
            {("Mora", "'s year is", "1901", 5), ("Mora", "'s captain is", "Eli Voss", 5)},
            {("Mora", "ship")},
        ),
        (
            "# Books\n\n| No | Title | Author |\n|---|---|---|\n| 1 | Salt Roads | Mary Hale |\n",
            {("Salt Roads", "'s author is", "Mary Hale", 5)},
            set(),
        ),
    ],
    ids=["name-column", "subject-after-a-year", "title-column"],
)
def test_a_table_row_states_its_cells_of_its_subject_on_its_line(
    text: str, expected: Expected, types: set[tuple[str, str]]
) -> None:
    found, noted = triples(text)
    assert expected <= found
    assert types <= noted


def test_table_rows_are_found_outside_code_and_a_row_of_figures_has_no_subject() -> None:
    text = "| Bridge | Opened |\n|---|---|\n| *Esk* | 1930 |\n"
    (table,) = markdown_tables(text, first_line=10)
    assert (table.line, table.header, table.rows) == (
        10,
        ("Bridge", "Opened"),
        ((12, ("Esk", "1930")),),
    )
    code = "\n```\n| a | b |\n|---|---|\n| c | d |\n```\n"
    document = document_of("t.md", text + code + "\n| Runs | Seconds |\n|---|---|\n| 20 | 1.5 |\n")
    assert [row.cells for row in document.rows] == [("Esk", "1930"), ("20", "1.5")]
    assert document.line_of("Esk | 1930") == 3
    found, _ = triples("# Timings\n\n| Runs | Seconds |\n|---|---|\n| 20 | 1.5 |\n")
    assert found == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "# Weirs\n\nThe CRT (Corve River Trust) owns the Corve weir.\n"
            "The CRT was founded in 1950.\n",
            {
                ("CRT", "stands for", "Corve River Trust", 3),
                ("Corve River Trust", "owns", "Corve weir", 3),
                ("Corve River Trust", "founded in", "1950", 4),
            },
        ),
        (
            "# Harbours\n\nThe Harbour Safety Board (HSB) inspects the quay.\n"
            "The HSB's chair is Ann Lee.\n",
            {
                ("HSB", "stands for", "Harbour Safety Board", 3),
                ("Harbour Safety Board", "'s chair is", "Ann Lee", 4),
            },
        ),
    ],
    ids=["short-form-first", "possessive"],
)
def test_an_abbreviation_reads_as_what_it_stands_for(text: str, expected: Expected) -> None:
    found, _ = triples(text)
    assert expected <= found


def test_an_abbreviation_is_defined_by_the_initials_of_its_long_form() -> None:
    assert defined("Rain is forecast by the Bureau of Meteorology (BoM).") == [
        ("BoM", "Bureau of Meteorology")
    ]
    assert defined("The Department of Energy (DOE) funds it.") == [("DOE", "Department of Energy")]
    assert defined("Ada Marsh (1850-1920) designed it.") == []
    assert defined("The Harbour Trust (HSB) owns it.") == []
    assert without_definitions("The DOE (Department of Energy) funds it.") == "The DOE funds it."
    (reading,) = read_sentence("The Western Lakes Trust manages the Orme dam.")
    assert (reading.subject, reading.predicate, reading.object) == (
        "Western Lakes Trust",
        "manages",
        "Orme dam",
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "# The Tarn mill\n\nThe Pike family built the Tarn mill.\n"
            "They sold it to the Corve Trust in 1902.\n",
            {
                ("Pike family", "sold", "Tarn mill", 4),
                ("Corve Trust", "bought", "Tarn mill", 4),
                ("Corve Trust", "bought from", "Pike family", 4),
            },
        ),
        (
            "# Loans\n\nAda Marsh lent the Lark painting to the Hale museum.\n",
            {("Hale museum", "borrowed", "Lark painting", 3)},
        ),
        (
            "# Prizes\n\nThe Lumen Press received the Orme prize from the Book Guild.\n",
            {("Book Guild", "gave", "Orme prize", 3), ("Book Guild", "gave to", "Lumen Press", 3)},
        ),
        (
            "# Cups\n\nLeeds Rovers lost to Hull Town.\nThe Esk estate was sold to Ruth Kemble.\n",
            {
                ("Hull Town", "won against", "Leeds Rovers", 3),
                ("Ruth Kemble", "bought", "Esk estate", 4),
            },
        ),
        (
            "# The Marl estate\n\nRuth Kemble bought it from the Hobb family in 1921.\n",
            {
                ("Hobb family", "sold", "Marl estate", 3),
                ("Hobb family", "sold to", "Ruth Kemble", 3),
            },
        ),
    ],
    ids=["pronouns", "lend", "receive", "lose-and-passive", "heading-object"],
)
def test_an_exchange_is_read_from_both_sides(text: str, expected: Expected) -> None:
    found, _ = triples(text)
    assert expected <= found


def test_a_converse_keeps_the_form_of_its_verb_and_nothing_else_is_turned() -> None:
    assert converse("sells") == Converse("buys", "from", "to")
    assert converse("taught") == Converse("learned", "from", "to")
    assert converse("received") == Converse("gave", "to", "from")
    assert converse("designed") is None
    found, _ = triples("# Carts\n\nThe cart was used to carry coal.\nIt sends a note to warn us.\n")
    assert not {triple for triple in found if triple[1] in ("received", "receives from")}


@pytest.mark.parametrize(
    ("text", "question", "said", "line"),
    [
        (
            "# Viaducts\n\nIda Voss, who trained in Leeds, designed the Corve viaduct.\n",
            "Where did Ida Voss train?",
            "Ida Voss trained in Leeds",
            3,
        ),
        (
            "# Brackley station\n\n- **Architect:** John Lowe\n- **Opened:** 1852\n",
            "Who was the architect of Brackley station?",
            "Brackley station's architect is John Lowe",
            3,
        ),
        (
            "# Ships\n\n| Ship | Launched | Captain |\n|---|---|---|\n| Mora | 1901 | Eli Voss |\n",
            "When was the Mora launched?",
            "Mora was launched in 1901",
            5,
        ),
        (
            "# The Kell trail\n\n- **Length:** 12 km\n- **Start:** Corve bridge\n",
            "How long is the Kell trail?",
            "12 km",
            3,
        ),
        (
            "# Harbours\n\nThe Harbour Safety Board (HSB) inspects the quay.\n"
            "The HSB was broken up in 1988.\n",
            "When was the Harbour Safety Board broken up?",
            "Harbour Safety Board was broken up in 1988",
            4,
        ),
        (
            "# Loans\n\nThe Hale museum owns a Lark painting.\nIt lent it to the Corve gallery.\n",
            "Who borrowed the Lark painting?",
            "Corve gallery borrowed",
            4,
        ),
    ],
    ids=["relative-clause", "key-value", "table-row", "measure", "abbreviation", "converse"],
)
def test_each_class_answers_its_question_offline_citing_its_line(
    text: str, question: str, said: str, line: int, store: SemanticStore
) -> None:
    answered = answer(text, question, store)
    assert said in answered and f"`notes.md:{line}`" in answered
