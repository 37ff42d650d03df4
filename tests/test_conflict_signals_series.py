"""What orders or reconciles two disagreeing statements: a figure in scientific notation, a
pressure in two units, a Unix timestamp on a header line, a date without separators, an HTML
comment opening a file, an unsourced tag against a sourced figure, a release candidate
against its final edition, a figure counting a later addition, a copy against the page it
names as its source, settings before any heading, and a year-by-year table whose latest year
is current."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from framework.engine.builder import compile_team
from framework.memory import (
    Corpus,
    EvidenceRecord,
    MiniLMEmbedder,
    Passage,
    ResearchMemory,
    SemanticStore,
    ingest_corpus,
)
from teams.hypothesis import build_hypothesis_team, offline_roles
from teams.hypothesis.sources import corpus_source, passage_evidence
from teams.hypothesis.verdicts import newer_side, order_reason, side_of, standing_of
from teams.language import disagreement, values_in
from teams.language.tables import table_statements
from teams.language.values import stated_date
from tests.conftest import write_corpus


def _side(text: str, name: str, date: str | None = None) -> EvidenceRecord:
    return EvidenceRecord(text=text, source=f"{name}:3", path=name, date=date)


def _passage(text: str, heading: str = "Harle ferry") -> Passage:
    return Passage(
        source="harle.md:3", path="harle.md", line=3, heading=heading, text=text, score=1.0
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The Orrin survey counted 4.5 × 10^3 nests.", "The Orrin survey counted 4,500 nests."),
        ("The Orrin survey counted 4.5 x 10³ nests.", "The Orrin survey counted 4500 nests."),
        ("The Tarn pump delivers 4 bar.", "The Tarn pump delivers 400 kPa."),
        ("The Tarn pump delivers 2 bar.", "The Tarn pump delivers about 29 psi."),
    ],
)
def test_one_value_in_two_notations_is_no_conflict(first: str, second: str) -> None:
    assert disagreement(first, second) is None


def test_scientific_notation_and_pressures_still_disagree_when_they_differ() -> None:
    assert disagreement("It counted 4.5 × 10^3 nests.", "It counted 5,200 nests.") is not None
    assert disagreement("The pump delivers 4 bar.", "The pump delivers 250 kPa.") is not None
    assert [v.number for v in values_in("a 3 x 10 metre room")] == [3.0, 10.0]


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Last-Modified: 1689321600\n\nThe pier is 400 m long.", "2023-07-14"),
        ("Generated: 1489017600 (Unix time)\n\nThe pier is 400 m long.", "2017-03-09"),
        ("Rev. 20230314\n\nThe lido admits 300 swimmers.", "2023-03-14"),
        ("Revised 20191105.", "2019-11-05"),
    ],
)
def test_a_timestamp_or_a_compact_date_dates_its_page(text: str, date: str) -> None:
    assert stated_date("Pier notes", text) == date


@pytest.mark.parametrize(
    "text",
    [
        "The pier is 1689321600 mm long.",  # no header line
        "Last-Modified: 99\n",  # not a timestamp
        "Rev. 20231345\n",  # no such day
        "The pier holds 20230314 rivets.",  # no dating word
    ],
)
def test_other_long_figures_date_nothing(text: str) -> None:
    assert stated_date("Pier notes", text) is None


def test_an_unsourced_tag_loses_to_a_sourced_figure() -> None:
    tagged = _side("The Orm tunnel is 1,900 metres long.[citation needed]", "a.md")
    sourced = _side("The Orm tunnel is 2,100 metres long.[1]", "b.md")
    assert newer_side(tagged, sourced) is sourced
    assert newer_side(sourced, tagged) is sourced
    assert "unsourced" in (order_reason(sourced, tagged) or "")
    both = _side("The Orm tunnel is 2,100 metres long.[dubious]", "b.md")
    assert newer_side(tagged, both) is None


def test_settings_before_any_heading_are_no_evidence() -> None:
    settings = _passage('title = "Harle ferry"\nlastmod = 2016-04-18', heading="")
    assert passage_evidence(settings, "How fast is the Harle ferry?") == []


def test_a_table_with_a_row_per_year_states_its_latest_year_as_current() -> None:
    table = "| Year | Members |\n| --- | --- |\n| 2015 | 118 |\n| 2019 | 131 |\n| 2024 | 164 |"
    assert table_statements(table).split("\n") == [
        "",
        "",
        "In 2015, there were 118 members.",
        "In 2019, there were 131 members.",
        "As of 2024, there are 164 members.",
    ]


def test_a_table_with_a_column_per_year_states_the_earlier_years_on_its_header_line() -> None:
    table = "| Year | 2015 | 2023 |\n| --- | --- | --- |\n| Pupils | 212 | 268 |"
    assert table_statements(table).split("\n") == [
        "In 2015, there were 212 pupils.",
        "",
        "As of 2023, there are 268 pupils.",
    ]


def test_other_tables_are_read_as_before() -> None:
    table = "| Bridge | Opened | Length (m) |\n|---|---|---|\n| Esk | 1930 | 95 |"
    assert table_statements(table) == "\n\nEsk bridge: opened in 1930; length 95 m."


def test_the_latest_year_of_a_table_is_cited_before_an_earlier_one_after_its_subject() -> None:
    text = "In 2015, there were 118 members.\nAs of 2024, there are 164 members."
    evidence = passage_evidence(_passage(text), "How many members are there?")
    assert evidence[0] == ("harle.md:4", "Harle ferry: As of 2024, there are 164 members.")


def test_an_earlier_year_of_the_same_page_dates_the_other_figure() -> None:
    table = _side("As of 2024, there are 164 members.", "club.md")
    prose = _side("The Harle rowing club has 118 members.", "guide.md")
    earlier = _side("In 2015, there were 118 members.", "club.md")
    assert standing_of(earlier, prose, table) == ("earlier", table)
    other = _side("In 2015, there were 97 members.", "club.md")
    assert standing_of(other, prose, table) is None
    later = _side("In 2025, there were 118 members.", "club.md")
    assert standing_of(later, prose, table) is None


def _titled(text: str, name: str, title: str, date: str | None = None) -> EvidenceRecord:
    return EvidenceRecord(text=text, source=f"{name}:3", path=name, date=date, title=title)


def test_a_final_edition_is_newer_than_its_release_candidate() -> None:
    candidate = _titled("The Orm depot has 40 bays.", "rc.md", "Orm depot guide, version 2.0-rc2")
    final = _titled("The Orm depot has 44 bays.", "final.md", "Orm depot guide, version 2.0")
    assert newer_side(candidate, final) is final
    assert newer_side(final, candidate) is final
    later = _titled("The Orm depot has 46 bays.", "next.md", "Orm depot guide, version 2.1 beta")
    assert newer_side(final, later) is later
    other = _titled("The Orm depot has 46 bays.", "x.md", "Orm bus timetable, version 2.0")
    assert newer_side(candidate, other) is None


def test_a_figure_counting_a_later_addition_is_newer_than_a_dated_page() -> None:
    dated = _side("Orm market has 80 stalls.", "guide.md", "2016")
    counting = _side(
        "Orm market has 95 stalls, including the 15 added when the east hall opened in 2020.",
        "market.md",
    )
    assert newer_side(dated, counting) is counting
    assert "addition" in (order_reason(counting, dated) or "")
    later = _side("Orm market has 80 stalls.", "guide.md", "2022")
    assert newer_side(later, counting) is None
    undated = _side("Orm market has 80 stalls.", "guide.md")
    assert newer_side(undated, counting) is None


def test_the_page_named_as_the_source_stands_against_its_copy() -> None:
    copy = _titled(
        "According to the Orm Lock Register, the lock gate weighs 2,130 kg.",
        "digest.md",
        "Parish news",
    )
    source = _titled("The lock gate weighs 2,310 kg.", "register.md", "Orm Lock Register")
    assert newer_side(copy, source) is source
    assert newer_side(source, copy) is source
    assert "source" in (order_reason(source, copy) or "")
    elsewhere = _titled("The lock gate weighs 2,310 kg.", "notes.md", "Orm canal notes")
    assert newer_side(copy, elsewhere) is None


def test_a_past_year_of_one_page_upholds_no_other_page() -> None:
    current = _side("The Harle rowing club has 164 members.", "club.md")
    prose = _side("The Harle rowing club has 118 members.", "guide.md")
    earlier = _side("In 2015, the Harle rowing club had 118 members.", "club.md")
    assert side_of(earlier, prose, current) is None
    elsewhere = _side("The Harle rowing club has 118 members.", "almanac.md")
    assert side_of(elsewhere, prose, current) is prose


def test_the_latest_year_of_a_table_is_confirmed_over_prose_repeating_its_first(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    corpus = write_corpus(
        tmp_path / "docs",
        {
            "guide.md": "# Guide to Orm\n\nThe Orm sailing club has 75 boats.\n",
            "club.md": "# Orm sailing club\n\n| Year | Boats |\n| --- | --- |\n"
            "| 2012 | 75 |\n| 2018 | 83 |\n| 2023 | 91 |\n",
        },
    )
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        roles = offline_roles(ResearchMemory(store, scope=("test",)), Corpus(store))
        app = compile_team(build_hypothesis_team(roles), checkpointer=InMemorySaver())
        state = app.invoke(
            {"question": "How many boats does the Orm sailing club have?"},
            {"configurable": {"thread_id": "t1"}},
        )
    findings = state["final_answer"].split("## Findings")[1].split("##")[0]
    assert "91 boats" in findings and "`docs/club.md:7`" in findings
    assert "75 boats" not in findings


@pytest.mark.parametrize(
    "opening",
    ["<!-- updated 2021-05-04 -->", '<meta name="dcterms.modified" content="2021-05-04">'],
)
def test_html_comments_or_meta_tags_opening_a_file_date_its_passages(
    tmp_path: Path, embedder: MiniLMEmbedder, opening: str
) -> None:
    corpus = write_corpus(
        tmp_path / "docs",
        {
            "survey.md": f"{opening}\n# Orm pond survey\n\nThe Orm pond is 12 metres deep.\n",
            "facts.md": "<!-- draft by the parish -->\n# Orm pond facts\n\n"
            "The Orm pond is 9 metres deep.\n",
        },
    )
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        found = json.loads(corpus_source(Corpus(store)).invoke({"query": "How deep is Orm pond?"}))
    dates = {item["source"]: item["date"] for item in found}
    assert dates == {"docs/survey.md:4": "2021-05-04", "docs/facts.md:4": None}
