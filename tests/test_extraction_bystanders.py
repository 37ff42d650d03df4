"""Names a sentence gives beside the doer, never given as the doer: a buyer of a thing "whose
architect had been Y", a partner the doer had no help from, the teacher a described agent is
a pupil of, and a builder who worked "to Y's plans" when the designer is asked for."""

from __future__ import annotations

from framework.memory import SemanticStore
from teams.extraction.asides import agent_joined, without_denied
from teams.extraction.clauses import whose_quotes
from teams.extraction.patterns import read_sentence
from teams.extraction.restatements import to_plans
from teams.supervisor.answering import answering_chains
from tests.extracting import answer, found_relation, triples


def _said(text: str) -> set[tuple[str, str, str]]:
    return {(s, p, o) for s, p, o, _ in triples(f"# Notes\n\n{text}\n")[0]}


def _answered(text: str, question: str, store: SemanticStore) -> str:
    """The answer's own lines, without its sources."""
    return answer(f"# Notes\n\n{text}\n", question, store).split("## Sources")[0]


def test_a_perfect_copula_states_afound_relation() -> None:
    readings = read_sentence("The Orrin mill's miller had been Tam Vose.")
    assert [(r.subject, r.predicate, r.object) for r in readings] == [
        ("Orrin mill", "'s miller is", "Tam Vose")
    ]


def test_a_whose_clause_is_quoted_apart_from_the_main_clause() -> None:
    quotes = whose_quotes(
        "Ida Marsh sold the Tey barn, whose builder had been Rob Hale, in 1870.", " … "
    )
    assert quotes == (
        "Ida Marsh sold the Tey barn … in 1870.",
        "the Tey barn, whose builder had been Rob Hale",
    )


def test_the_buyer_of_a_thing_whose_architect_is_named_is_not_its_architect(
    store: SemanticStore,
) -> None:
    text = "Piet Lund bought the Selby granary, whose architect had been Olga Venn, in 1911."
    said = _answered(text, "Who designed the Selby granary?", store)
    assert "Olga Venn" in said
    assert "Piet Lund" not in said


def test_a_partner_without_whose_help_a_thing_was_made_is_left_out() -> None:
    sentence = "Cora Tell built the Ash Lane school without any help from her brother, Abel Tell."
    assert without_denied(sentence) == "Cora Tell built the Ash Lane school."
    said = _said(sentence)
    assert ("Cora Tell", "built", "Ash Lane school") in said
    assert not [s for s in said if "Abel Tell" in s]


def test_the_partner_who_did_not_help_is_not_given(store: SemanticStore) -> None:
    text = "Rosa Lint designed the Kell baths without help from her partner, Guy Feld."
    said = _answered(text, "Who designed the Kell baths?", store)
    assert "Rosa Lint" in said
    assert "Guy Feld" not in said


def test_an_agent_described_before_its_name_is_the_name() -> None:
    sentence = "The Vane hall was built by an apprentice of Saul Brook's, the gifted Nell Pryce."
    assert agent_joined(sentence) == "The Vane hall was built by Nell Pryce."
    said = _said(sentence)
    assert ("Vane hall", "built by", "Nell Pryce") in said
    assert not [s for s in said if "Saul Brook" in s]


def test_a_description_that_names_nobody_is_read_as_it_is() -> None:
    sentence = "The Vane hall was built by his son, Amos Rook, in 1796."
    assert agent_joined(sentence) == sentence


def test_the_teacher_of_the_agent_is_not_given(store: SemanticStore) -> None:
    text = "The Moss chapel was designed by a pupil of Tobias Wray's, the young Lena Holt."
    said = _answered(text, "Who designed the Moss chapel?", store)
    assert "Lena Holt" in said
    assert "Tobias Wray" not in said


def test_a_thing_built_to_someones_plans_was_designed_by_them() -> None:
    sentence = "The Orme baths were built in 1901 to Jane Tull's plans by the firm of Gale and Co."
    rest, designed, quote = to_plans(sentence) or ("", "", "")
    assert designed == "The Orme baths were designed by Jane Tull."
    assert quote == "The Orme baths were built in 1901 to Jane Tull's plans"
    assert "Jane Tull" not in rest
    assert ("Orme bath", "designed by", "Jane Tull") in _said(sentence)
    plans = "The Eske tower was raised after the designs of Hugh Dale by Tom Kerr."
    assert ("Eske tower", "designed by", "Hugh Dale") in _said(plans)


def test_the_builder_to_anothers_plans_is_not_the_designer(store: SemanticStore) -> None:
    text = (
        "The Hollin library was built in 1884 to Agnes Rooke's plans by the firm of Dent and Sons."
    )
    said = _answered(text, "Who designed the Hollin library?", store)
    assert "Agnes Rooke" in said
    assert "Dent" not in said


def test_a_relation_whose_own_words_answer_beats_one_whose_quote_alone_does() -> None:
    evidence = "Piet Lund bought the Selby granary from its architect, Olga Venn."
    bought = found_relation("Piet Lund", "bought", "Selby granary", evidence)
    designed = found_relation("Selby granary", "'s architect is", "Olga Venn", evidence)
    chains = answering_chains(
        "Who designed the Selby granary?", ["Selby granary"], [bought, designed]
    )
    assert chains == [(designed,)]


def test_a_relative_of_the_doer_is_never_given_as_the_doer(store: SemanticStore) -> None:
    text = "Una Pell, the daughter of the Tarn library's architect, opened its reading room."
    said = _answered(text, "Who designed the Tarn library?", store)
    assert "Una Pell" not in said
    son = "Ned Orr, the son of the Tarn mill's owner, rebuilt the Tarn mill's wheel."
    assert "Ned Orr" in _answered(son, "Who rebuilt the Tarn mill's wheel?", store)


def test_a_second_clause_with_its_own_subject_is_read_too() -> None:
    said = _said("Tom Bell built the Orm barn, but Walter Ames built the Orm gatehouse.")
    assert {("Tom Bell", "built", "Orm barn"), ("Walter Ames", "built", "Orm gatehouse")} <= said
    doubted = _said(
        "The Orm barn's builder is unknown, but nobody doubts that Ada Lee built Orm mill."
    )
    assert ("Ada Lee", "built", "Orm mill") in doubted


def test_thanks_for_a_deed_say_who_did_it_of_the_thing_whose_state_was_told() -> None:
    minutes = (
        "Matters arising. The new slipway winch house is finished. Fiona Lamont thanked Duncan "
        "Kerr for building it over the winter and Shona Bannatyne for chasing the grant."
    )
    said = _said(minutes)
    assert {(s, p) for s, p, _ in said} == {("Duncan Kerr", "built")}
    assert all("winch" in thing for _, _, thing in said)  # not "Matters arising"
    assert ("Ann Lee", "designed", "new library") in _said(
        "The mayor praised Ann Lee for designing the new library."
    )
    state = _said("The boathouse was finished in May. Ivo Hart built it over the winter.")
    assert ("Ivo Hart", "built", "boathouse") in state


def test_a_work_from_the_pen_of_its_maker_and_a_deed_a_witness_saw() -> None:
    review = (
        "The evening closed with *Slack Water*, a new quartet from the pen of Ysolde Penhaligon,"
        " who sat in the second row."
    )
    assert ("Ysolde Penhaligon", "wrote", "Slack Water") in _said(review)
    seen = "I saw the man I now know to be Jory Carlyon painting the gull on the harbour wall."
    assert ("Jory Carlyon", "painted", "gull") in _said(seen)


def test_a_participle_set_off_by_dashes_with_the_speakers_aside_in_it() -> None:
    said = _said(
        "The Aberporth tide bell—designed, I am proud to say, by my constituent Ceridwen "
        "Lloyd—rings at every high water."
    )
    assert ("Aberporth tide bell", "designed by", "constituent Ceridwen Lloyd") in said
    assert ("Martha Cole", "founded", "reading room") in _said(
        "The reading room — Martha Cole founded it in 1874 — still lends books."
    )


def test_a_deed_its_doer_owns_and_one_first_among_their_achievements() -> None:
    obituary = (
        "Nesta Prydderch taught music at Cardigan for thirty years. Chief among her achievements"
        " was the founding, in 1968, of the Teifi Valley Ladies Choir, which she conducted."
    )
    said = _said(obituary)
    assert any(s == "Nesta Prydderch" and p == "founded" and "Teifi" in o for s, p, o in said)
    owned = _said("Ann Roe's building of the Orm mill was finished in 1820.")
    assert ("Orm mill", "built by", "Ann Roe") in owned
