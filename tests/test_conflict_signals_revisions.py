"""Lines a page does not state as its own: an accepted diff's old lines, a myth, a reply's quote,
a supposition, an April fool; a finished change's before/after table; one price in pounds and
in pence; a reStructuredText ":Date:" field; a Buddhist Era year; a figure credited to an old
version of a work; a figure for an opening still to come."""

from __future__ import annotations

from framework.memory import EvidenceRecord, Passage
from teams.hypothesis.sources import _credited_version, _titled, passage_evidence
from teams.hypothesis.verdicts import newer_side, order_reason
from teams.language import disagreement, values_in
from teams.language.contradiction import agrees
from teams.language.namesakes import about_namesake
from teams.language.revisions import (
    apply_accepted_diffs,
    drop_april_fools,
    drop_myths,
    drop_proposals,
    drop_quoted_replies,
    drop_suppositions,
    rejecting,
)
from teams.language.standing import retires_itself
from teams.language.tables import table_statements
from teams.language.values import stated_date


def _side(text: str, name: str, title: str) -> EvidenceRecord:
    return EvidenceRecord(text=text, source=f"{name}:3", path=name, title=title)


def _passage(text: str, heading: str, name: str = "page.md") -> Passage:
    return Passage(source=f"{name}:3", path=name, line=3, heading=heading, text=text, score=1.0)


_DIFF = (
    "The quay was rebuilt, so the entry reads as follows.\n\n"
    "```diff\n-The Holm quay is 80 metres long.\n+The Holm quay is 95 metres long.\n```"
)


def test_an_accepted_diff_states_its_new_line_and_withdraws_its_old_one() -> None:
    lines = apply_accepted_diffs(_DIFF, heading="Ticket 4 (approved)").split("\n")
    assert lines[4] == "The Holm quay is 95 metres long, not 80."
    assert "80 metres" not in "\n".join(lines)
    assert len(lines) == len(_DIFF.split("\n"))


def test_a_diff_not_said_to_be_accepted_states_neither_line() -> None:
    for heading in ("Ticket 4", "Ticket 4 (proposed)", "Ticket 4: rejected"):
        read = apply_accepted_diffs(_DIFF, heading=heading)
        assert "metres" not in read, heading


def test_an_unlabelled_fence_of_plus_and_minus_lines_is_a_diff() -> None:
    text = "Merged.\n~~~\n-Dale mill has 4 sails.\n+Dale mill has 6 sails.\n~~~"
    assert apply_accepted_diffs(text).split("\n")[3] == "Dale mill has 6 sails, not 4."
    code = "Merged.\n```\nx = 1\n-y\n```"
    assert apply_accepted_diffs(code) == code


def test_a_cited_diff_gives_the_new_figure() -> None:
    passage = _passage(_DIFF, "Change 9: accepted")
    (cited, *_) = passage_evidence(passage, "How long is the Holm quay?")
    assert cited == ("page.md:7", "The Holm quay is 95 metres long, not 80.")


def test_a_myth_is_withdrawn_and_the_fact_stated() -> None:
    text = "Myth: the Orle bridge has 9 arches.\n\n**Fact:** the Orle bridge has 7 arches."
    assert drop_myths(text) == "\n\nThe Orle bridge has 7 arches, not 9."
    plain = "Fact: a page with no myth keeps its label."
    assert drop_myths(plain) == plain


def test_a_myth_page_cites_the_fact() -> None:
    text = "Myth: the Orle bridge has 9 arches.\n\nFact: the Orle bridge has 7 arches."
    (cited, *_) = passage_evidence(_passage(text, "Orle myths"), "How many arches?")
    assert cited == ("page.md:5", "The Orle bridge has 7 arches, not 9.")


def test_a_reply_withdraws_the_lines_it_quotes() -> None:
    text = "> The Tarn bus runs 6 times a day.\n\nNow the Tarn bus runs 9 times a day."
    assert drop_quoted_replies(text, heading="Re: Tarn bus").split("\n")[0] == ""
    wrote = "On Monday, the office wrote:\n" + text
    assert drop_quoted_replies(wrote).split("\n")[1] == ""
    assert drop_quoted_replies(text, heading="Tarn bus") == text


def test_a_finished_change_table_rejects_the_before_figure() -> None:
    table = "| Kelby lock | Before the works | After the works |\n| --- | --- | --- |\n"
    table += "| Gates | 2 | 4 |"
    done = table_statements("The works are complete.\n\n" + table).split("\n")[4]
    assert done == "Kelby lock: 4 gates after the works, not 2."
    assert disagreement("Kelby lock has 2 gates.", done) is not None
    assert agrees("Kelby lock has 4 gates.", done)
    planned = table_statements("The works start in May.\n\n" + table).split("\n")[4]
    assert "not 2" not in planned


def test_a_price_in_pence_is_the_price_in_pounds() -> None:
    assert [v.label for v in values_in("A pass costs 250p.")] == ["GBP 2.50"]
    assert [v.label for v in values_in("A pass costs 250 pence.")] == ["GBP 2.50"]
    assert [v.label for v in values_in("The report runs to 250 p.")] != ["GBP 2.50"]
    pounds = "A pass for the Esk ferry costs £2.50."
    assert disagreement(pounds, "A pass for the Esk ferry costs 250p.") is None
    assert disagreement(pounds, "A pass for the Esk ferry costs 260p.") is not None


def test_a_new_line_rejects_the_old_figure_only_when_that_figure_alone_differs() -> None:
    assert rejecting("The mast is 40 m tall.", "The mast is 35 m tall.") == (
        "The mast is 40 m tall, not 35."
    )
    assert (
        rejecting("The mast is 40 m tall.", "The mast is 40 ft tall.") == "The mast is 40 m tall."
    )
    assert rejecting("The new mast is 40 m.", "The mast is 35 m.") == "The new mast is 40 m."
    assert disagreement("The mast is 35 m tall.", "The mast is 40 m tall, not 35.") is not None


def test_a_supposed_figure_is_withdrawn() -> None:
    text = "Suppose, for the sake of argument, that Hale pier has 30 moorings.\nHale pier has 24."
    assert drop_suppositions(text) == "\nHale pier has 24."
    mixed = "Hale pier is old. Imagine it had 30 moorings. It has 24."
    assert drop_suppositions(mixed) == "Hale pier is old. It has 24."
    plain = "Supposedly the pier has 30 moorings."
    assert drop_suppositions(plain) == plain


def test_an_owned_up_april_fool_states_nothing() -> None:
    text = "The Yarn weir is now 90 metres wide.\n\nApril fool! None of this is true."
    assert drop_april_fools(text) == "\n\n"
    admitted = "Hale pier has 30 moorings.\nIt was an April fool, and not true."
    assert drop_april_fools(admitted) == "\n"
    custom = "April Fools' Day is kept in Yarn with 3 parades."
    assert drop_april_fools(custom) == custom


def test_a_dated_restructuredtext_field_dates_its_page() -> None:
    assert stated_date("Yarn weir", ":Date: 2021-05-04\n\nThe Yarn weir is wide.") == "2021-05-04"
    assert stated_date("Yarn weir", "See the guide:date: 2021-05-04.") is None


def test_a_buddhist_era_year_dates_its_page() -> None:
    assert stated_date("Kham bridge", "Revised in B.E. 2562.\n\nIt is long.") == "2019"
    assert stated_date("Kham bridge", "Revised 2562 BE.") == "2019"
    assert stated_date("Kham bridge", "The ward has 2562 beds.") is None


def test_a_hijri_year_dates_its_page_by_the_year_it_began() -> None:
    assert stated_date("Suq bridge", "Updated in 1445 AH.\n\nIt is long.") == "2023"
    assert stated_date("Suq bridge", "Revised AH 1400.") == "1979"
    assert stated_date("Suq bridge", "Revised in 1446 Hijri.") == "2024"
    assert stated_date("Suq bridge", "The ward has 1445 beds.") is None


def test_a_figure_credited_to_an_old_version_loses_to_the_work_s_later_version() -> None:
    leaflet = "Tarn weir is 9 metres high (figure from version 1.2 of the Tarn weir survey)."
    assert _credited_version(leaflet) == "Tarn weir survey, version 1.2"
    assert (
        _credited_version("Per edition 3 of the Kell guide, it is 4 m.") == "Kell guide, edition 3"
    )
    assert _credited_version("Tarn weir is 9 metres high.") is None
    old = _side(leaflet, "leaflet.md", title="Tarn weir survey, version 1.2")
    new = _side("Tarn weir is 8 metres high.", "survey.md", title="Tarn weir survey, version 3.0")
    assert newer_side(old, new) is new


def test_a_present_figure_outranks_one_for_an_opening_still_to_come() -> None:
    plan = _side("The Yarn library will hold 9,000 books once its annexe opens in 2095.", "a", "")
    now = _side("The Yarn library holds 6,000 books.", "b", "")
    assert newer_side(plan, now) is now
    assert order_reason(now, plan) is not None
    past = _side("The Yarn library will hold 9,000 books once its annexe opens in 2001.", "c", "")
    assert newer_side(past, now) is None
    was = _side("The Yarn library had 6,000 books.", "d", "")
    assert newer_side(plan, was) is None


def test_a_reply_denying_the_quoted_count_rejects_it() -> None:
    text = "> The Tarn bus runs 6 trips a day.\n\nNo longer: the Tarn bus runs 9 trips a day."
    read = drop_quoted_replies(text, heading="Re: Tarn bus").split("\n")
    assert read[2] == "No longer: the Tarn bus runs 9 trips a day, not 6."
    thanks = "> The Tarn bus runs 6 trips a day.\n\nThanks: the Tarn bus runs 9 trips a day."
    assert drop_quoted_replies(thanks, heading="Re: Tarn bus").split("\n")[2].endswith("day.")


def test_a_full_count_outranks_an_estimate_from_a_sample() -> None:
    text = "From a one-in-five sample of its farms, Yarn is estimated to have 420 cows."
    estimate = _side(text, "a", "")
    count = _side("A count of every farm found that Yarn has 388 cows.", "b", "")
    assert newer_side(estimate, count) is count
    assert order_reason(count, estimate) is not None
    plain = _side("Yarn has 388 cows.", "c", "")
    assert newer_side(estimate, plain) is None


def test_a_proposed_figure_is_no_claim_and_its_defeat_rejects_it() -> None:
    minutes = (
        "Motion 3 proposed cutting the Tarn ferry to 6 sailings a day.\n\n"
        "The motion was defeated, so the Tarn ferry keeps its 9 sailings a day.\n"
    )
    assert drop_proposals(minutes) == (
        "\n\nThe motion was defeated, so the Tarn ferry keeps its 9 sailings a day, not 6.\n"
    )
    said = "The Tarn ferry makes 9 sailings a day. The council proposed that it make 6."
    assert drop_proposals(said) == "The Tarn ferry makes 9 sailings a day."
    advice = "The guide recommends that the ferry make 9 sailings a day."
    assert drop_proposals(advice) == advice
    assert drop_proposals("The Tarn ferry makes 9 sailings a day.") == (
        "The Tarn ferry makes 9 sailings a day."
    )


def test_a_page_about_a_namesake_answers_nothing_about_the_other() -> None:
    page = (
        "Holm in Tarnside is not to be confused with Holm in Westfell.\n\n"
        "The church at Holm has 8 bells.\n"
    )
    asked = "How many bells does the church at Holm in Westfell have?"
    assert about_namesake(page, asked)
    assert passage_evidence(_passage(page, "Bells in Tarnside"), asked) == []
    assert not about_namesake(page, "How many bells does the church at Holm in Tarnside have?")
    assert not about_namesake(page, "How many bells does the church at Holm have?")
    assert passage_evidence(_passage("The church at Holm has 6 bells.", "Bells"), asked)


def test_a_later_wiki_revision_outranks_an_earlier_one_of_the_same_page() -> None:
    link = "Permanent link: wiki.example.org/index.php?title=Kell_school&oldid={}"
    old = _passage(f"{link.format(9127)}\n\nThe Kell school has 340 pupils.", "Kell school")
    new = _passage(f"{link.format(48213)}\n\nThe Kell school has 415 pupils.", "Kell school")
    a = _side(old.text, "a.md", title=_titled(old))
    b = _side(new.text, "b.md", title=_titled(new))
    assert newer_side(a, b) is b
    other = _passage(f"{link.replace('Kell', 'Orm').format(50000)}\n\nIt has 9 pupils.", "Orm")
    assert newer_side(a, _side(other.text, "c.md", title=_titled(other))) is None


def test_a_photograph_s_caption_dates_its_page() -> None:
    caption = "*Photograph taken in June 2022, after the extension opened.*\n\nIt has 9 bays."
    assert stated_date("Kell car park", caption) == "2022-06"


def test_a_page_that_yields_to_an_official_one_retires_itself_where_they_differ() -> None:
    assert retires_itself(
        "This summary is unofficial; where it differs from the official notice of the Kell "
        "Ferry Company, the official notice prevails."
    )
    assert retires_itself("This listing is for guidance only: where they differ, the act prevails.")
    assert not retires_itself("This summary is unofficial.")
    assert not retires_itself("The official notice prevails.")


def test_a_figure_its_own_conversion_contradicts_gives_way() -> None:
    slip = _side("The Kell light is 43 metres (112 feet) tall.", "a.md", title="Coast towers")
    right = _side("The Kell light is 34 metres (112 feet) tall.", "b.md", title="Kell light")
    assert newer_side(slip, right) is right
    assert order_reason(right, slip) is not None
    plain = _side("The Kell light is 43 metres tall.", "c.md", title="Kell light")
    assert newer_side(plain, right) is None


def test_a_hatnote_sending_readers_on_for_the_present_thing_retires_its_page() -> None:
    assert retires_itself("*For the present pier, see Kell pier (1994).*")
    assert retires_itself("This page is about the first pier. For the current pier, see Kell pier.")
    assert not retires_itself("For the present, see the list below.")
    assert not retires_itself("For details of the pier, see the list below.")
