"""A conflict no source decides is settled by the case the question asks about, when one side's
opening phrase sets its figure apart for another case ("As the crow flies, ...", "For groups of
ten or more, ..."); a figure corrected as it is said is read as meant; a page that names the
other's title as where its figure was said gives way; years of the Ethiopian and Hebrew
calendars are read as Gregorian years."""

from __future__ import annotations

from framework.memory import Conflict, EvidenceRecord
from teams.hypothesis.asked import words_asked_resolution
from teams.hypothesis.verdicts import _misquoting
from teams.language.calendars import plain_dates
from teams.language.values import stated_date, values_in


def _settled(question: str, first: str, second: str) -> str | None:
    a = EvidenceRecord(text=first, source="a.md:3")
    b = EvidenceRecord(text=second, source="b.md:3")
    conflict = Conflict(id="c1", description="they differ", source_a=a.id, source_b=b.id)
    resolution = words_asked_resolution(conflict, question, a, b)
    if resolution is None:
        return None
    return "a" if resolution.resolved_by == a.id else "b"


def test_the_side_whose_opening_phrase_the_question_names_answers_it() -> None:
    question = "How far is it on foot from Arden to Bly?"
    straight = "As the crow flies, Bly lies 6 miles from Arden."
    walked = "On foot, Bly is 9 miles from Arden."
    assert _settled(question, straight, walked) == "b"
    assert _settled(question, walked, straight) == "a"


def test_a_figure_set_apart_for_a_case_not_asked_gives_way_to_a_plain_one() -> None:
    question = "What does a child's ticket to the Orme aquarium cost?"
    group = "For school parties of twenty or more, a child's ticket to the Orme aquarium costs £6."
    plain = "A child's ticket to the Orme aquarium costs £8."
    assert _settled(question, group, plain) == "b"


def test_sides_without_opening_phrases_or_a_phrase_the_question_holds_stay_open() -> None:
    assert _settled("How many rooms has Vey hall?", "Vey hall has 32 rooms.", "It has 23.") is None
    question = "For groups, what does a ticket to Orme cost?"
    group = "For groups, a ticket to Orme costs £6."
    other = "For members, a ticket to Orme costs £4."
    assert _settled(question, group, other) == "a"
    said = "As the warden said on Radio Orme, the Orme aquarium has 40 tanks."
    assert _settled("How many tanks has the Orme aquarium?", said, "It has 30 tanks.") is None


def test_a_figure_corrected_as_it_is_said_is_read_as_meant() -> None:
    (count,) = values_in("WARDEN: The Orme aquarium has thirty — sorry, thirteen — tanks.")
    assert count.number == 13
    (length,) = values_in("The Bly pier is 80 - I mean 90 - metres long.")
    assert length.number == 90


def test_a_page_naming_the_other_as_where_its_figure_was_said_gives_way() -> None:
    quoted = EvidenceRecord(
        text="As the warden said on Radio Orme, the aquarium has thirty tanks.",
        source="a.md:3",
        path="a.md",
    )
    spoken = EvidenceRecord(
        text="WARDEN: The aquarium has thirteen tanks.",
        source="b.md:3",
        path="b.md",
        title="Radio Orme: the warden of the aquarium",
    )
    assert _misquoting(quoted, spoken) is quoted


def test_ethiopian_and_hebrew_calendar_years_are_read_as_gregorian_years() -> None:
    assert plain_dates("Revised in 2012 E.C.") == "Revised in 2019"
    assert plain_dates("Surveyed in 5779 AM.") == "Surveyed in 2018."
    assert plain_dates("Revised in the Hebrew year 5779.") == "Revised in 2018."
    assert plain_dates("Open from 9 AM 2015") == "Open from 9 AM 2015"


def test_minguo_years_and_a_date_time_group_are_read_as_gregorian_dates() -> None:
    assert plain_dates("Revised: Minguo 105 (民國105年).") == "Revised: 2016."
    assert plain_dates("Surveyed 民國99年") == "Surveyed 2010"
    assert plain_dates("DTG 020915Z JUL 19") == "Dated 2019-07-02"
    assert plain_dates("DTG 310915Z FEB 19") == "DTG 310915Z FEB 19"  # no such day
    assert stated_date("", "DTG 020915Z JUL 19\n\nThe bar is 2 metres deep.") == "2019-07-02"
