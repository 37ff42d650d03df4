"""Conflicts a source's standing settles: a page whose footer says its answers may be
inaccurate (an AI assistant's, an OCR text not proofread, an unchecked machine translation;
a figure on such pages alone is not confirmed), a proposal closed without being
adopted, an edit reverted as vandalism, a fact-check rated false (its figure rejected), a
party's claim against a finding, a figure not yet confirmed, a nominal size, a test system's
figure, a figure of how it felt ("feels like -14 °C"), one set aside (disqualified, a rejected
bid, a map not to scale, a runner-up design), a prototype's figure, a day the calendar does not
have, one counted for each of another unit than the question's; the measure a sentence opens
with ("The median price of ...") and one sharing a word with it ("design speed" against "speed
limit"). Controls: a hexadecimal number is the decimal one, an age reached in a year gives the
year of birth, a figure its page says it rounds spans the rounding, carats are grams; a figure
below nought keeps its sign."""

from __future__ import annotations

from pathlib import Path

from framework.memory import EvidenceRecord, MiniLMEmbedder
from teams.hypothesis.judging import _another_measure
from teams.hypothesis.verdicts import _qualified, _undermined
from teams.language.outdated import drop_outdated, self_doubting
from teams.language.relative_dates import resolve_relative_dates
from teams.language.rounding import mark_rounded
from teams.language.values import values_agree, values_in
from tests.test_conflict_asked import _settled
from tests.test_conflict_support import _findings


def test_a_pages_own_word_on_its_standing_marks_each_of_its_figures() -> None:
    pages = {
        "its page says it may be inaccurate": (
            "# Chat\n\n**Bot:** The kiln shuts at 6 pm.\n\n"
            "*The assistant is an AI and its answers may be inaccurate.*\n"
        ),
        "in a proposal not adopted": (
            "# Pull request #41\n\n**Status:** Closed without merging.\n\n"
            "This makes the kiln hold 9 racks.\n"
        ),
        "in an edit reverted as vandalism": (
            "# History\n\n- 14:09 . . Ann (Reverted edits by 203.0.113.7: vandalism)\n"
            "- 14:02 . . 203.0.113.7 (The kiln is 61 metres tall)\n"
        ),
    }
    for marker, page in pages.items():
        read = drop_outdated(page)
        assert f"({marker})" in read, marker
        plain = EvidenceRecord(text="The kiln holds 8 racks.", source="a.md:3")
        marked = EvidenceRecord(text=f"The kiln holds 5 racks ({marker}).", source="b.md:5")
        assert _qualified(plain, marked) is marked and _qualified(marked, plain) is marked
    ocr = "Automatic OCR text, not proofread: characters may be misread.\n\nLit in 1858.\n"
    assert "Lit in 1858 (its page says it may be inaccurate)." in drop_outdated(ocr)
    for banner in (
        "This page was translated automatically from the Welsh original.",
        "Machine translation: the translation has not been checked.",
    ):
        translated = f"> {banner}\n\nThe kiln is 64 metres long.\n"
        assert "64 metres long (its page says it may be inaccurate)." in drop_outdated(translated)


def test_a_figure_whose_only_pages_doubt_it_is_not_confirmed(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    banner = "> This page was translated automatically. The translation has not been checked.\n\n"
    pages = {"kiln.md": f"# The Orme kiln\n\n{banner}The Orme kiln is 64 metres long.\n"}
    asked = "How long is the Orme kiln?"
    assert "64 metres" not in _findings(tmp_path, embedder, pages, asked)
    unresolved = _findings(tmp_path / "again", embedder, pages, asked, section="Unresolved")
    assert "Still validating" in unresolved and "64 metres" in unresolved, unresolved
    assert self_doubting("It is 64 metres long (its page says it may be inaccurate).")
    assert not self_doubting("It is 64 metres long.")


def test_the_metre_as_other_languages_spell_it_is_a_length() -> None:
    (welsh,) = values_in("Mae pont droed Llanferin yn 46 metr o hyd.")
    (english,) = values_in("The Llanferin footbridge is 46 metres long.")
    assert welsh.key == "length" and values_agree(welsh, english)
    assert values_in("La pasarela mide 3 kilometros.")[0].number == 3000  # in metres


def test_a_fact_check_rated_false_rejects_the_figure_its_title_asks_about() -> None:
    page = "Rating: False.\n\nThe mast is 214 metres tall, say the plans.\n"
    title = "Fact check: is the mast 410 metres tall?"
    assert drop_outdated(page, title).endswith(
        "The mast is 214 metres tall, say the plans, not 410.\n"
    )
    assert drop_outdated(page, "Fact check: the mast") == page  # no figure asked about
    true = "Rating: True.\n\nThe mast is 410 metres tall.\n"
    assert drop_outdated(true, title) == true


def test_a_claim_a_nominal_size_a_test_systems_a_felt_and_a_set_aside_figure_give_way() -> None:
    sides = (
        (
            "The claimant alleges that the works overran by 40 days.",
            "The court finds that the works overran by 12 days.",
        ),
        ("The water main is a nominal 150 mm pipe.", "The water main measured 142 mm inside."),
        (
            "On the staging cluster, the API allows 100 requests a minute.",
            "In production, the API allows 1,000 requests a minute.",
        ),
        (
            "With the wind chill, it felt like -14 °C on Hob Fell that night.",
            "That night the air temperature on Hob Fell fell to -6 °C.",
        ),
        (
            "The first runner home finished in 1:47:15 but was later disqualified.",
            "The race was won in a time of 1:52:40.",
        ),
        (
            "The bid of £310,000 from Dale Works to pave the quay was rejected.",
            "The contract to pave the quay was awarded for £365,000.",
        ),
        (
            "*Not to scale.* Measured off this sketch, the causeway is 2.6 km long.",
            "The survey measured the causeway at 1.8 km long.",
        ),
        (
            "The runner-up entry proposed a spire 90 metres tall for St Ebba's.",
            "The spire of St Ebba's is 72 metres tall.",
        ),
        (
            "The prototype of the Brede Wren, built in 1931, reached a top speed of 104 km/h.",
            "The production Brede Wren has a top speed of 88 km/h.",
        ),
    )
    for weaker, plain in sides:
        weak = EvidenceRecord(text=weaker, source="a.md:3")
        strong = EvidenceRecord(text=plain, source="b.md:3")
        assert _qualified(weak, strong) is weak, weaker
        assert _qualified(strong, weak) is weak, weaker


def test_the_measure_a_sentence_opens_with_or_shares_a_word_with() -> None:
    mean = "The mean price of a house sold in Tolby in 2023 was £412,000."
    median = "The median price of a house sold in Tolby in 2023 was £298,000."
    assert (
        _settled("What was the median price of a house sold in Tolby in 2023?", mean, median) == "b"
    )
    design = "The Skel bypass was built to a design speed of 120 km/h."
    limit = "The speed limit on the Skel bypass is 90 km/h."
    assert _settled("What is the speed limit on the Skel bypass?", design, limit) == "b"
    assert _settled("What is the design speed of the Skel bypass?", design, limit) == "a"


def test_a_day_the_calendar_does_not_have_gives_way() -> None:
    slip = EvidenceRecord(text="The library opened on 31 April 2017.", source="a.md:3")
    real = EvidenceRecord(text="The library opened on 13 April 2017.", source="b.md:3")
    assert _undermined(slip, real) is slip and _undermined(real, slip) is slip
    leap = EvidenceRecord(text="The library opened on 29 February 2020.", source="c.md:3")
    assert _undermined(leap, real) is None


def test_a_figure_below_nought_keeps_its_sign_and_a_range_its_own_units() -> None:
    read = [(value.label, round(value.number, 2)) for value in values_in("It fell to -6 °C.")]
    assert read == [("-6 °C", 267.15)]
    assert values_in("the air was −6 °C")[0].number == values_in("minus 6 °C")[0].number
    assert not values_agree(values_in("-6 °C")[0], values_in("6 °C")[0])
    ranged = values_in("It was 20-30 °C on walls of 20-30 metres.")
    assert [round(value.spread, 2) for value in ranged] == [5.0, 5.0]
    assert values_in("in 20-30 days")[0].label == "20 - 30 days"


def test_controls_carats_and_grams_of_one_stone() -> None:
    carats, grams = values_in("It weighs 5 carats."), values_in("It weighs 1 gram.")
    assert values_agree(carats[0], grams[0])


def test_controls_a_hexadecimal_port_and_a_birth_year_from_an_age() -> None:
    decimal, hexadecimal = values_in("It listens on port 8080."), values_in("port 0x1F90")
    assert values_agree(decimal[0], hexadecimal[0])
    aged = resolve_relative_dates("The potter turned 40 in 2020, the year of her show.")
    assert aged == "The potter turned 40 in 2020 (born in 1980), the year of her show."
    assert resolve_relative_dates(aged) == aged  # read once


def test_a_figure_its_page_rounds_spans_the_rounding() -> None:
    page = (
        "All figures on this page are rounded to the nearest hundred.\n\nIt had 12,300 visitors.\n"
    )
    marked = mark_rounded(page).split("\n")[2]
    assert marked == "It had 12,300 visitors (rounded to the nearest 100)."
    [rounded] = values_in(marked)
    assert rounded.number == 12_300 and rounded.spread == 50
    assert values_agree(rounded, values_in("It had 12,274 visitors.")[0])
    assert not values_agree(rounded, values_in("It had 12,420 visitors.")[0])
    assert mark_rounded("It had 12,300 visitors.") == "It had 12,300 visitors."


def test_a_figure_not_yet_confirmed_and_one_counted_for_another_unit_give_way() -> None:
    report = "Ann Roe ran it in 1:02:41, a new record. The time is not yet ratified: a check."
    marked = drop_outdated(report)
    assert marked.startswith("Ann Roe ran it in 1:02:41, a new record (not yet confirmed). The")
    weak = EvidenceRecord(text="Ann Roe ran it in 1:02:41 (not yet confirmed).", source="a.md:3")
    plain = EvidenceRecord(text="The record is 1:04:15.", source="b.md:3")
    assert _qualified(weak, plain) is weak and _qualified(plain, weak) is weak
    question = "How much water does one resident of Tarrow use a day?"
    household = "Each household on Tarrow uses 310 litres of water a day."
    resident = "Each resident of Tarrow uses 130 litres of water a day."
    assert _settled(question, household, resident) == "b"
    assert _settled("How much water does a household on Tarrow use?", household, resident) == "a"


def test_a_dissent_a_budget_an_unreleased_change_a_bug_and_a_wrong_answer_give_way() -> None:
    plain = EvidenceRecord(text="The Orme wall is 2.6 metres high.", source="a.md:3")
    for qualified in (
        EvidenceRecord(
            text="Lady Justice Fenwick, dissenting, would have found that the wall is 3.1 metres "
            "high.",
            source="b.md:3",
        ),
        EvidenceRecord(text="The plan sets a budget of £2.1 million for it.", source="b.md:3"),
        EvidenceRecord(
            text="A request is now retried 8 times.", source="b.md:5", title="Changes > Unreleased"
        ),
    ):
        assert _qualified(plain, qualified) is qualified, qualified.text
    pages = {
        "in a bug report": "# Issue 412\n\nLabels: bug\nStatus: closed, fixed in 5.1.1\n\n"
        "The export writes 500 rows to each file.\n",
        "in a thread of wrong answers only": "**@orme:** Wrong answers only: how tall is the "
        "tower?\n\n**@sam:** The tower is 212 metres tall.\n",
    }
    for marker, page in pages.items():
        assert f"({marker})" in drop_outdated(page), marker
    assert self_doubting("The tower is 212 metres tall (in a thread of wrong answers only).")


def test_the_statement_a_game_names_as_the_lie_is_dropped() -> None:
    game = (
        "# Two truths and a lie\n\n1. The church was consecrated in 1320.\n"
        "2. The tower holds 12 bells.\n3. The font is granite.\n\nThe lie: number 2.\n"
    )
    read = drop_outdated(game)
    assert "12 bells" not in read and "consecrated in 1320" in read and "granite" in read


def test_a_sentence_giving_figures_of_other_measures_only_does_not_support_a_count() -> None:
    bells = "The tower of the Orme church holds 8 bells."
    assert _another_measure(bells, "The Orme church was consecrated in 1320.")
    assert not _another_measure(bells, "The Orme church tower has eight bells, cast in 1720.")
    assert not _another_measure(bells, "The Orme church tower is a fine sight.")
