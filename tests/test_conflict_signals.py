"""What orders or reconciles two disagreeing statements beyond a plain date: dates in words,
timestamps, fiscal years, Roman years, decades, editions of a standard, a figure's time scope,
a forecast against its outcome, struck-out figures, footnoted table cells, a count said with a
verb, and one temperature in two scales."""

from __future__ import annotations

import pytest

from framework.memory import EvidenceRecord, Passage
from teams.hypothesis.sources import passage_evidence, readable
from teams.hypothesis.verdicts import newer_side, order_reason
from teams.language import disagreement, values_agree, values_in
from teams.language.changes import withdraw_struck
from teams.language.contradiction import correction_of
from teams.language.dates import date_at
from teams.language.standing import code_editions
from teams.language.tables import table_statements
from teams.language.values import stated_date


def _side(text: str, name: str, date: str | None = None, title: str = "") -> EvidenceRecord:
    return EvidenceRecord(text=text, source=f"{name}:3", path=name, date=date, title=title)


@pytest.mark.parametrize(
    ("tokens", "label"),
    [
        ("the twelfth of May , nineteen ninety-eight".split(), "1998-05-12"),
        ("third of June two thousand and nine".split(), "2009-06-03"),
        (["2020-11-30T08:05Z"], "2020-11-30T08:05Z"),
        (["2020-11-30T08:05+01:00"], "2020-11-30T07:05Z"),
        (["2020-11-30T08:05"], "2020-11-30T08:05"),
    ],
)
def test_a_date_is_read_with_its_year_in_words_or_its_time_of_day(
    tokens: list[str], label: str
) -> None:
    read = date_at([t for t in tokens if t != ","], 1 if tokens[0] == "the" else 0)
    assert read is not None and read[0].label == label


def test_a_year_in_words_before_a_counted_noun_is_no_date() -> None:
    assert date_at("fifth of May two thousand walkers".split(), 0) is None


@pytest.mark.parametrize(
    ("heading", "text", "date"),
    [
        ("Mill notes", "Amended on the second of July, two thousand and eleven.", "2011-07-02"),
        ("Byelaws", "In force from the fourth of March 2019.", "2019-03-04"),
        ("Notice", "Posted: 2020-11-30T08:05Z\n\nThe gate is shut.", "2020-11-30T08:05Z"),
        ("Published", "Published 2016-02-09.", "2016-02-09"),
        ("Dock board accounts FY21", "", "2021"),
        ("Dock board accounts FY2018/19", "", "2019"),
        ("Parish record MCMXCIX", "", "1999"),
        ("Ferry history", "In the 1970s, the ferry ran twice a day.", "1970"),
    ],
)
def test_a_passage_is_dated_by_words_labels_and_numerals(
    heading: str, text: str, date: str
) -> None:
    assert stated_date(heading, text) == date


def test_roman_letters_that_are_no_year_date_nothing() -> None:
    assert stated_date("MCC cricket notes", "") is None
    assert stated_date("The MIX tapes", "") is None


def test_a_numeric_date_read_either_way_dates_only_what_both_readings_share() -> None:
    assert stated_date("", "Revised 03/04/2021.") == "2021"


def test_timestamps_of_one_day_order_two_notices_only_when_both_have_their_zone() -> None:
    late = _side("The lock opens 6 times a day.", "late.md", "2020-11-30T16:00Z")
    early = _side("The lock opens 8 times a day.", "early.md", "2020-11-30T07:30Z")
    assert newer_side(early, late) is late
    local = _side("The lock opens 8 times a day.", "local.md", "2020-11-30T07:30")
    assert newer_side(local, late) is None
    day = _side("The lock opens 8 times a day.", "day.md", "2020-11-30")
    assert newer_side(day, late) is None


def test_a_decade_orders_only_against_a_year_outside_it() -> None:
    then = _side("In the 1970s, the ferry ran twice a day.", "then.md", "1970")
    now = _side("In 2015 the ferry ran four times a day.", "now.md", "2015")
    inside = _side("In 1976 the ferry ran four times a day.", "inside.md", "1976")
    assert newer_side(then, now) is now
    assert newer_side(then, inside) is None


def test_the_later_edition_of_a_standard_both_name_is_preferred() -> None:
    assert code_editions("Built to BS EN 1090-2:2018 and ISO 9001:2015.") == {
        "BS EN 1090-2": 2018,
        "ISO 9001": 2015,
    }
    old = _side("Under rule GHR-4:2003 the quay takes 9 boats.", "old.md")
    new = _side("Under rule GHR-4:2016 the quay takes 12 boats.", "new.md")
    assert newer_side(old, new) is new
    assert order_reason(new, old) == "follows a later edition of the standard (GHR 4:2016)"
    titled = _side("The quay takes 12 boats.", "t.md", title="Quay > GHR-4:2016")
    assert newer_side(old, titled) is titled
    other_code = _side("Under rule PLN-2:2016 the quay takes 12 boats.", "other.md")
    assert newer_side(old, other_code) is None


def test_an_edition_against_the_dates_orders_nothing() -> None:
    old = _side("Under rule GHR-4:2003 the quay takes 9 boats.", "old.md", "2021")
    new = _side("Under rule GHR-4:2016 the quay takes 12 boats.", "new.md", "2017")
    assert newer_side(old, new) is None


def test_a_line_that_only_names_a_standard_gives_way_to_the_figure_it_governs() -> None:
    passage = Passage(
        source="quay.md:1",
        path="quay.md",
        line=1,
        heading="Esk quay",
        text="Mooring rating to rule GHR-4:2016.\n\nThe Esk quay is rated for 12 boats.",
        score=0.9,
    )
    cited = passage_evidence(passage, "What mooring is the Esk quay rated for?")
    assert cited[0] == ("quay.md:3", "The Esk quay is rated for 12 boats.")


def test_a_figure_held_since_a_year_outranks_one_held_before_it() -> None:
    before = _side("Pool: 25 lanes (before the refit of 2012).", "list.md")
    since = _side("Since the refit of 2012, the pool has 20 lanes.", "pool.md")
    assert newer_side(before, since) is since
    assert newer_side(since, _side("The pool has 25 lanes.", "x.md")) is None


def test_an_outcome_outranks_the_forecast_of_the_same_event() -> None:
    forecast = _side("The 2019 regatta is expected to attract 90 crews.", "pre.md")
    outcome = _side("The 2019 regatta attracted 104 crews.", "post.md")
    assert newer_side(forecast, outcome) is outcome
    assert order_reason(outcome, forecast) == "reports the outcome of what pre.md:3 forecast"
    other_year = _side("The 2018 regatta attracted 80 crews.", "old.md")
    assert newer_side(forecast, other_year) is None
    after = _side("The 2019 regatta is expected to attract 90 crews.", "pre.md", "2020")
    assert newer_side(after, _side(outcome.text, "post.md", "2019")) is None
    undated = _side("The regatta will attract 90 crews.", "u.md")
    assert newer_side(undated, _side("The regatta attracted 104 crews.", "v.md")) is None


def test_a_struck_figure_before_a_new_one_is_rejected_and_the_rest_dropped() -> None:
    assert withdraw_struck("The weir is ~~3.5~~ 4 metres high.") == (
        "The weir is 4 metres high, not 3.5."
    )
    assert withdraw_struck("It opens ~~on Sundays~~ daily.\nNext") == "It opens daily.\nNext"
    struck = readable(
        Passage(
            source="w.md:1",
            path="w.md",
            line=1,
            heading="Weir",
            text="The weir is ~~3.5~~ 4 metres high.",
            score=1.0,
        )
    ).text
    plain = "The weir is 3.5 metres high."
    assert correction_of(struck, plain, struck) == struck


def test_a_footnoted_table_cell_keeps_its_note() -> None:
    text = "| Pool | Lanes |\n| --- | --- |\n| Esk pool | 25† |\n\n† Before the refit of 2012.\n"
    assert table_statements(text).split("\n")[2] == (
        "Esk pool: 25 lanes (before the refit of 2012)."
    )
    numbered = "| Pool | Lanes |\n| --- | --- |\n| Esk | 25[^a] |\n\n[^a]: Estimated.\n"
    assert table_statements(numbered).split("\n")[2] == "Esk pool: 25 lanes (estimated)."


def test_a_count_said_with_a_verb_of_its_thing_is_that_count() -> None:
    assert disagreement("Esk chapel: 120 seats.", "The Esk chapel seats 90 people.")
    changed = "The chapel's weekly services have doubled from 4 since the new vicar came."
    assert disagreement("The chapel holds 8 services a week.", changed) is None


@pytest.mark.parametrize(
    ("first", "second", "agree"),
    [
        ("15 °C", "59 °F", True),
        ("100 degrees Celsius", "212 degrees Fahrenheit", True),
        ("0 °C", "273.15 kelvin", True),
        ("15 °C", "61 °F", False),
        ("15 °C", "16 °C", False),
    ],
)
def test_a_temperature_is_one_value_across_its_scales(first: str, second: str, agree: bool) -> None:
    assert values_agree(values_in(first)[0], values_in(second)[0]) is agree


def test_two_scales_of_one_temperature_are_no_conflict() -> None:
    pool = "The Esk pool is kept at 28 °C."
    assert disagreement(pool, "The Esk pool is kept at 82.4 °F.") is None
    assert disagreement(pool, "The Esk pool is kept at 30 °C.")


def test_a_numbered_name_is_no_count_said_with_a_verb() -> None:
    listed = "The piers of Esk harbour are (3 piers): Pier 1, for ferries; Pier 2, for boats."
    assert disagreement("Esk harbour has 2 piers.", listed)
