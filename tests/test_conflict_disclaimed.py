"""Conflicts a page's own words settle: a change note that says what a figure was rejects it; a
page whose banner says its release is no longer maintained, or an account that calls itself a
parody, gives way; a case the question names in every word of an opening phrase ("in today's
money" is not "in the money of the time"); and a figure of the measure the question names
("safe working load") against one of that measure otherwise qualified ("proof-tested with a
load")."""

from __future__ import annotations

from framework.memory import EvidenceRecord
from teams.hypothesis.verdicts import _qualified
from teams.language.outdated import drop_outdated
from tests.test_conflict_asked import _settled


def test_a_change_note_that_says_what_a_figure_was_rejects_it() -> None:
    page = (
        "Kiln reference\n==============\n\nThe kiln cools for 10 hours by default.\n\n"
        ".. versionchanged:: 4.0\n   The default was 30 hours.\n\nNext section.\n"
    )
    read = drop_outdated(page).split("\n")
    assert read[3] == "The kiln cools for 10 hours by default, not 30."
    assert "30 hours" not in "\n".join(read[4:]) and read[8] == "Next section."
    assert len(read) == len(page.split("\n"))  # line for line
    noted = "The fan spins at 900 rpm.\n\n*Changed in version 2.1:* it was 700 rpm before.\n"
    assert drop_outdated(noted).startswith("The fan spins at 900 rpm, not 700.")
    added = "The fan spins at 900 rpm.\n\n.. versionchanged:: 2.1\n   Spins faster on 2 cores.\n"
    assert drop_outdated(added) == added  # no figure said to have been


def test_a_pages_banner_marks_each_of_its_figures() -> None:
    old = (
        "# Kiln docs\n\n> You are reading the documentation for an old release of Kiln, "
        "which is no longer maintained.\n\nThe kiln holds 5 racks.\n"
    )
    assert drop_outdated(old).endswith(
        "The kiln holds 5 racks (in a release no longer maintained).\n"
    )
    parody = "# @NotKelby\n\nParody account. Not affiliated with Kelby.\n\nThe lido is 50 m long.\n"
    assert "The lido is 50 m long (says a parody account)." in drop_outdated(parody)
    plain = "# Kiln docs\n\nThe kiln holds 5 racks.\n"
    assert drop_outdated(plain) == plain


def test_a_figure_its_page_disowns_gives_way_to_a_plain_one() -> None:
    plain = EvidenceRecord(text="The kiln holds 8 racks.", source="a.md:3")
    for marker in ("in a release no longer maintained", "says a parody account"):
        marked = EvidenceRecord(text=f"The kiln holds 5 racks ({marker}).", source="b.md:5")
        assert _qualified(plain, marked) is marked, marker
        assert _qualified(marked, plain) is marked, marker


def test_a_case_is_named_only_by_every_word_of_its_phrase() -> None:
    question = "How much did the Harrow viaduct cost to build, in the money of the time?"
    today = "In today's money, building the Harrow viaduct cost about £5 million."
    then = "The Harrow viaduct was finished in 1862 and cost £41,000 to build."
    assert _settled(question, today, then) == "b"
    asked_today = "What would the Harrow viaduct cost in today's money?"
    assert _settled(asked_today, today, then) == "a"


def test_the_measure_the_question_names_answers_it() -> None:
    question = "What is the safe working load of the Morwick crane?"
    tested = "The Morwick crane was proof-tested with a load of 30 tonnes."
    rated = "The Morwick crane has a safe working load of 20 tonnes."
    assert _settled(question, tested, rated) == "b"
    assert _settled(question, rated, tested) == "a"
    plain = "What load can the Morwick crane lift?"
    assert _settled(plain, tested, rated) is None  # the question names no qualifier
    other = "The Morwick crane has a rated load of 25 tonnes."
    assert _settled(question, other, "The Morwick crane lifts 40 tonnes.") is None


def test_an_able_qualifier_is_asked_by_its_verb() -> None:
    question = "How much of its battery's capacity can the Lindow ferry actually use?"
    usable = "The Lindow ferry's battery has a usable capacity of 440 kWh."
    gross = "The Lindow ferry's battery has a gross capacity of 520 kWh."
    assert _settled(question, gross, usable) == "b"
