"""What a page marks as out of date is withdrawn before its figures are read: a collapsed block
of old figures, the text a note says is out of date, a change a later entry undoes; the
statement that stands rejects the old figure. A count of pairs agrees with twice as many."""

from __future__ import annotations

from teams.language.outdated import drop_outdated
from teams.language.values import values_agree, values_in


def test_a_collapsed_block_of_old_figures_is_withdrawn_and_rejected() -> None:
    text = (
        "# Hobb museum\n\nThe Hobb museum has 14 galleries.\n\n<details>\n"
        "<summary>Previous figures (before 2019)</summary>\n\nThe Hobb museum has 9 galleries.\n"
        "</details>\n"
    )
    read = drop_outdated(text).split("\n")
    assert read[2] == "The Hobb museum has 14 galleries, not 9."
    assert not any("9 galleries" in line for line in read)
    assert len(read) == len(text.split("\n"))
    kept = text.replace("Previous figures (before 2019)", "Galleries by floor")
    assert drop_outdated(kept) == kept


def test_a_note_that_the_text_before_is_out_of_date_withdraws_it() -> None:
    text = (
        "## Slide 7\n\nThe Orme tram runs 3 kilometres.\n\n"
        "Notes: this slide is out of date. Since the 2023 extension the Orme tram runs 5 "
        "kilometres.\n\n## Slide 8\n\nThe depot holds 12 trams.\n"
    )
    read = drop_outdated(text).split("\n")
    assert read[2] == ""
    assert read[4].endswith("runs 5 kilometres, not 3.")
    assert read[8] == "The depot holds 12 trams."


def test_a_change_a_later_entry_undoes_is_withdrawn() -> None:
    text = (
        "- May 2021: the Lune ferry goes from 6 crossings a day to 9.\n"
        "- June 2021: the change of May 2021 is reversed; the Lune ferry makes 6 crossings a day."
    )
    first, second = drop_outdated(text).split("\n")
    assert first == ""
    assert second.endswith("makes 6 crossings a day, not 9.")


def test_a_count_of_pairs_agrees_with_twice_as_many() -> None:
    (pairs,) = values_in("The heronry at Wyke has 40 nesting pairs.")
    (birds,) = values_in("The heronry at Wyke has 80 nesting birds.")
    (fewer,) = values_in("The heronry at Wyke has 70 nesting birds.")
    assert values_agree(pairs, birds)
    assert values_agree(birds, pairs)
    assert not values_agree(pairs, fewer)
