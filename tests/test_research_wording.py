"""Words that are not a sentence's or a question's topic: the measure of "how long", a link's
target; phrasal and plain wordings of one sense; a second sentence quoted with the sentence a
rival value stands in is no second fact; a figure given as a difference is no value; a release
heading names the page's own release; a variable's name in capitals is an identifier."""

from __future__ import annotations

from framework.memory import Passage
from teams.language.senses import plain_wording
from teams.language.sentence_choice import given, ranked_sentences, term_weights
from teams.research.offline import _IDENTIFIER, _answers


def test_the_measure_a_question_asks_for_is_no_topic_word() -> None:
    texts = ["A long-term lease runs for 99 years.", "A short lease runs for 7 years."]
    assert "long" not in term_weights(texts, "How long does a short lease run?")
    assert "long" in term_weights(texts, "How long does a long lease run?")


def test_a_link_target_holds_no_words_of_its_sentence() -> None:
    text = (
        "[Wrapping](https://example.org/docs/#wrap-code-width) is set to 72.\n\n"
        "Code width is set to 88.\n"
    )
    ranked = ranked_sentences(text, "What is the code width?")
    assert ranked[0].hits < ranked[1].hits
    rst = "See :ref:`the tunnel notes <wrap-code-width>` for more."
    (only,) = ranked_sentences(rst, "What is the code width?")
    assert not only.hits


def test_phrasal_and_plain_wordings_of_one_sense_meet() -> None:
    assert "continue" in plain_wording("If someone carries on after a warning")
    assert "participate" in plain_wording("kept from taking part")
    assert "by default" in plain_wording("compare types without being told to")


def test_a_second_sentence_leaning_on_a_rival_value_is_not_quoted() -> None:
    text = (
        "If the noise goes on, the member is muted for 2 days. "
        "If it goes on after the mute, a ban of 3 months follows. "
        "If after this the noise still goes on, the member is removed."
    )
    passage = Passage(
        source="rules.md:1", path="rules.md", line=1, heading="", text=text, score=0.9
    )
    answered = _answers(
        passage, "If the noise goes on after a warning, how long is the member muted?"
    )
    assert answered is not None
    quoted = " ".join(item.text for item in answered.evidence)
    assert "2 days" in quoted
    assert "3 months" not in quoted


def test_a_figure_given_as_a_difference_is_no_value_of_the_thing() -> None:
    asked = "How many seconds does a worker wait for a job?"
    differs = "The socket timeout is 10 seconds longer than the job wait."
    states = "By default a worker waits 300 seconds for a job."
    assert given("quantity", differs, asked) == set()
    assert given("quantity", states, asked) == {"300"}


def test_a_release_heading_names_the_page_own_release() -> None:
    text = "Dropped support for Tarn server < 4"
    (under,) = ranked_sentences(
        text,
        "which release dropped support for Tarn servers below 4",
        heading="Moss 2.0 (2024-10-28)",
    )
    (plain,) = ranked_sentences(text, "which release dropped support for Tarn servers below 4")
    assert under.score > plain.score


def test_a_variable_name_in_capitals_is_an_identifier() -> None:
    assert _IDENTIFIER.findall("What do NO_PROXY and MAX_AGE_2 or max_retries do?") == [
        "NO_PROXY",
        "MAX_AGE_2",
    ]
    assert _IDENTIFIER.findall("What does `no_proxy` do in Version 2?") == []
