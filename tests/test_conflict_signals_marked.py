"""Signals a page gives of its date and standing in its markup or its wording: a data block's
modified date, a weekday that settles a numeric date's order, an age ("updated 3 months ago"),
a post-release label, provisional and final figures, the year a question asks about; and
figures read in power units and with apostrophes between thousands."""

from __future__ import annotations

from datetime import date, timedelta

from framework.memory import Conflict, EvidenceRecord
from teams.hypothesis.verdicts import newer_side, standing_note, year_asked_resolution
from teams.language import values_in
from teams.language.calendars import plain_dates
from teams.language.values import stated_date, values_agree


def _side(text: str, name: str, title: str = "", day: str | None = None) -> EvidenceRecord:
    return EvidenceRecord(text=text, source=f"{name}:3", path=name, title=title, date=day)


def test_a_data_block_dates_its_page_by_its_modified_key() -> None:
    block = '```json\n{"id": "pier", "dateModified": "2022-07-14T09:30:00Z"}\n```\n\nText.'
    assert stated_date("Pier notes", block) == "2022-07-14"
    script = '<script type="application/ld+json">{"date_modified": "2019-02-01"}</script>'
    assert stated_date("Pier notes", f"The pier is long.\n\n{script}") == "2019-02-01"
    assert stated_date("Pier notes", "last_updated: 2020-05-06\n\nText.") == "2020-05-06"


def test_a_weekday_settles_which_reading_of_a_numeric_date_is_meant() -> None:
    # 5 June 2019 was a Wednesday, 6 May 2019 a Monday
    assert plain_dates("Revised: Wednesday 05/06/2019") == "Revised: 2019-06-05"
    assert plain_dates("Revised: Monday 05/06/2019") == "Revised: 2019-05-06"
    assert stated_date("Pier", "Revised: Wed. 05/06/2019\n\nText.") == "2019-06-05"
    assert plain_dates("Revised Friday, 7 June 2019") == "Revised 7 June 2019"
    assert plain_dates("Open Monday to Friday") == "Open Monday to Friday"


def test_an_age_on_a_changed_line_is_read_back_from_today() -> None:
    weeks_ago = (date.today() - timedelta(days=14)).isoformat()
    assert stated_date("Pier", "Last updated two weeks ago.\n\nText.") == weeks_ago
    older = stated_date("Pier", "Edited 4 years ago.\n\nText.")
    assert older is not None and older < weeks_ago
    assert plain_dates("The pier was built 90 years ago.") == "The pier was built 90 years ago."


def test_a_post_release_comes_after_its_release_and_a_pre_release_before() -> None:
    base = _side("The pool has 6 lanes.", "a.md", "Pool handbook, release 3.2")
    post = _side("The pool has 8 lanes.", "b.md", "Pool handbook, release 3.2.post2")
    assert newer_side(base, post) is post
    alpha = _side("The pool has 5 lanes.", "c.md", "Pool handbook, release 3.2a1")
    assert newer_side(alpha, base) is base
    development = _side("The pool has 4 lanes.", "d.md", "Pool handbook, release 3.2.dev1")
    assert newer_side(alpha, development) is alpha


def test_provisional_figures_are_a_draft_and_final_ones_final() -> None:
    assert standing_note("Preliminary results for 2021, to be revised.", "") == "draft"
    assert standing_note("Audited figures for 2021.", "") == "final"
    assert standing_note("The final whistle blew at five.", "") is None


def test_the_year_a_question_asks_about_decides_between_two_years() -> None:
    conflict = Conflict(id="c1", description="counts", source_a="x", source_b="y")
    then = _side("The quay has 12 cranes.", "q2011.md", day="2011")
    now = _side("The quay has 30 cranes.", "q2024.md", day="2024")
    asked = "How many cranes did the quay have in 2011?"
    settled = year_asked_resolution(conflict, asked, then, now)
    assert settled is not None and settled.resolved_by == then.id
    assert year_asked_resolution(conflict, "How many cranes does the quay have?", then, now) is None
    both = _side("The quay had 14 cranes in 2011.", "q-later.md", day="2024")
    assert year_asked_resolution(conflict, "How many in 2011?", then, both) is None


def test_power_in_horsepower_and_kilowatts_agree_and_differ() -> None:
    kilowatts = values_in("The pump is rated at 373 kW.")[0]
    horsepower = values_in("The pump is rated at 500 hp.")[0]
    assert values_agree(kilowatts, horsepower)
    assert not values_agree(kilowatts, values_in("The pump is rated at 800 hp.")[0])
    assert values_in("It cruises at 14 knots.")[0].key == "speed"


def test_apostrophes_between_thousands_are_one_figure() -> None:
    (count,) = values_in("The archive holds 48'200 letters.")
    assert count.number == 48200 and count.key == "letter"
    assert [v.number for v in values_in("He was 6'2 and said '12' once")] != [6200.0]


def test_a_layout_that_multiplies_to_the_other_figure_undermines_its_own() -> None:
    laid_out = _side("The Orme chapel has 96 seats, set out in 10 rows of 12.", "a.md")
    plain = _side("The Orme chapel has 120 seats.", "b.md")
    assert newer_side(laid_out, plain) is plain
    fitting = _side("The Orme chapel has 120 seats, set out in 10 rows of 12.", "c.md")
    assert newer_side(fitting, _side("The Orme chapel has 96 seats.", "d.md")) is None
