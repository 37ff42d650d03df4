"""Dating signals and notations read before two statements compare: timestamps with UTC
offsets written apart from their date, a French dating phrase, "Printed" and "retrieved" dates,
a month abbreviated between day and year, the years a figure's counts cover, a count with a "k"
suffix, fathoms, a review-due date, and a figure as built against the one planned."""

from __future__ import annotations

import pytest

from framework.memory import EvidenceRecord
from teams.hypothesis.verdicts import newer_side, order_reason, standing_of
from teams.language import disagreement
from teams.language.dates import date_at
from teams.language.values import stated_date


def _side(text: str, name: str, date: str | None = None) -> EvidenceRecord:
    return EvidenceRecord(text=text, source=f"{name}:3", path=name, date=date)


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Posted: 2019-03-02 06:10 +09:00\n\nThe mill has 5 sails.", "2019-03-01T21:10Z"),
        ("Posted: 2019-03-01 22:05 -01:00", "2019-03-01T23:05Z"),
        ("Published 2019-03-01 08:00 UTC", "2019-03-01T08:00Z"),
        ("Posted: 2019-03-01 22:05", "2019-03-01"),
    ],
)
def test_a_timestamp_with_its_offset_written_apart_is_read_in_utc(text: str, date: str) -> None:
    assert stated_date("", text) == date


def test_the_later_local_date_may_be_the_earlier_moment() -> None:
    east = _side(
        "The weir has 7 gates.", "east", stated_date("", "Posted: 2019-03-02 06:10 +09:00")
    )
    west = _side(
        "The weir has 9 gates.", "west", stated_date("", "Posted: 2019-03-01 22:05 -01:00")
    )
    assert newer_side(east, west) is west


def test_a_utc_time_and_a_local_day_beside_it_are_not_ordered() -> None:
    zoned = _side("The weir has 7 gates.", "zoned", "2019-03-01T21:10Z")
    local = _side("The weir has 9 gates.", "local", "2019-03-02")
    assert newer_side(zoned, local) is None
    assert newer_side(zoned, _side("The weir has 9 gates.", "later", "2019-03-04")) is not zoned


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Mis à jour le 9 juillet 2020.", "2020-07-09"),
        ("Publié le 1er mars 2018.", "2018-03-01"),
        ("Printed 2016.", "2016"),
        ("First printed 1990; reprinted without changes 2021.", "1990"),
        ("It has 4 bells (source: parish website, retrieved 5 May 2019).", "2019-05-05"),
        ("Revised: 21-SEP-2020", "2020-09-21"),
        ("From counts for 2011–2014, the lane carries 900 cars a day.", "2014"),
    ],
)
def test_dating_phrases_in_more_forms(text: str, date: str) -> None:
    assert stated_date("", text) == date


def test_a_month_abbreviated_between_day_and_year_is_a_date() -> None:
    read = date_at(["21-SEP-2020"], 0)
    assert read is not None and read[0].label == "2020-09-21"
    assert date_at(["21-ABC-2020"], 0) is None


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The Brill estate has 2.5k trees.", "The Brill estate has 2,500 trees."),
        ("The Yarn channel is 4 fathoms deep.", "The Yarn channel is 24 feet deep."),
    ],
)
def test_one_value_in_two_notations_is_no_conflict(first: str, second: str) -> None:
    assert disagreement(first, second) is None


def test_a_k_suffix_still_disagrees_with_another_count() -> None:
    assert disagreement("The Brill estate has 2.5k trees.", "The Brill estate has 2,600 trees.")


def test_a_review_due_date_bounds_when_its_page_was_written() -> None:
    note = _side("Next review due: June 2009.", "policy")
    own = _side("The Alder school has 9 classrooms.", "policy")
    other = _side("The Alder school has 12 classrooms.", "prospectus", "2015")
    found = standing_of(note, own, other)
    assert found is not None and found[1] is other
    assert standing_of(note, own, _side("It has 12 classrooms.", "prospectus", "2008")) is None


def test_the_figure_as_built_outranks_the_one_planned() -> None:
    plans = _side("The first designs for the Orrin dam show 5 sluices.", "plans")
    built = _side("As built, the Orrin dam has 6 sluices.", "history")
    assert newer_side(plans, built) is built
    assert order_reason(built, plans) is not None
    both = _side("As built, it kept the 5 sluices of the original plans.", "notes")
    assert newer_side(both, built) is None


@pytest.mark.parametrize(
    "text",
    ["The bell was retrieved on 3 May 1985 from the river.", "The map was printed in 1850."],
)
def test_an_event_told_with_printed_or_retrieved_does_not_date_its_page(text: str) -> None:
    assert stated_date("", text) is None
