"""What dates or reconciles two disagreeing statements: a year of the Japanese era calendar, a
CJK date, an HTML ``<time>`` element, a feast day with its year, a web-archive address, the year
in a document's reference number, a date opening a file's name, and a speed in two units."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from framework.memory import (
    Corpus,
    EvidenceRecord,
    MiniLMEmbedder,
    SemanticStore,
    ingest_corpus,
)
from teams.hypothesis.sources import corpus_source
from teams.hypothesis.verdicts import newer_side, standing_note
from teams.language import disagreement, values_agree, values_in
from teams.language.calendars import plain_dates
from teams.language.values import stated_date
from tests.conftest import write_corpus


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Inspected in Heisei 30.", "2018"),
        ("Surveyed in Reiwa 1.", "2019"),
        ("Revised: 2019年11月2日", "2019-11-02"),
        ("Revised: 2019年11月", "2019-11"),
        ('Updated <time datetime="2020-02-11T09:00">last winter</time>.', "2020-02-11"),
        ("Revised on Boxing Day 2019.", "2019-12-26"),
        ("Revised on Midsummer's Day, 2020.", "2020-06"),
        ("Revised on the second Tuesday of March 2023.", "2023-03-14"),
        ("Revised on the last Friday of June 2016.", "2016-06-24"),
        ('<meta name="dcterms.modified" content="2023-10-05">', "2023-10-05"),
        ('<meta property="article:modified_time" content="2021-04-01T10:00">', "2021-04-01"),
        ("Mirror: web.archive.org/web/20190704120000/ferry.example/times", "2019-07-04"),
        ("Ref. HBC/2018/071", "2018"),
        ("Document no. TR-2012-4", "2012"),
    ],
)
def test_other_calendars_and_markups_date_a_page(text: str, date: str) -> None:
    assert stated_date("", text) == date


@pytest.mark.parametrize(
    "text",
    [
        "The Reiwa 7 garden has 40 trees.",  # no dating word
        "Heisei 45 is no year.",
        "Revised: 2019年13月2日",
        "Order HBC/2018/071 was placed.",
        "Open on the fifth Monday of February 2023.",  # February 2023 has four
        '<meta name="viewport" content="2023-10-05">',
    ],
)
def test_no_date_is_read_where_none_is_written(text: str) -> None:
    assert stated_date("", text) is None


def test_an_era_past_its_last_year_stays_as_written() -> None:
    assert plain_dates("Showa 70") == "Showa 70"
    assert plain_dates("Showa 64") == "1989"


def test_a_year_surveyed_in_dates_a_page() -> None:
    assert stated_date("", "Surveyed in 2017.\n\nThe quay has 26 berths.") == "2017"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The Orm lift climbs at 5 metres per second.", "The Orm lift climbs at 18 km/h."),
        ("The Orm tram runs at 20 m/s.", "The Orm tram runs at 72 kilometres an hour."),
    ],
)
def test_one_speed_in_two_units_is_no_conflict(first: str, second: str) -> None:
    assert disagreement(first, second) is None


def test_a_length_per_time_is_a_speed() -> None:
    slow, fast = values_in("It climbs at 5 m/s."), values_in("It climbs at 30 km/h.")
    assert slow[0].key == "speed" and not values_agree(slow[0], fast[0])
    assert values_in("The path is 5 metres long.")[0].key == "length"
    assert disagreement("The lift climbs at 5 m/s.", "The lift climbs at 30 km/h.") is not None


def test_a_date_opening_a_file_name_dates_its_passages(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    corpus = write_corpus(
        tmp_path / "docs",
        {
            "2019-03-02-orm-pond.md": "# Orm pond\n\nThe Orm pond is 12 metres deep.\n",
            "2019-02-30-orm-pond.md": "# Orm pond\n\nThe Orm pond is 11 metres deep.\n",
            "orm-pond.md": "# Orm pond\n\nThe Orm pond is 9 metres deep.\n",
        },
    )
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        found = json.loads(corpus_source(Corpus(store)).invoke({"query": "How deep is Orm pond?"}))
    dates = {item["source"]: item["date"] for item in found}
    assert dates == {
        "docs/2019-03-02-orm-pond.md:3": "2019-03-02",
        "docs/2019-02-30-orm-pond.md:3": None,
        "docs/orm-pond.md:3": None,
    }


def test_a_bibtex_entry_citing_the_page_itself_dates_it(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    cite = (
        "\n\n## Cite this page\n\n```bibtex\n"
        "@misc{{pond,\n  title = {{{}}},\n  year = {{{}}}\n}}\n```\n"
    )
    corpus = write_corpus(
        tmp_path / "docs",
        {
            "pond.md": "# Orm pond\n\nThe Orm pond is 12 metres deep."
            + cite.format("Orm pond", 2021),
            "other.md": "# Orm pond facts\n\nThe Orm pond is 9 metres deep."
            + cite.format("A history of Orm", 1990),
        },
    )
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        found = json.loads(corpus_source(Corpus(store)).invoke({"query": "How deep is Orm pond?"}))
    dates = {item["source"]: item["date"] for item in found if item["source"].endswith(":3")}
    assert dates == {"docs/pond.md:3": "2021", "docs/other.md:3": None}


def test_a_sentence_quoting_an_old_edition_is_dated_by_it(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    corpus = write_corpus(
        tmp_path / "docs",
        {
            "guide.md": "# Orm guide, 2023 edition\n\n"
            'The 1998 edition of this guide said: "The Orm pond is 12 metres deep."\n',
        },
    )
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        found = json.loads(corpus_source(Corpus(store)).invoke({"query": "How deep is Orm pond?"}))
    assert [item["date"] for item in found] == ["1998"]


def test_a_corrected_printing_outranks_the_first(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    corpus = write_corpus(
        tmp_path / "docs",
        {
            "a.md": "# Orm walks\n\nSecond printing, with corrections.\n\n"
            "The Orm walk is 14 miles long.\n",
            "b.md": "# Orm walks\n\nFirst printing.\n\nThe Orm walk is 17 miles long.\n",
        },
    )
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        found = json.loads(corpus_source(Corpus(store)).invoke({"query": "How long is Orm walk?"}))
    sides = {item["path"]: EvidenceRecord(**item) for item in found}
    assert newer_side(sides["docs/b.md"], sides["docs/a.md"]) is sides["docs/a.md"]


def test_a_page_superseding_the_other_by_its_reference_number_outranks_it() -> None:
    assert standing_note("Supersedes: FSP-118.", "Orm pool > FSP-118") == "replaces"
    assert standing_note("Supersedes: FSP-117.", "Orm pool > FSP-118") is None
    assert standing_note("It supersedes: nothing", "Orm pool > FSP-118") is None


def test_a_reference_number_line_joins_the_title(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    corpus = write_corpus(
        tmp_path / "docs",
        {
            "a.md": "# Orm pool\n\nReference: FSP-092. Supersedes: FSP-118.\n\n"
            "The Orm pool has 8 lanes.\n",
            "b.md": "# Orm pool\n\nReference: FSP-118.\n\nThe Orm pool has 6 lanes.\n",
        },
    )
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(corpus, store)
        found = json.loads(corpus_source(Corpus(store)).invoke({"query": "How many lanes?"}))
    titles = {item["path"]: item["title"] for item in found}
    assert titles == {"docs/a.md": "Orm pool > FSP-092", "docs/b.md": "Orm pool > FSP-118"}
