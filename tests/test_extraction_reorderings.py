"""More shapes out of plain order, read as the plain sentences they state: a pseudo-cleft, "was
responsible for the design of", a fronted clause of time, a fronted "Having ...", a fact
"It is recorded ... that", a source after "According to", an object put first with a gapped
clause after it, a second name after "or", a passive with "got", an adverb before the
participle, a place after "by" before the agent's "by"; a deed only tried or claimed, named by
a noun, is never read as done; a fenced CSV block is a table; a second verb after "and" is no
object."""

from __future__ import annotations

import pytest

from framework.memory import SemanticStore
from teams.extraction import PatternCartographer, document_of
from teams.extraction.restatements import with_deed_done
from tests.extracting import answer, triples


def _said(text: str) -> set[tuple[str, str, str]]:
    return {(s, p, o) for s, p, o, _ in triples(f"# Notes\n\n{text}\n")[0]}


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "The person who carved the Wendle font was Orla Bream, a mason of Ely.",
            ("Orla Bream", "carved", "Wendle font"),
        ),
        (
            "Piet Alder was chiefly responsible for the construction of the Hale quay, "
            "which still stands.",
            ("Hale quay", "constructed by", "Piet Alder"),
        ),
        (
            "Once Mira Towne had founded the Bex library in 1801, she left for Hull.",
            ("Mira Towne", "founded", "Bex library"),
        ),
        (
            "Having carved the Ulm cross in 1700, Tam Reade went on to teach in Derby.",
            ("Tam Reade", "carved", "Ulm cross"),
        ),
        (
            "Having built the Sorrel lock, Jo Kemp retired to Whitby.",
            ("Jo Kemp", "built", "Sorrel lock"),
        ),
        (
            "It is documented in the town charter that Lena Quist founded the Orrin guild.",
            ("Lena Quist", "founded", "Orrin guild"),
        ),
        (
            "The Hesk chapel, or Grey chapel, was designed by Nils Orde.",
            ("Grey chapel", "designed by", "Nils Orde"),
        ),
        (
            "The Tarn weir got rebuilt by Abel Frost in 1901.",
            ("Tarn weir", "rebuilt by", "Abel Frost"),
        ),
        (
            "The Pell arch was very probably designed by Ivo Lake.",
            ("Pell arch", "designed by", "Ivo Lake"),
        ),
    ],
)
def test_a_relation_out_of_plain_order_is_read(
    sentence: str, expected: tuple[str, str, str]
) -> None:
    assert expected in _said(sentence)


def test_a_source_after_according_to_is_not_said_to_do_the_deed() -> None:
    said = _said(
        "According to Piers Cole, a local historian, the Vell bridge was designed by Una Marsh."
    )
    assert ("Vell bridge", "designed by", "Una Marsh") in said
    assert not [s for s in said if "Piers Cole" in s[0] or "historian" in s[0]]


def test_an_object_put_first_and_a_gapped_clause_after_it() -> None:
    said = _said("The Rook tower Cara Wyn built in 1790; the Finch tower, Eli Mott.")
    assert {("Cara Wyn", "built", "Rook tower"), ("Eli Mott", "built", "Finch tower")} <= said
    assert ("Eli Mott", "is", "Finch tower") not in said


def test_a_place_after_by_is_no_agent_when_a_name_follows() -> None:
    said = _said("The Orme pier was built by a sandy cove by Kit Harrow in 1811.")
    assert ("Orme pier", "built by", "Kit Harrow") in said
    assert not [s for s in said if "cove" in s[2]]


def test_a_deed_only_tried_is_not_read_and_the_deed_done_after_it_is() -> None:
    said = _said(
        "Ruth Snell's bid to design the Cale museum collapsed in 1890; "
        "the museum was eventually designed by Amos Pike."
    )
    assert ("Cale museum", "designed by", "Amos Pike") in said
    assert not [s for s in said if "Ruth Snell" in s[0] and "design" in s[1]]


def test_a_claim_to_a_deed_is_read_as_a_claim() -> None:
    said = _said("Abe Lund's claim to have carved the Dray font was refuted by the vicar.")
    assert said == {("Abe Lund's claim", "refuted by", "vicar")}


def test_a_disproved_claim_answers_nothing(store: SemanticStore) -> None:
    claim = "Abe Lund's claim to have carved the Dray font was refuted by the vicar."
    text = f"# The Dray font\n\n{claim}\n"
    said = answer(text, "Who carved the Dray font?", store)
    assert "Abe Lund" not in said
    assert "nothing" in said.lower()


def test_a_passive_with_got_is_answered_with_its_auxiliary(store: SemanticStore) -> None:
    text = "# Weirs\n\nThe Tarn weir got rebuilt by Abel Frost in 1901.\n"
    said = answer(text, "Who rebuilt the Tarn weir?", store)
    assert "- The Tarn weir got rebuilt by Abel Frost:" in said  # not "The Tarn weir rebuilt by"


def test_with_deed_done_reads_get_as_be() -> None:
    assert (
        with_deed_done("The mill gets repaired by Ann Roe.") == "The mill is repaired by Ann Roe."
    )
    assert with_deed_done("They get on well.") == "They get on well."


def test_a_fenced_csv_block_is_a_table() -> None:
    text = "# Mills\n\n```csv\nmill,founder\nOsk mill,Vera Lunn\nBrill mill,Cai Dorn\n```\n"
    found, _ = triples(text)
    assert ("Brill mill", "'s founder is", "Cai Dorn", 6) in found
    assert ("Osk mill", "'s founder is", "Vera Lunn", 5) in found


def test_a_second_verb_after_and_is_no_object() -> None:
    said = _said("Ivy Dane moved to Leeds and bought a farm.")
    assert ("Ivy Dane", "moved to", "Leeds") in said
    assert not [s for s in said if "farm" in s[2]]


@pytest.mark.parametrize(
    "sentence",
    [
        "According to local legend, the Tey font was carved by Ann Roe.",
        "The Tey font was nearly destroyed by Ann Roe.",
        "The Tey font was possibly carved by Ann Roe.",
        "Ann Roe tried to carve the Tey font.",
        "Having failed to carve the Tey font, Ann Roe left for York.",
    ],
)
def test_a_deed_reported_tried_or_not_quite_done_is_not_read(sentence: str) -> None:
    document = document_of("notes.md", f"# Notes\n\n{sentence}\n")
    read = [
        " ".join((t.subject, t.object))
        for t in PatternCartographer().extract(document, None, ()).triples
    ]
    assert not [said for said in read if "Ann Roe" in said and "Tey font" in said]


def test_it_after_a_deed_tried_is_the_thing_it_was_tried_on() -> None:
    said = _said("Ann Roe failed to carve the Tey font; it was carved by Tom Hale.")
    assert said == {("Tey font", "carved by", "Tom Hale")}


def test_a_second_participle_has_its_own_objects_and_year() -> None:
    said = _said("The Orme mill was built by Ann Lee and rebuilt by Ted Hume in 1850.")
    assert ("Orme mill", "built by", "Ann Lee") in said
    assert ("Orme mill", "rebuilt by", "Ted Hume") in said
    assert not [s for s in said if s[1] == "built by" and s[2] != "Ann Lee"]


def test_a_fronted_place_before_its_subject_is_read_in_plain_order() -> None:
    said = _said("Over the Wend, below the weir, stands the Orme bridge, designed by Ida Fell.")
    assert ("Orme bridge", "designed by", "Ida Fell") in said


def test_a_fronted_clause_of_time_is_read_and_drawing_the_plans_is_designing() -> None:
    said = _said("While Ida Orme drew up the plans for the Kell tower, Gil Sharpe laid its stones.")
    assert ("Ida Orme", "designed", "Kell tower") in said
    both = _said("When Ann Lee built the Orm mill, Ted Hume built the Orm barn.")
    assert {("Ann Lee", "built", "Orm mill"), ("Ted Hume", "built", "Orm barn")} <= both


def test_credits_set_with_dot_leaders_are_the_thing_above_s() -> None:
    found, _ = triples(
        "# The Orm lido\n\nThe Orm lido opened in 1936.\n\n## Credits\n\n"
        "Design ............ Ida Fell\nConstruction ...... Tom Hale\n"
    )
    said = {(s, p, o) for s, p, o, _ in found}
    assert ("Orm lido", "'s design is", "Ida Fell") in said
    assert ("Orm lido", "'s construction is", "Tom Hale") in said


def test_two_verbs_sharing_a_subject_and_an_object_are_both_read() -> None:
    said = _said("Ida Fell designed and built the Orm granary in 1838.")
    assert {("Ida Fell", "designed", "Orm granary"), ("Ida Fell", "built", "Orm granary")} <= said
    also = _said("Ida Fell not only designed the Orm granary but also built it, in 1838.")
    assert ("Ida Fell", "built", "Orm granary") in also


def test_a_restructuredtext_list_table_s_rows_are_read_under_its_header() -> None:
    found, _ = triples(
        "Mills\n=====\n\n.. list-table:: Mills and builders\n   :header-rows: 1\n\n"
        "   * - Mill\n     - Builder\n   * - Hallam mill\n     - Ida Brent\n"
        "   * - Orley mill\n     - Tom Quayle\n"
    )
    said = {(s, p, o, line) for s, p, o, line in found}
    assert ("Orley mill", "'s builder is", "Tom Quayle", 11) in said
    assert ("Hallam mill", "'s builder is", "Ida Brent", 9) in said


def test_a_restructuredtext_grid_table_s_rows_are_read_under_its_header() -> None:
    found, _ = triples(
        "Mills\n=====\n\n+-------------+-------------------+\n| Mill        | Built by          |\n"
        "+=============+===================+\n| Hallam mill | Ida Brent         |\n"
        "+-------------+-------------------+\n| Orley mill  | Tom Quayle and    |\n"
        "|             | Ann Oddy          |\n+-------------+-------------------+\n"
    )
    said = {(s, p, o, line) for s, p, o, line in found}
    assert ("Hallam mill", "built by", "Ida Brent", 7) in said, said
    assert ("Orley mill", "built by", "Tom Quayle", 9) in said, said


def test_a_latex_tables_rows_are_read_under_its_header_in_a_code_block_or_not() -> None:
    table = (
        "\\begin{tabular}{lll}\n\\hline\n\\textbf{Mill} & \\textbf{Built by} & Year \\\\\n"
        "\\hline\nHallam mill & Ida Brent & 1804 \\\\\nOrley mill & Tom Quayle \\& Sons & 1811 "
        "\\\\\n\\hline\n\\end{tabular}\n"
    )
    for text in (f"Mills\n=====\n\n{table}", f"# Mills\n\n```latex\n{table}```\n"):
        found, _ = triples(text)
        said = {(s, p, o) for s, p, o, _ in found}
        assert ("Hallam mill", "built by", "Ida Brent") in said, said
        assert ("Orley mill", "built by", "Tom Quayle & Sons") in said, said


def test_a_table_a_program_printed_is_read_under_its_header_in_a_code_block() -> None:
    boxed = (
        "┏━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━┓\n┃ Mill        ┃ Built by   ┃ Year ┃\n"
        "┡━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━┩\n│ Hallam mill │ Ida Brent  │ 1804 │\n"
        "│ Orley mill  │ Tom Quayle │ 1811 │\n└─────────────┴────────────┴──────┘\n"
    )
    shell = (
        "+-------------+------------+------+\n| Mill        | Built by   | Year |\n"
        "+-------------+------------+------+\n| Hallam mill | Ida Brent  | 1804 |\n"
        "| Orley mill  | Tom Quayle | 1811 |\n+-------------+------------+------+\n"
    )
    for table in (boxed, shell):
        found, _ = triples(f"# Mills\n\n```\n$ mills list\n{table}```\n")
        said = {(s, p, o, line) for s, p, o, line in found}
        assert ("Hallam mill", "built by", "Ida Brent", 8) in said, said
        assert ("Orley mill", "built by", "Tom Quayle", 9) in said, said
