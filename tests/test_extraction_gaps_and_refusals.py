"""Shapes the offline extraction reads, each in words of its own: a refused or planned deed
(never stated), a gapped second clause, a "(role: Name)" label, "namely", a negative
inversion, a nickname "dubbed ... by" someone, a passive exchange naming both parties, a
measure after "is", "he" after a thing, and a rival of the thing a question names."""

from __future__ import annotations

import pytest

from framework.memory import SemanticStore
from teams.extraction.aliases import aliases, without_aliases
from teams.extraction.asides import bracket_labels, namely, uninverted
from teams.extraction.clauses import gapped_clause
from teams.extraction.converses import exchange_parts
from teams.extraction.patterns import Reading, read_sentence
from teams.language.senses import deed_sense
from teams.language.words import stem
from tests.extracting import answer, triples


def _said(readings: list[Reading]) -> set[tuple[str, str, str]]:
    return {(r.subject, r.predicate, r.object) for r in readings}


@pytest.mark.parametrize(
    "sentence",
    [
        "In 1702 Ivo Marsh declined the offer to carve the Lund font.",
        "Ivo Marsh refused to carve the Lund font.",
        "Ivo Marsh turned down a request to carve the Lund font.",
        "The Lund font was to have been carved by Ivo Marsh.",
        "The Lund font was meant to be carved by Ivo Marsh.",
    ],
)
def test_a_refused_or_planned_deed_is_not_stated(sentence: str) -> None:
    assert not [r for r in read_sentence(sentence) if "Ivo Marsh" in (r.subject, r.object)]


def test_a_refusal_with_no_other_doer_answers_nothing(store: SemanticStore) -> None:
    text = "# Fonts\n\nIn 1702 Ivo Marsh declined the offer to carve the Lund font.\n"
    said = answer(text, "Who carved the Lund font?", store)
    assert "Ivo Marsh" not in said and "nothing" in said.lower()


def test_a_rejection_of_a_thing_is_still_read() -> None:
    assert ("Tom Hale", "rejects", "proposal") in _said(
        read_sentence("Tom Hale rejects the proposal.")
    )


def test_who_does_a_planned_deed_instead_does_it() -> None:
    sentence = (
        "The Orm hall was to have been built by Nye Cole, but he fell ill and Jo Pratt laid "
        "the stones instead."
    )
    said = _said(read_sentence(sentence))
    assert ("Jo Pratt", "built", "Orm hall") in said
    assert not [s for s in said if "Nye Cole" in s or s[0] == "Orm hall"]  # "he" is no hall


def test_a_gapped_clause_shares_the_first_clause_verb(store: SemanticStore) -> None:
    sentence = "Ann Dee glazed the Hesk east window in 1601, and Rob Fay the Hesk west window."
    gapped = gapped_clause(sentence)
    assert gapped is not None and (gapped.subject, gapped.object) == (
        "Rob Fay",
        "the Hesk west window",
    )
    text = f"# Windows\n\n{sentence}\n"
    found = triples(text)[0]
    assert ("Rob Fay", "glazed", "Hesk west window", 3) in found
    assert ("Ann Dee", "glazed", "Hesk east window", 3) in found
    said = answer(text, "Who glazed the Hesk west window?", store)
    assert "Rob Fay" in said and "Ann Dee" not in said  # the east window's glazier is no answer


def test_a_clause_with_its_own_verb_is_no_gap() -> None:
    assert gapped_clause("Ann Dee glazed the window, and Rob Fay built the porch.") is None


def test_a_role_labelled_in_brackets_is_the_thing_s(store: SemanticStore) -> None:
    sentence = "The Dunn library (architect: Amy Rook) closed in 1950."
    rest, readings = bracket_labels(sentence)
    assert rest == "The Dunn library closed in 1950."
    assert ("Dunn library", "'s architect is", "Amy Rook") in _said(readings)
    said = answer(f"# Libraries\n\n{sentence}\n", "Who designed the Dunn library?", store)
    assert "Amy Rook" in said


def test_an_architect_is_the_doer_of_a_design() -> None:
    assert deed_sense(stem("architect")) == deed_sense(stem("designed"))


def test_namely_puts_the_names_in_place_of_what_they_name() -> None:
    assert namely("Three smiths, namely Bo Reed and Al Kay, forged the gate.") == (
        "Bo Reed and Al Kay forged the gate."
    )
    assert namely("The Ferr mill had one miller, namely Jan Ott, until 1870.") == (
        "Ferr mill's miller was Jan Ott, until 1870."
    )
    said = _said(read_sentence(namely("The Ferr mill had one miller, namely Jan Ott.")))
    assert ("Ferr mill", "'s miller is", "Jan Ott") in said


def test_a_negative_inversion_states_its_deed() -> None:
    assert uninverted("Only in 1820 did Ben Kemp paint the Fell mill.") == (
        "Ben Kemp painted the Fell mill."
    )
    assert uninverted("Never did Ben Kemp paint the Fell mill.") == (
        "Never did Ben Kemp paint the Fell mill."
    )
    found = triples("# Mills\n\nNot until 1820 did Ben Kemp paint the Fell mill.\n")[0]
    assert ("Ben Kemp", "painted", "Fell mill", 3) in found


def test_who_dubs_a_thing_is_not_part_of_its_nickname() -> None:
    sentence = "The Ness light, dubbed the Candle by fishermen, was lit by Eve Lark."
    assert [(a.name, a.alias) for a in aliases(sentence)] == [("Ness light", "Candle")]
    assert without_aliases(sentence) == "The Ness light was lit by Eve Lark."


def test_an_exchange_naming_both_parties_quotes_each_alone(store: SemanticStore) -> None:
    sentence = "By 1790 the Hobb farm had been sold by Eli Crane to Mary Dent."
    assert [quote for _, quote in exchange_parts(sentence)] == [
        "By 1790 the Hobb farm had been sold by Eli Crane",
        "By 1790 the Hobb farm had been sold … to Mary Dent",
    ]
    text = f"# Farms\n\n{sentence}\n"
    found = triples(text)[0]
    assert ("Mary Dent", "bought", "Hobb farm", 3) in found
    said = answer(text, "Who bought the Hobb farm?", store)
    assert "Mary Dent" in said and "Eli Crane" not in said


def test_a_measure_after_is_is_read_whole() -> None:
    assert ("Gorse mast", "is", "90 metres tall") in _said(
        read_sentence("The Gorse mast is 90 metres tall.")
    )


def test_he_or_she_does_not_stand_for_a_thing() -> None:
    sentence = "The Pell barn was to have been built by Ned Orr, but he moved to Leeds."
    assert not [r for r in read_sentence(sentence) if r.subject == "Pell barn"]


def test_a_span_of_time_after_a_comma_is_no_object() -> None:
    said = _said(read_sentence("Ben Kemp painted the Fell mill, ten years after he bought it."))
    assert said == {("Ben Kemp", "painted", "Fell mill")}
