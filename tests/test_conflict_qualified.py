"""A figure its own words qualify gives way to a plain one: a figure that never came to be, one
that held for a while only, one from a source that sells the thing, one given for a part of
the thing the question is about, a count that takes in things gone, one occasion's record, a
rate, a total of several years, a class's figure, an aim, a sample to be replaced, a tally while
the event ran, an answer voted down, a wish, a hyperbole, a figure read off a name, a post tagged
as sarcasm; a press embargo and a git log date dating a page; an angle in degrees and minutes
agreeing with it in degrees; a statement's time words and words of being no part of its
subject."""

from __future__ import annotations

import pytest

from framework.memory import EvidenceRecord
from teams.hypothesis.verdicts import _undermined, order_reason
from teams.language.contradiction import disagreement
from teams.language.values import stated_date, values_agree, values_in

CASES = [
    (
        "Had the money not run out in 1931, the Arle weir would have been 30 metres high.",
        "The Arle weir is 22 metres high.",
        "",
        "never reached",
    ),
    (
        "For the week of the 2021 show only, the Danby jetty was extended to 75 metres.",
        "The Danby jetty is 40 metres long.",
        "",
        "a while's",
    ),
    (
        "While the relining works ran, from May to July 2018, the Kell pool had 4 lanes.",
        "The Kell pool has 8 lanes.",
        "",
        "a while's",
    ),
    (
        "The Mire house has 30 rooms.",
        "The Mire house has 24 rooms.",
        "Mire house: sales brochure",
        "advertisement",
    ),
    (
        "Across the river, the main arch of the Sollen viaduct is 80 metres long.",
        "The Sollen viaduct is 310 metres long.",
        "",
        "a part's",
    ),
    (
        "The north terrace at the Brook Lane ground holds 2,100 spectators.",
        "The Brook Lane ground holds 9,000 spectators.",
        "",
        "a part's",
    ),
    (
        "Carn has 9 limekilns, counting the three pulled down in 1962.",
        "Six limekilns stand in Carn today.",
        "",
        "what is gone",
    ),
    (
        "In 1948 a record crowd of 9,900 packed the Kell Road ground.",
        "The Kell Road ground holds 4,100 spectators.",
        "",
        "one occasion's",
    ),
    (
        "Morwen has 31 bus stops per 10,000 residents.",
        "Morwen has 44 bus stops.",
        "",
        "a rate",
    ),
    (
        "Across 2019 and 2020 together, the Tolt museum had 51,000 visitors.",
        "In 2020 the Tolt museum had 23,000 visitors.",
        "",
        "a total of several",
    ),
    (
        "Windmills of this pattern were built about 20 metres tall, the Orr windmill among them.",
        "The Orr windmill is 17 metres tall.",
        "",
        "its class's",
    ),
    (
        "14:10 So far, 610 riders have finished the Gale sportive.",
        "1,480 riders finished the Gale sportive.",
        "",
        "a tally while it ran",
    ),
    (
        "The Brack moor society aims to have built 40 cairns on Brack moor by 2031.",
        "So far, 26 cairns have been built on Brack moor.",
        "",
        "aimed at",
    ),
    (
        "Example entry: The Hobb mill has 5 floors.",
        "The Hobb mill has 7 floors.",
        "",
        "a sample",
    ),
    (
        "The Skel tunnel is 900 metres long.",
        "The Skel tunnel is 1,200 metres long.",
        "Answer (score: -4)",
        "voted down",
    ),
    (
        "I only wish the Brede baths were 25 metres long.",
        "The Brede baths are 18 metres long.",
        "",
        "never reached",
    ),
    (
        "There must be a hundred arches on the Tarr viaduct!",
        "The Tarr viaduct has 27 arches.",
        "",
        "how it felt",
    ),
    (
        "As its name says, the Nine Wells in Brede has 9 wells.",
        "Despite its name, the Nine Wells in Brede has 7 wells.",
        "",
        "off the name",
    ),
    (
        "The Hobb causeway is 9 kilometres long (said as sarcasm).",
        "The Hobb causeway is 800 metres long.",
        "",
        "sarcasm",
    ),
]


@pytest.mark.parametrize(("qualified", "plain", "title", "said"), CASES)
def test_a_qualified_figure_gives_way_to_a_plain_one(
    qualified: str, plain: str, title: str, said: str
) -> None:
    loser = EvidenceRecord(text=qualified, source="a.md:3", title=title)
    winner = EvidenceRecord(text=plain, source="b.md:3")
    assert _undermined(loser, winner) is loser
    assert _undermined(winner, loser) is loser
    assert said in (order_reason(winner, loser) or "")


def test_a_measure_of_the_thing_is_no_part_of_it() -> None:
    one = EvidenceRecord(text="The length of the Sollen viaduct is 310 metres.", source="a.md:3")
    other = EvidenceRecord(text="The Sollen viaduct is 300 metres long.", source="b.md:3")
    assert _undermined(one, other) is None


def test_the_parts_both_sides_count_are_no_part_against_the_whole() -> None:
    listed = EvidenceRecord(
        text="The galleries of the Fenn museum are the Map Room, the Coin Room and the Print Room.",
        source="a.md:3",
    )
    counted = EvidenceRecord(text="The Fenn museum has four galleries.", source="b.md:3")
    assert _undermined(listed, counted) is not listed


def test_a_press_embargo_and_a_git_log_date_date_their_pages() -> None:
    embargoed = "EMBARGOED UNTIL 00:01, 14 March 2024\n\nThe Ash ward has 30 beds."
    assert stated_date("", embargoed) == "2024-03-14"
    logged = "commit 4e1c9a0\nDate:   Tue Apr 12 09:14:03 2016 +0100\n\nThe Ash quay has 80 berths."
    assert stated_date("", logged) == "2016-04-12"


def test_an_angle_in_degrees_and_minutes_agrees_with_it_in_degrees() -> None:
    (minutes,) = values_in("The Ness light stands at 57°15′N.")
    (degrees,) = values_in("The Ness light stands at a latitude of 57.25° N.")
    assert values_agree(minutes, degrees)
    (other,) = values_in("The Ness light stands at 57.3° N.")
    assert not values_agree(minutes, other)


def test_when_and_that_a_thing_is_are_no_part_of_what_a_statement_is_about() -> None:
    counted = "Carn has 9 limekilns, counting the three pulled down in 1962."
    assert disagreement(counted, "Six limekilns stand in Carn today.") is not None
