"""What decides between two figures when no third source does: the side's own words (read off
an instrument out of calibration, marked wrong, queried, only asked about, the figure of the
thing compared with), the court that decided on appeal, the larger poll, and the question's
own words (the dimension it asks, a total, the event it asks the time of); and two answers to
one question that share its words disagree even where their other words differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.memory import EvidenceRecord, MiniLMEmbedder
from teams.hypothesis.asked_kinds import asks_dimension
from teams.hypothesis.verdicts import _qualifier, _undermined
from teams.language.contradiction import disagreement
from tests.test_conflict_support import _findings


def _side(text: str, source: str = "a.md:3") -> EvidenceRecord:
    return EvidenceRecord(text=text, source=source)


@pytest.mark.parametrize(
    ("qualified", "plain"),
    [
        (
            "The kiln was weighed at 410 kg. Its calibration certificate had expired.",
            "The kiln was weighed at 380 kg.",
        ),
        ("Answer: The Orme bridge has 14 arches. \u2717", "The Orme bridge has 11 arches."),
        ("The Orme chapel was built in 1798 (?).", "The Orme chapel was built in 1803."),
        ("Is it true that the Orme mast is 52 metres tall?", "The Orme mast is 38 metres tall."),
        (
            "The Orme viaduct is longer than the 300-metre Kell viaduct.",
            "The Orme viaduct is 410 metres long.",
        ),
    ],
)
def test_a_figure_its_own_words_qualify_gives_way(qualified: str, plain: str) -> None:
    assert _qualifier(_side(qualified)) is not None
    assert _qualifier(_side(plain)) is None
    assert _undermined(_side(qualified), _side(plain, "b.md:3")).text == qualified


def test_the_court_below_gives_way_to_the_appeal_and_a_small_poll_to_a_large_one() -> None:
    below = _side("The county court awarded the Orme fishermen £120,000.")
    appeal = _side("The Court of Appeal allowed the appeal and awarded £85,000.", "b.md:3")
    assert _undermined(below, appeal) is below
    paper = _side("A newspaper said the Orme fishermen were awarded £100,000.", "b.md:3")
    assert _undermined(below, paper) is None  # no appeal: the court below stands
    small = _side("A straw poll of 12 passengers found that 75% want a later sailing.")
    large = _side("A survey of 3,400 passengers found that 41% want a later sailing.", "b.md:3")
    assert _undermined(small, large) is small
    close = _side("A survey of 900 passengers found that 44% want a later sailing.", "b.md:3")
    assert _undermined(close, large) is None  # not ten times fewer


def test_a_question_negates_nothing() -> None:
    asked = "Is the Orme pier really 600 metres long? *No replies yet.*"
    assert disagreement(asked, "Is the Orme pier really 600 metres long?") is None


@pytest.mark.parametrize(
    ("pages", "asked"),
    [
        (
            {
                "guide.md": "# Kell\n\nThe Kell footbridge is 4 metres wide, so bikes pass.\n",
                "bridge.md": "# The Kell footbridge\n\nThe Kell footbridge is 36 metres long.\n",
            },
            ("How long is the Kell footbridge?", "36 metres", "4 metres"),
        ),
        (
            {
                "news.md": "# Parish news\n\nThe new Kell churchyard wall cost £9,600 in all.\n",
                "quote.md": "# Quotation\n\nThe new Kell churchyard wall cost £120 per metre.\n",
            },
            ("How much did the new Kell churchyard wall cost in total?", "£9,600", "£120"),
        ),
        (
            {
                "walk.md": "# Town walk\n\nKell grammar school's present building dates from "
                "1884.\n",
                "school.md": "# Kell grammar school\n\nKell grammar school was founded in 1602.\n",
            },
            ("In what year was Kell grammar school founded?", "1602", "1884"),
        ),
        (
            {
                "forum.md": "# Walkers' forum\n\n**tidewatcher asked:** Is Kell pier really 600 "
                "metres long?\n\n*No replies yet.*\n",
                "pier.md": "# Kell pier\n\nKell pier is 420 metres long.\n",
            },
            ("How long is Kell pier?", "420 metres", "600 metres"),
        ),
    ],
)
def test_the_answer_to_the_question_asked_is_stated(
    tmp_path: Path, embedder: MiniLMEmbedder, pages: dict[str, str], asked: tuple[str, str, str]
) -> None:
    question, stated, not_stated = asked
    findings = _findings(tmp_path, embedder, pages, question)
    assert stated in findings and not_stated not in findings, findings


def test_two_answers_to_one_question_are_not_both_confirmed(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    pages = {
        "foundry.md": "# Recasting\n\nThe Kell tenor bell was weighed on the foundry's "
        "calibrated scales at 1,240 kg.\n",
        "news.md": "# Parish news\n\nThe Kell tenor bell was weighed on the Quenby farm "
        "weighbridge at 1,410 kg.\n",
    }
    findings = _findings(tmp_path, embedder, pages, "How much does the Kell tenor bell weigh?")
    assert not ("1,240 kg" in findings and "1,410 kg" in findings), findings


def test_a_question_of_an_extent_asks_for_a_figure() -> None:
    assert asks_dimension("How high did the Kell river rise in the flood?")
    assert asks_dimension("What is the length of the Kell pier?")
    assert not asks_dimension("When was the Kell pier built?")
