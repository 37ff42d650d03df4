"""Values written in other forms read to one value before two statements compare: dates in
words, ISO and numeric forms (a numeric date whose day and month could be swapped agrees with
nothing it might not be), counts against the lists a source gives, and relative changes
against the figure they change."""

from __future__ import annotations

import pytest

from teams.language import disagreement, values_in
from teams.language.changes import resolve_relative_changes
from teams.language.dates import settle_date_order
from teams.language.enumerations import count_enumerations


def _dates(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(v.label, v.readings) for v in values_in(text) if v.kind == "date"]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("It reopened on 3 April 2021.", "2021-04-03"),
        ("It reopened on 3rd of April, 2021.", "2021-04-03"),
        ("It reopened on the third of April 2021.", "2021-04-03"),
        ("It reopened on April 3, 2021.", "2021-04-03"),
        ("It reopened on Apr 3rd 2021.", "2021-04-03"),
        ("It reopened on Sept 30 2021.", "2021-09-30"),
        ("It reopened on 2021-04-03.", "2021-04-03"),
        ("It reopened on 2021/4/3.", "2021-04-03"),
        ("It reopened on 23/06/1998.", "1998-06-23"),
        ("It reopened on 06.23.1998.", "1998-06-23"),
        ("It reopened in April 2021.", "2021-04"),
        ("It reopened in 2021.", "2021"),
    ],
)
def test_a_date_in_any_common_form_reads_as_one_iso_date(text: str, label: str) -> None:
    assert _dates(text) == [(label, ())]


def test_a_numeric_date_day_and_month_could_swap_in_keeps_both_readings() -> None:
    assert _dates("It reopened on 03/04/2021.") == [("03/04/2021", ("2021-03-04", "2021-04-03"))]
    assert _dates("It reopened on 04/04/2021.") == [("2021-04-04", ())]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The bridge reopened on 3 April 2021.", "The bridge reopened on 04/05/2021."),
        ("The bridge reopened on 5 February 2016.", "The bridge reopened on 02/05/2016."),
        ("The bridge reopened on 2 May 2016.", "The bridge reopened on 02/05/2016."),
        ("The bridge reopened on 3 April 2021.", "The bridge reopened on 5 April 2021."),
        ("The bridge reopened on 2021-04-03.", "The bridge reopened on April 4, 2021."),
    ],
)
def test_dates_that_differ_or_may_differ_disagree(first: str, second: str) -> None:
    assert disagreement(first, second) is not None
    assert disagreement(second, first) is not None


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The bridge reopened on 2021-04-03.", "The bridge reopened on 3 April 2021."),
        ("The bridge reopened on 23/06/1998.", "The bridge reopened on June 23, 1998."),
        ("The bridge reopened on 03/04/2021.", "The bridge reopened on 03/04/2021."),
        ("The bridge reopened on 03/04/2021.", "The bridge reopened in 2021."),
        ("The bridge reopened on 3 April 2021.", "The bridge reopened in April 2021."),
    ],
)
def test_one_date_in_other_forms_agrees(first: str, second: str) -> None:
    assert disagreement(first, second) is None


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        (
            "The galleries of the museum are the Map Room, the Coin Room and the Print Room.",
            "The galleries of the museum are the Map Room, the Coin Room and the Print Room "
            "(3 galleries).",
        ),
        (
            "The museum's towers were North Tower and South Tower.",
            "The museum's towers were North Tower and South Tower (2 towers).",
        ),
        (
            "The platforms of the station are:\n\n- Platform 1\n- Platform 2\n* Platform 3\n\nEnd.",
            "The platforms of the station are (3 platforms):\n\n- Platform 1\n- Platform 2\n"
            "* Platform 3\n\nEnd.",
        ),
        (
            "It has the following rooms:\n- Hall\n  - with a stage\n  - and a bar\n- Kitchen",
            "It has the following rooms (2 rooms):\n- Hall\n  - with a stage\n  - and a bar\n"
            "- Kitchen",
        ),
    ],
)
def test_a_complete_list_of_names_gets_its_count(text: str, counted: str) -> None:
    assert count_enumerations(text) == counted


@pytest.mark.parametrize(
    "text",
    [
        "The galleries include the Map Room, the Coin Room and the Print Room.",
        "The main galleries are the Map Room, the Coin Room and the Print Room.",
        "The galleries are the Map Room, the Coin Room and others.",
        "The walls are thick and white.",
        "The four galleries are the Map Room, the Coin Room, the Print Room and the Hall.",
        "The platforms include:\n- Platform 1\n- Platform 2",
        "The platforms are:\n- Platform 1\nThat is all.",
        "The flow is as follows:\n- Connect\n- Send",
        "It supports these headers:\n- Host\n- Date",
        "Useful options are:\n- Name\n- Size",
    ],
)
def test_a_list_that_may_be_incomplete_or_is_no_list_of_names_is_not_counted(text: str) -> None:
    assert count_enumerations(text) == text


def test_a_count_disagrees_with_a_list_of_another_length() -> None:
    listed = count_enumerations(
        "The galleries of the Morrow museum are the Map Room, the Coin Room and the Print Room."
    )
    assert disagreement("The Morrow museum has four galleries.", listed) is not None
    assert disagreement("The Morrow museum has three galleries.", listed) is None


@pytest.mark.parametrize(
    ("text", "result"),
    [
        ("It had 20,000 visitors in 2019, and by 2023 the number had doubled.", "40,000 visitors"),
        ("It carried 12,000 passengers a day; by 2020 the figure had halved.", "6,000 passengers"),
        ("It had 300 members in 2012; by 2020 membership had risen by a third.", "400 members"),
        ("It had 500 pupils in 2015, and by 2022 the number had fallen by 20%.", "400 pupils"),
        ("It had 80 beds, and it has since tripled.", "240 beds"),
        ("It had 80 beds, and it has since trebled.", "240 beds"),
        ("It had 80 beds, and it has since quadrupled.", "320 beds"),
        ("It had 80 beds, and the total fell by a quarter.", "60 beds"),
        ("It had 90 beds, and the total fell by two thirds.", "30 beds"),
        ("It had 10 beds, and the total rose by a third.", "about 13 beds"),
        ("The tank held 2.5 litres; it was later increased by half.", "3.75 litres"),
        ("Fares were $40 in 2010 and have since risen by 15 per cent.", "USD 46"),
        ("The share was 40% in 2010 and it went up by a quarter.", "50 %"),
    ],
)
def test_a_relative_change_is_computed_against_its_figure(text: str, result: str) -> None:
    assert resolve_relative_changes(text) == text[:-1] + f" (to {result})."


@pytest.mark.parametrize(
    "text",
    [
        "The 12 km line was doubled in 1990.",
        "The bridge is 40 metres long, and traffic has doubled.",
        "It had 20,000 visitors in 2019. The number had doubled by 2023.",
        "Prices were $40, and they doubled to $80.",
        "The share was 40% in 2010 and it rose by 5 percentage points.",
        "It had 500 pupils, and the number rose by 200.",
        "Traffic has doubled.",
    ],
)
def test_a_change_with_no_figure_of_its_own_is_left_as_written(text: str) -> None:
    assert resolve_relative_changes(text) == text


def test_a_computed_change_disagrees_with_another_figure_and_agrees_with_its_own() -> None:
    changed = resolve_relative_changes(
        "The Fenn gallery had 20,000 visitors, and the number has since doubled."
    )
    assert disagreement(changed, "The Fenn gallery now has 50,000 visitors.") is not None
    assert "40,000 visitors" in changed


@pytest.mark.parametrize(
    ("series", "other", "differ"),
    [
        (
            "The hall had 200 seats in 1990, and 300 seats in 2000.",
            "The hall had 300 seats in 2000.",
            False,
        ),
        (
            "The hall had 200 seats in 1990, and 300 seats in 2000.",
            "The hall had 200 seats in 2000.",
            True,
        ),
        (
            "The hall had 200 seats in 1990, and 300 seats in 2000.",
            "The hall had 250 seats in 1990.",
            True,
        ),
        ("The bridge opened in 1932, and closed in 1936.", "The bridge opened in 1936.", True),
    ],
)
def test_values_at_several_dates_are_compared_at_the_date_the_other_states(
    series: str, other: str, differ: bool
) -> None:
    assert (disagreement(series, other) is not None) is differ
    assert (disagreement(other, series) is not None) is differ


@pytest.mark.parametrize(
    ("text", "settled"),
    [
        (
            "Opened on 23/06/1998; restored on 02/05/2016.",
            "Opened on 23/06/1998; restored on 02/05/2016 (2016-05-02).",
        ),
        (
            "Opened on 06.23.1998; restored on 02.05.2016.",
            "Opened on 06.23.1998; restored on 02.05.2016 (2016-02-05).",
        ),
        ("Restored on 02/05/2016 and 03/04/2017.", "Restored on 02/05/2016 and 03/04/2017."),
        ("Opened on 23/06/1998 and 06/23/1998.", "Opened on 23/06/1998 and 06/23/1998."),
    ],
)
def test_a_texts_own_dates_settle_the_order_of_its_ambiguous_ones(text: str, settled: str) -> None:
    assert settle_date_order(text) == settled


def test_a_settled_numeric_date_is_read_as_its_one_reading() -> None:
    settled = settle_date_order("It opened on 23/06/1998. It was restored on 02/05/2016.")
    assert _dates(settled) == [("1998-06-23", ()), ("2016-05-02", ())]
    restored = settled.split(". ")[1]
    assert disagreement("It was restored on 2 May 2016.", restored) is None
    assert disagreement("It was restored on 5 February 2016.", restored) is not None
