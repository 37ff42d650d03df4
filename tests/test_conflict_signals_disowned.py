"""Pages that disown their figures and dates that say when figures hold: a work of fiction, a
mirror of another page, a figure given from memory and unchecked, a date in photo metadata,
"Figures as at" over a publication date, and a table row's own "As of" date; a frequency as an
interval and as a rate, a count by exception ("all but two of its 40 rooms"), and the state a
question asks about ("at low water") against another state."""

from __future__ import annotations

import json
from pathlib import Path

from framework.memory import (
    Conflict,
    Corpus,
    EvidenceRecord,
    MiniLMEmbedder,
    SemanticStore,
    ingest_corpus,
)
from teams.hypothesis.sources import corpus_source
from teams.hypothesis.verdicts import newer_side, order_reason, state_asked_resolution
from teams.language import values_in
from teams.language._numbers import Value
from teams.language.calendars import plain_dates
from teams.language.standing import disowned_as, retires_itself
from teams.language.values import figures_date, stated_date, values_agree


def _side(text: str, name: str, day: str | None = None) -> EvidenceRecord:
    return EvidenceRecord(text=text, source=f"{name}:3", path=name, title="", date=day)


def test_a_work_of_fiction_and_a_mirror_disown_their_figures() -> None:
    assert disowned_as("This is a work of fiction. Any likeness to real places is coincidence.")
    assert disowned_as("All the characters and events in this book are fictitious.") == (
        "is fiction"
    )
    assert disowned_as("This page is a mirror of the Harl survey, last synced in 2016.") == (
        "is a copy of another page"
    )
    assert disowned_as("# jory-p/wheelhouse\n\nforked from kestle-dev/wheelhouse\n") == (
        "is a copy of another page"
    )
    assert not retires_itself("The branch was forked from main/dev, then merged.")
    assert disowned_as("This page is archived.") == "is out of date"
    assert not retires_itself("The novel sold well, and its events are remembered fondly.")
    assert not retires_itself("The bridge is a copy of the one at Ware.")


def test_a_figure_given_from_memory_and_unchecked_gives_way() -> None:
    hedged = _side(
        "I am going from memory here and have not checked, but I think the ferry carries 28 cars.",
        "letters.md",
    )
    plain = _side("The ferry carries 36 cars.", "ferry.md")
    assert newer_side(hedged, plain) is plain
    assert order_reason(plain, hedged) is not None


def test_photo_metadata_dates_and_figures_as_at_a_date() -> None:
    assert plain_dates("Taken: 2022:07:19 14:05:33") == "Taken: 2022-07-19 14:05:33"
    assert plain_dates("The ratio is 16:10:4 here.") == "The ratio is 16:10:4 here."
    assert stated_date("Market photo", "Taken: 2022:07:19 14:05:33\n\nIt has 64 stalls.") == (
        "2022-07-19"
    )
    yearbook = "Published June 2023.\n\nFigures as at 31 March 2015.\n\nIt has 41 branches."
    assert stated_date("County yearbook", yearbook) == "2015-03-31"
    edited = "Page edited 2024-02-11 (spelling fixes only). Figures last checked 2013-05-20."
    assert stated_date("Reservoir", edited) == "2013-05-20"
    assert figures_date("Wenning hall: 260 seats; as of in 2014.") == "2014"
    assert figures_date("As of version 2.0, the option is on.") is None


def test_a_disclaimer_above_a_files_first_heading_comes_with_each_of_its_passages(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "novel.md").write_text(
        "# The Salt Lanterns\n\nA novel. All the characters and events in this book are "
        "fictitious.\n\n## Chapter 3\n\nThe Tollard quay had 96 berths that night.\n"
    )
    (folder / "guide.md").write_text("# Tollard guide\n\nThe Tollard quay has 120 berths.\n")
    with SemanticStore(":memory:", embedder=embedder) as store:
        ingest_corpus(folder, store)
        tool = corpus_source(Corpus(store), k=4, min_score=0.0)
        found = json.loads(tool.invoke({"query": "How many berths does the Tollard quay have?"}))
    novel = {item["source"]: item["text"] for item in found if item["path"].endswith("novel.md")}
    assert any("96 berths" in text for text in novel.values())
    assert any(retires_itself(text) and source.endswith(":3") for source, text in novel.items())


def test_a_frequency_as_an_interval_and_as_a_rate_and_a_count_by_exception_agree() -> None:
    def one(text: str) -> Value:
        [value] = values_in(text)
        return value

    interval = one("On the line a tram leaves every twenty minutes.")
    assert values_agree(interval, one("Trams on the line run three times an hour."))
    assert not values_agree(interval, one("Trams on the line run four times an hour."))
    assert values_agree(one("It is checked twice a day."), one("It is checked every 12 hours."))
    exception = one("All but two of the hotel's 40 rooms look out to sea.")
    assert (exception.key, exception.number, exception.label) == ("room", 38.0, "38 rooms")
    assert values_agree(exception, one("Thirty-eight rooms of the hotel look out to sea."))
    assert [v.label for v in values_in("He came three times in all.")] == ["three times"]


def test_the_state_a_question_asks_about_decides_against_another_state() -> None:
    high = _side("At high water the harbour entrance is 9 metres deep.", "pilot.md")
    low = _side("At low water the harbour entrance is 4 metres deep.", "chart.md")
    conflict = Conflict(id="c1", source_a=high.id, source_b=low.id, description="9 or 4")
    asked = "How deep is the harbour entrance at low water?"
    found = state_asked_resolution(conflict, asked, high, low)
    assert found is not None and found.resolved_by == low.id
    assert "low water" in found.resolution and "high water" in found.resolution
    assert state_asked_resolution(conflict, "How deep is the harbour entrance?", high, low) is None
    plain = _side("The harbour entrance is 9 metres deep.", "guide.md")
    assert state_asked_resolution(conflict, asked, plain, low) is None
