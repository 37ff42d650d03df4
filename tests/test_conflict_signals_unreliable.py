"""Pages whose figures are not to be relied on, lines that tell of what did not happen, and
dates given as counts of days: a map "NOT FOR NAVIGATION", a preprint not peer-reviewed,
captions made by speech recognition and not checked, a listing submitted by users, a phishing
warning, a post under readers' context, a bad signature, a cached copy, a meta refresh, a
deprecated API response, a message forwarded many times, terms subject to contract, a message
its writer disregards, a change whose command failed, an obsoleted RFC, a speech's text to be
checked against delivery, a document stamped VOID; a dry run's log line, a dream, a job still to
do, an example of wording, a proposal, a wind-assisted time; a Modified Julian Date and a
spreadsheet's date serial; a count short of a round number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from framework.memory import Corpus, MiniLMEmbedder, SemanticStore, ingest_corpus
from teams.hypothesis.sources import corpus_source
from teams.language.standing import disowned_as, tells_of_the_unreal
from teams.language.values import stated_date, values_in


@pytest.mark.parametrize(
    "text",
    [
        "NOT FOR NAVIGATION",
        "This chart is not to be used for navigation.",
        "Depths are shown for illustration only.",
        "This article is a preprint and has not been peer-reviewed.",
        "These captions were generated automatically by speech recognition and have not been "
        "checked.",
        "This transcript is machine-generated and has not been reviewed.",
        "Its details were submitted by users and have not been checked by the owner.",
        "⚠ Be careful with this message. It looks like a phishing attempt: the sender differs.",
        "It was flagged as likely phishing: the sender's address does not match.",
        "> **Readers added context**",
        "The causeway is much shorter than this post claims.",
        'gpg: BAD signature from "tidegauge release team"',
        "*↪ Forwarded many times*",
        "**Subject to contract**",
        "The Harbour Dues Bill passed its second reading on 12 May.",
        "Please disregard my previous e-mail, which went out in error.",
        "error: quota 40GB exceeds the account's limit; nothing was changed",
        "**WITHOUT PREJUDICE SAVE AS TO COSTS**",
        "**Subject:** [RFC] The upload limit of the Kestle package index",
        "*This user has been blocked indefinitely as a sockpuppet of a banned user.*",
        "Suggestions are not part of the document until its owner accepts them.",
        "**Check against delivery**",
    ],
)
def test_a_page_that_says_its_figures_are_not_to_be_relied_on_disowns_them(text: str) -> None:
    assert disowned_as(text) == "is not to be relied on"


@pytest.mark.parametrize(
    "text",
    [
        "The survey was peer-reviewed in 2021.",
        "Captions are generated automatically for every talk.",  # nothing says unchecked
        "The chart is used for navigation by the pilots.",
        "Reports of phishing rose in 2021.",
        'gpg: Good signature from "tidegauge release team"',
        "This is the copy of record.",
        "The ferry forwarded many passengers to the island.",  # no message forwarded
        "The lease was signed and is no longer subject to any condition.",
        "The Harbour Dues Act received royal assent in June.",  # law, not a Bill in passage
        "Nothing was changed in the 2.1 release but its documentation.",  # no error
        "The speech was checked against the recording after its delivery.",
        "A void in the hull was filled.\nThe ferry sailing was cancelled.",  # no stamp
    ],
)
def test_pages_that_only_speak_of_checks_or_navigation_stand(text: str) -> None:
    assert disowned_as(text) == ""


def test_a_document_stamped_void_is_void() -> None:
    invoice = "# Boatyard invoice no. 0151\n\n**VOID**\n\n| Lift-out | £480 |\n"
    assert disowned_as(invoice) == "is void"
    assert disowned_as("# Order 12\n\nCANCELLED\n\nTwo anchors.\n") == "is void"


@pytest.mark.parametrize(
    ("text", "how"),
    [
        ("This is a search engine's cached copy of https://example.org/ferry.", "copy"),
        ("Obsoleted by: 9731", "date"),
        ('<meta http-equiv="refresh" content="0; url=https://example.org/lifeboat">', "date"),
        ("Deprecation: true", "date"),
        ('Link: </v2/marinas/kell>; rel="successor-version"', "date"),
    ],
)
def test_a_cached_copy_a_meta_refresh_and_a_deprecated_response_give_way(
    text: str, how: str
) -> None:
    assert how in disowned_as(text)


def test_a_count_short_of_a_round_number_is_its_difference() -> None:
    [moorings] = values_in("Trethewy harbour has two short of a hundred moorings.")
    assert (moorings.kind, moorings.number, moorings.label) == ("count", 98.0, "98 moorings")
    [berths] = values_in("It has 3 shy of 50 berths.")
    assert (berths.number, berths.label) == (47.0, "47 berths")
    assert [v.label for v in values_in("The run fell short of 100 metres.")] == ["100 metres"]


def test_a_dry_runs_line_and_a_dream_tell_of_what_did_not_happen() -> None:
    assert tells_of_the_unreal("[DRY RUN] On 4 March envsweep removed 42 environments.")
    assert tells_of_the_unreal("DRY-RUN: would remove 42 environments")
    assert tells_of_the_unreal("I dreamt that the lighthouse was 90 metres tall.")
    assert tells_of_the_unreal("In my dream the lighthouse had no lamp.")
    assert not tells_of_the_unreal("On 4 March envsweep removed 39 environments.")
    assert not tells_of_the_unreal("Run it with --dry-run first to see what would change.")
    assert not tells_of_the_unreal("The dream team finished the lighthouse in 1871.")


@pytest.mark.parametrize(
    "text",
    [
        "[ ] Extend the quay to 40 moorings",  # a job of a task list not done yet
        'Right: "The tender carries 60 passengers."',  # an example of wording
        "Wrong: “The tender carries sixty passengers.”",
        "Proposal: a boathouse of 6 bays on the east slip.",
        "Proposed fee for a winter mooring: £240.",
        "She won in 10.88 seconds (wind +3.1 m/s: wind-assisted).",
        "The exit poll gave the Quay Party 9 seats.",  # a poll, not the result declared
        "The count projects 9 seats for the Quay Party.",
        "<!-- The quay has 44 moorings. -->",  # commented out of the page: not shown
    ],
)
def test_a_job_to_do_an_example_a_proposal_and_a_wind_assisted_time_state_nothing(
    text: str,
) -> None:
    assert tells_of_the_unreal(text)


@pytest.mark.parametrize(
    "text",
    [
        "[x] Extend the quay to 40 moorings",  # done
        "The quay has 40 moorings.",
        "The proposal for 6 bays was approved in 2019.",
        "Right now the tender carries 60 passengers.",
        "She won in 11.02 seconds (wind +1.2 m/s).",
        "The Quay Party won 9 seats.",
        "The harbour projects are funded for 3 years.",  # projects as a noun
        "The quay has 40 moorings. <!-- checked in May -->",
    ],
)
def test_a_job_done_and_plain_statements_stand(text: str) -> None:
    assert not tells_of_the_unreal(text)


def test_corpus_search_skips_a_dry_run_and_brings_a_disclaimer_two_lines_up_or_in_code(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "preview.md").write_text(
        "# Build server: sweep preview\n\n[DRY RUN] On 4 March the sweep removed 42 stale "
        "environments from the build server.\n"
    )
    (folder / "mirror.md").write_text(
        "# Release 2.4.0 (mirror copy)\n\nThe server listens on port 9031 by default.\n\n"
        "```console\n$ gpg --verify notes.txt.asc notes.txt\n"
        'gpg: BAD signature from "release team" [unknown]\n```\n'
    )
    (folder / "preprint.md").write_text(
        "# Seal pups at Pen Tallow (preprint)\n\n> This article is a preprint and has not been "
        "peer-reviewed. Now published in the *Journal of Coasts*.\n\nThe survey counted 412 "
        "grey seal pups at Pen Tallow.\n"
    )
    with SemanticStore(":memory:", embedder=embedder) as store:
        ingest_corpus(folder, store)
        tool = corpus_source(Corpus(store), k=4, min_score=0.0)
        swept = json.loads(tool.invoke({"query": "How many environments did the sweep remove?"}))
        pups = json.loads(tool.invoke({"query": "How many seal pups did the survey count?"}))
        port = json.loads(tool.invoke({"query": "Which port does the server listen on?"}))
    assert not [item for item in swept if item["path"].endswith("preview.md")]
    preprint = [item["text"] for item in pups if item["path"].endswith("preprint.md")]
    assert any("412" in text for text in preprint)
    assert any(disowned_as(text) for text in preprint)
    mirror = {item["source"]: item["text"] for item in port if item["path"].endswith("mirror.md")}
    assert any("9031" in text for text in mirror.values())
    assert any(disowned_as(text) and line.endswith(":7") for line, text in mirror.items())


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Observed: MJD 60110\n\nThe pool is 23 metres deep.", "2023-06-15"),
        ("Observed (Julian Day): JD 2460110.5\n\nThe pool is 23 metres deep.", "2023-06-15"),
        ("Last saved (spreadsheet date serial): 45123\n\nIt has 82 moorings.", "2023-07-16"),
        ("Serial date number 36526\n\nIt has 82 moorings.", "2000-01-01"),
    ],
)
def test_a_day_count_dates_its_page(text: str, date: str) -> None:
    assert stated_date("Harbour notes", text) == date


@pytest.mark.parametrize(
    "text",
    [
        "The serial number is 45123.",  # no date serial
        "MJD 12\n",  # too small a count to be a date
        "The harbour has 45123 visitors a year.",
    ],
)
def test_other_counts_date_nothing(text: str) -> None:
    assert stated_date("Harbour notes", text) is None
