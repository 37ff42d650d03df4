"""Shapes that state a relation out of plain order, read as the plain sentences they state: a
comparison "Like X" and a contrast "Unlike X, which ...", a fronted purpose "To design X, they
hired Y", a year as subject "1890 saw X built by Y", "Credit for the design of X goes to Y", a
double genitive "a design of Y's", "by whom", "would go on to build", "The same mason" for the
agent before, an opening clause that says a relation is not known, a footnote opening with its
predicate, and an interview's turns behind their speakers' labels."""

from __future__ import annotations

import pytest

from framework.memory import SemanticStore
from teams.extraction.restatements import restated, with_deed_done, without_unknown
from tests.extracting import answer, triples


def _said(text: str) -> set[tuple[str, str, str]]:
    return {(s, p, o) for s, p, o, _ in triples(f"# Notes\n\n{text}\n")[0]}


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "Like the Vole tower, the Serin tower was built by Edda Frame.",
            {("Vole tower", "built by", "Edda Frame"), ("Serin tower", "built by", "Edda Frame")},
        ),
        (
            "To carve the Amble font, the abbey engaged Rufus Kemp.",
            {("Rufus Kemp", "carved", "Amble font")},
        ),
        (
            "1744 saw the Dunnet mill rebuilt by Ora Blane.",
            {("Dunnet mill", "rebuilt by", "Ora Blane"), ("Dunnet mill", "rebuilt in", "1744")},
        ),
        (
            "Credit for the founding of the Tell choir went to Agatha Rowe.",
            {("Tell choir", "founded by", "Agatha Rowe")},
        ),
        (
            "The Pym clock, a design of Otto Brand's, still keeps time.",
            {("Pym clock", "designed by", "Otto Brand")},
        ),
        (
            "Mabel Stour, by whom the Fenn school was founded, taught there for years.",
            {("Fenn school", "founded by", "Mabel Stour")},
        ),
    ],
)
def test_a_relation_out_of_plain_order_is_read(
    sentence: str, expected: set[tuple[str, str, str]]
) -> None:
    assert expected <= _said(sentence)


def test_a_contrast_gives_each_thing_its_own_agent() -> None:
    sentence = "Unlike the Hoy tower, which Bram Lisle built, the Esk tower was built by Nia Roan."
    said = _said(sentence)
    assert ("Esk tower", "built by", "Nia Roan") in said
    assert not [s for s in said if "Esk tower" in s and "Bram Lisle" in s]
    assert restated(sentence)[0] == "the Esk tower was built by Nia Roan."


def test_a_deed_one_would_go_on_to_do_is_done() -> None:
    assert with_deed_done("She would go on to found the Rye mill.") == "She founded the Rye mill."
    text = "Cora Vane trained in Leith. She went on to build the Hale pier."
    assert ("Cora Vane", "built", "Hale pier") in _said(text)


def test_the_same_role_noun_stands_for_the_agent_before() -> None:
    text = "Ivor Lamb carved the Rhee font. The same mason also carved the Orm cross."
    assert ("Ivor Lamb", "carved", "Orm cross") in _said(text)


def test_a_relation_said_to_be_unknown_is_left_out() -> None:
    sentence = "Who carved the Ulva cross is unknown; Ada Pell mended it in 1920."
    assert without_unknown(sentence) == "Ada Pell mended it in 1920."
    assert without_unknown("Ada Pell carved it.") == "Ada Pell carved it."


def test_another_relation_beside_an_unknown_one_does_not_answer_it(store: SemanticStore) -> None:
    text = "# The Ulva cross\n\nWho carved the Ulva cross is not recorded; Ada Pell mended it.\n"
    said = answer(text, "Who carved the Ulva cross?", store)
    assert "Ada Pell" not in said.split("## Sources")[0]


def test_the_contrasted_agent_is_never_the_answer(store: SemanticStore) -> None:
    text = (
        "# Towers\n\nUnlike the Hoy tower, which Bram Lisle built, the Esk tower was built "
        "by Nia Roan.\n"
    )
    said = answer(text, "Who built the Esk tower?", store)
    assert "Nia Roan" in said
    assert "Bram Lisle" not in said


def test_a_footnote_opening_with_its_predicate_is_said_of_the_thing_it_marks() -> None:
    text = "# Mills\n\nThe Ebb mill[^a] grinds oats.\n\n[^a]: Rebuilt by Hugo Prest in 1790.\n"
    found = triples(text)[0]
    assert ("Ebb mill", "rebuilt by", "Hugo Prest", 5) in found
    assert ("Ebb mill", "grinds", "oat", 3) in found


def test_a_transcript_turn_answers_the_question_before_it() -> None:
    text = (
        "# Talk\n\nREPORTER: Who carved the Yell cross?\n\n"
        "ODA FENN: My uncle, Rolf Fenn, in 1880.\n"
    )
    assert ("Rolf Fenn", "carved", "Yell cross") in {t[:3] for t in triples(text)[0]}


def test_a_speaker_saying_i_did_to_a_question_put_to_them_did_it() -> None:
    text = (
        "# Talk\n\n**Reporter:** You restored the Yell cross, didn't you?\n\n"
        "**Ivy Dunmore:** I did, in 1931.\n"
    )
    assert ("Ivy Dunmore", "restored", "Yell cross") in {t[:3] for t in triples(text)[0]}


def test_a_label_before_a_plain_statement_is_kept() -> None:
    from teams.extraction.transcripts import spoken

    assert spoken("Note: it opens at nine.", answering=False) == "Note: it opens at nine."
    assert spoken("ADA: I built it.", answering=True) == "ADA built it."


def test_a_concessive_clause_is_no_second_object() -> None:
    text = "Nell Corby built the Ware dam, though its sluices came from Ipswich."
    said = _said(text)
    assert ("Nell Corby", "built", "Ware dam") in said
    assert not [s for s in said if s[0] == "Nell Corby" and s[2] != "Ware dam"]
