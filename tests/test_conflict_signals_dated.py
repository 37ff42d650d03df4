"""More that orders or reconciles two disagreeing statements: a decimal comma, a time with a
dot before "pm", stones against pounds, a month in Roman numerals, ISO weeks, an e-mail "Date:"
header, a census year, a date in a source's address, an anniversary, "Valid until", "[sic]", a
figure held until a year against one in the present tense, parts that add up to the other's
figure, and hearsay against a finding."""

from __future__ import annotations

import pytest

from framework.memory import EvidenceRecord
from teams.hypothesis.verdicts import newer_side, order_reason, standing_of
from teams.language import disagreement, values_agree, values_in
from teams.language.contradiction import claim_of, correction_of
from teams.language.dates import date_at
from teams.language.values import stated_date


def _side(text: str, name: str, date: str | None = None) -> EvidenceRecord:
    return EvidenceRecord(text=text, source=f"{name}:3", path=name, date=date)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The Orm weir is 1,8 metres high.", "The Orm weir is 1.8 m high."),
        ("The Pell gate opens at 9.15 am.", "The Pell gate opens at 09:15."),
        ("The last Pell tram leaves at 7.45 p.m.", "The last Pell tram leaves at 19:45."),
        ("The Corve anchor weighs 12 stone.", "The Corve anchor weighs 168 lb."),
    ],
)
def test_one_value_in_two_notations_is_no_conflict(first: str, second: str) -> None:
    assert disagreement(first, second) is None


def test_a_decimal_comma_is_read_only_before_a_unit() -> None:
    assert [v.number for v in values_in("The path is 3,75 m wide.")] == [3.75]
    assert [v.number for v in values_in("The path is 1,250 m long.")] == [1250.0]
    assert [v.number for v in values_in("Bays 4,6 and 9 are shut.")] == [4.0, 6.0, 9.0]


def test_a_price_per_month_is_no_time_of_day() -> None:
    assert [v.label for v in values_in("Parking costs £2.50 pm.")] == ["GBP 2.50"]


def test_stone_before_the_noun_it_describes_is_no_weight() -> None:
    assert [v.kind for v in values_in("The gate has two stone posts.")] == ["count", "material"]
    weight = values_in("The sack weighs 8 stone.")[0]
    assert weight.kind == "quantity" and values_agree(weight, values_in("It is 112 pounds.")[0])


@pytest.mark.parametrize(
    ("token", "label"),
    [
        ("2.VI.2019", "2019-06-02"),
        ("30/xi/1987", "1987-11-30"),
        ("2019-W23", "2019-06"),  # 3 to 9 June
        ("2019-W23-2", "2019-06-04"),
        ("2019W22", "2019"),  # 27 May to 2 June: only the year is sure
    ],
)
def test_a_roman_month_and_an_iso_week_are_dates(token: str, label: str) -> None:
    read = date_at([token], 0)
    assert read is not None and read[0].label == label


def test_an_iso_week_across_two_years_and_a_bad_roman_month_are_no_date() -> None:
    assert date_at(["2019-W01"], 0) is None  # 31 December 2018 to 6 January 2019
    assert date_at(["3.XIV.2019"], 0) is None


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Inspected 2.VI.2019.\n\nThe weir is 2 m high.", "2019-06-02"),
        (
            "To: the clerk\nDate: Mon, 3 Jun 2019 10:00:00 +0100\n\nThe hall has 90 seats.",
            "2019-06-03",
        ),
        ("At the 2001 census the parish had 900 homes.", "2001"),
        (
            "Retrieved from: https://blog.example.org/2018/11/05/the-pier\n\nThe pier is long.",
            "2018-11-05",
        ),
        ("The school was founded in 1900. This history marks its 75th anniversary.", "1975"),
        ("The mill was built in 1850; a booklet for its hundredth anniversary.", "1950"),
    ],
)
def test_a_passage_is_dated_by_its_header_census_address_or_anniversary(
    text: str, date: str
) -> None:
    assert stated_date("Notes", text) == date


def test_an_address_in_prose_or_an_anniversary_of_two_foundings_dates_nothing() -> None:
    assert stated_date("Notes", "See https://blog.example.org/2018/11/the-pier for more.") is None
    two = "The hall opened in 1900 and the annexe opened in 1930; for the 50th anniversary."
    assert stated_date("Notes", two) is None


def test_the_year_of_a_census_is_no_count_of_it() -> None:
    assert [v.kind for v in values_in("By the 2011 census, Oska had 412 homes.")] == [
        "date",
        "count",
    ]


def test_a_notice_valid_until_before_the_other_is_dated_upholds_the_other() -> None:
    line = _side("Valid until 30 June 2018.", "old")
    old = _side("A day ticket costs £4.10.", "old")
    new = _side("A day ticket costs £4.60.", "new", "2018-07-01")
    assert standing_of(line, old, new) == ("expired", new)
    assert standing_of(line, old, _side(new.text, "new", "2018-05-01")) is None
    assert standing_of(line, old, _side(new.text, "new", "2018")) is None
    assert standing_of(line, old, _side(new.text, "new")) is None


def test_a_figure_quoted_with_sic_is_rejected() -> None:
    first, second = "The Awe bridge spans 120 feet.", "The Awe bridge spans 102 feet."
    note = 'The county leaflet gives the Awe bridge span as "120 feet" [sic].'
    assert correction_of(note, first, second) == second
    assert not claim_of('The Awe sign reads "Brigde Street" [sic].').correction


def test_a_figure_in_the_present_outranks_one_held_in_the_past_until_a_year() -> None:
    then = _side("The Oska pool had 6 lanes until it was enlarged in 2015.", "a")
    now = _side("The Oska pool has 8 lanes.", "b")
    assert newer_side(then, now) is now
    assert newer_side(then, _side(now.text, "b", "2010")) is None


def test_parts_that_add_up_to_the_other_figure_undermine_a_total() -> None:
    total = _side("The Lode farm has 30 fields: 12 arable and 20 pasture.", "a")
    other = _side("The Lode farm has 32 fields.", "b")
    assert newer_side(total, other) is other
    assert order_reason(other, total) is not None
    kept = _side("The Lode farm has 32 fields: 12 arable and 20 pasture.", "a")
    assert newer_side(kept, _side("The Lode farm has 30 fields.", "b")) is None


def test_hearsay_gives_way_to_a_finding() -> None:
    told = _side("The Wenn oak is said to be 900 years old.", "a")
    found = _side("The Wenn oak is 610 years old.", "b")
    assert newer_side(told, found) is found
    also = _side("Local legend holds that the Wenn oak is 610 years old.", "b")
    assert newer_side(told, also) is None
    passed_on = _side("A mate of mine who walks there reckons the oak is 900 years old.", "c")
    assert newer_side(passed_on, found) is found


def test_a_year_and_a_date_in_it_are_not_ordered() -> None:
    assert (
        newer_side(
            _side("It has 4 bells.", "a", "2023"), _side("It has 6 bells.", "b", "2023-04-02")
        )
        is None
    )
