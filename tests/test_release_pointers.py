"""Which release a question asks for: a changelog's releases named on bold lines read as
headings, a pre-release read whole, "Which X 4.0 pre-release" and "the first X release" asking
for a version, a version of another product ("Python 3.4") pointing to no release of the one
asked, a statement of another version of that product set aside, a passage that answers
clearly better or names the version asked about deciding the value, versions held by the
lexicon, paraphrases of dropped support and of running in parallel, and the changelog entry
that names a flag answering which release shipped it, and the entry that answers when no page
cited gives a version."""

from __future__ import annotations

from pathlib import Path

from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.memory import Corpus, MiniLMEmbedder, Passage, SemanticStore
from framework.memory._chunking import chunk_document
from framework.memory._lexicon import Lexicon
from framework.memory.corpus import ingest_corpus
from teams.language.questions import answer_kind, asks_when
from teams.language.senses import plain_wording
from teams.language.sentence_choice import (
    foreign_versions,
    given,
    ranked_sentences,
    term_weights,
)
from teams.language.words import stem
from teams.research.offline import CorpusSearchWorker, _agreeing, _answers
from teams.research.releases import asks_release, entries_naming, entry_release
from tests.conftest import write_corpus

_HISTORY = (
    "Version history\n"
    "===============\n\n"
    "**3.7.0**\n\n"
    "- Dropped support for Python 3.4\n"
    "- Added a Qt scheduler\n\n"
    "**Note:**\n\n"
    "Releases before 3.0 are not listed.\n\n"
    "**3.4.0**\n\n"
    "- Dropped support for Python 3.3\n"
)
_ASKED = "What was the first Cron release that could no longer be used on Python 3.4?"


def test_a_bold_line_that_names_a_release_heads_its_notes() -> None:
    texts: dict[str, str] = {}
    for chunk in chunk_document("history.rst", _HISTORY, max_chars=60):
        texts[chunk.heading] = f"{texts.get(chunk.heading, '')}\n{chunk.text}"
        assert chunk.heading not in ("3.7.0", "3.4.0") or chunk.outline == "Version history"
    assert "Dropped support for Python 3.4" in texts["3.7.0"]
    assert "Releases before 3.0" in texts["3.7.0"]  # "**Note:**" names no release
    assert "Dropped support for Python 3.3" in texts["3.4.0"]


def test_a_question_for_a_pre_release_or_the_first_release_asks_for_a_version() -> None:
    for question in ("Which Cron 4.0 pre-release first shipped a Redis broker?", _ASKED):
        assert asks_when(question)
        assert answer_kind(question) == "version"
    assert given("version", "4.0.0a2: Added a Redis broker", "Which 4.0 pre-release?") == {
        "4.0.0a2"
    }


def test_a_version_of_another_product_points_to_no_release_of_the_asked_one() -> None:
    assert foreign_versions(_ASKED) == {"3.4"}
    assert foreign_versions("What changed in Cron 3.4?") == set()
    assert given("version", "3.4.0: Added a Qt scheduler", _ASKED) == {"3.4"}  # a rival
    assert given("version", "3.7.0: Dropped support for Python 3.4", _ASKED) == {"3.7"}


def test_a_statement_of_another_version_of_the_asked_product_is_set_aside() -> None:
    older, newer = (
        ranked_sentences(f"Dropped support for Python {v}", _ASKED, heading=h)[0].score
        for v, h in (("3.3", "3.4.0"), ("3.4", "3.7.0"))
    )
    assert newer > older


def test_a_passage_that_answers_clearly_better_decides_the_value() -> None:
    question = "In which Cron release did Python 3.9 stop being supported?"
    found = [
        Passage(source=f"{path}:1", path=path, line=1, heading=heading, text=text, score=score)
        for path, heading, text, score in (
            ("a.md", "2024.10.09", "This release adds Python 3.13 and drops Python 3.7.", 0.73),
            ("b.md", "2026.07.11", "Drop Python 3.9 by @ann.", 0.49),
            ("c.md", "Usage", "Cron runs jobs on a schedule. It supports several backends.", 0.5),
            ("d.md", "Install", "Install Cron with pip on any supported Python.", 0.5),
        )
    ]
    weights = term_weights([passage.text for passage in found], question)
    cited = [_answers(passage, question, weights) for passage in found[:2]]
    stated = _agreeing([answered for answered in cited if answered is not None], question)
    assert [item.text for item in stated if not item.disputed] == [
        "2026.07.11: Drop Python 3.9 by @ann."
    ]


def test_the_lexicon_holds_versions() -> None:
    lexicon = Lexicon([("a", "Drop Python 3.9 now."), ("b", "Requires 4.0.0a2.")], stem)
    assert lexicon.holders("3.9") == {"a"}
    assert lexicon.holders("4.0.0a2") == {"b"}


def test_support_stopped_and_work_at_the_same_time_are_paraphrased() -> None:
    assert "removed support for" in plain_wording("When did Python 3.9 stop being supported?")
    assert "in parallel" in plain_wording("Can it run several sessions at the same time?")
    assert "asynchronous" in plain_wording("Added an async Redis broker")


_RELEASES_PLUGIN = (
    "Changelog\n=========\n\n"
    "- :release:`1.1.0 <2018-07-12>`\n"
    "- :release:`1.0.1 <2018-07-12>`\n"
    "- :feature:`543` Read the kiln's runtime file from ``KILN_RUNTIME``.\n"
    "- :bug:`520` Fix the fan's timer.\n"
    "- :release:`1.0.0 <2018-05-09>`\n"
    "- :support:`-` Dropped support for Python versions <3.6.\n"
)


def test_a_changelog_for_the_releases_plugin_heads_its_entries_with_their_release() -> None:
    headings = {c.text: c.heading for c in chunk_document("changelog.rst", _RELEASES_PLUGIN)}
    feature, support = (
        next(heading for text, heading in headings.items() if role in text)
        for role in (":feature:", ":support:")
    )
    assert feature == "1.1.0 (2018-07-12), 1.0.1 (2018-07-12)"  # read as its first release
    assert support == "1.0.0 (2018-05-09)"
    assert not any(":release:" in text for text in headings)  # a release's line heads


def test_for_the_oldest_version_a_value_stated_as_the_least_that_will_do_answers() -> None:
    question = "What is the oldest Python I can install Cron itself on?"
    found = [
        Passage(source=f"{path}:1", path=path, line=1, heading=heading, text=text, score=score)
        for path, heading, text, score in (
            (
                "a.md",
                "Changelog",
                "Check an interpreter's patch version: Cron rejected an installed Python 3.13.7 "
                "for >=3.13.5.",
                0.7,
            ),
            ("b.md", "Install", "Installing Cron needs Python 3.10 or newer.", 0.5),
        )
    ]
    weights = term_weights([passage.text for passage in found], question)
    cited = [_answers(passage, question, weights) for passage in found]
    stated = _agreeing([answered for answered in cited if answered is not None], question)
    undisputed = [item.text for item in stated if not item.disputed]
    assert any("3.10 or newer" in text for text in undisputed), stated
    assert not any("3.13.7" in text for text in undisputed), stated


def test_the_passage_that_names_the_asked_version_decides_the_value() -> None:
    question = (
        "We are still on Python 3.8. Which Cron release was the first to drop support for it?"
    )
    found = [
        Passage(source=f"{path}:1", path=path, line=1, heading=heading, text=text, score=score)
        for path, heading, text, score in (
            ("a.md", "Cron 5", "Cron 5.0.0 is the first major release of Cron in years.", 0.72),
            ("b.md", "5.12.0", "Removed support for Python 3.8", 0.44),
        )
    ]
    weights = term_weights([passage.text for passage in found], question)
    cited = [_answers(passage, question, weights) for passage in found]
    stated = _agreeing([answered for answered in cited if answered is not None], question)
    assert [item.text for item in stated if not item.disputed] == [
        "5.12.0: Removed support for Python 3.8"
    ]


def test_which_release_shipped_a_flag_is_read_from_the_entry_that_names_it(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    pages = {
        "upgrading.md": "# Upgrading to 3.0.0\n\nCron 3.0.0 is the first major release of Cron "
        "in four years, and the first release to ship a scheduler of its own.\n",
        "options.md": "# Options\n\n## Keep Warm\n\nKeeps the workers loaded between jobs, at a "
        "cost in memory.\n\n- --keep-warm\n",
        "CHANGELOG.md": "# Changelog\n\n### 3.2.0 May 4 2021\n  - Fixed #812: a lost timezone "
        "in the reports.\n  - Implemented #799: Provide a flag `--keep-warm` to keep workers "
        "loaded.\n\n### 3.1.0 March 2 2021\n  - Fixed #790: the first run of a job ran twice.\n",
    }
    root = write_corpus(tmp_path / "docs", pages)
    asked = "Which Cron release first shipped the --keep-warm flag?"
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        corpus = Corpus(store)
        assert [entry_release(p) for p in entries_naming(corpus, asked)] == [(3, 2, 0)]
        assert entries_naming(corpus, "What does the --keep-warm flag cost?") == []
        assert entries_naming(corpus, "Which Cron release first kept keep-warm workers?") == []
        assert not asks_release("What schema version is the `keep_warm.json` file written in?")
        task = Task(id="q0", description=asked, inputs={"query": asked})
        found = CorpusSearchWorker(corpus).run(task, asked, NodeContext(node="w", team="t"))
    assert "--keep-warm" in found.evidence[0].text
    assert "3.2.0" in found.evidence[0].text


def test_which_version_is_read_from_an_entry_when_no_page_cited_gives_one(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    pages = {
        "jobs.md": "# Background jobs\n\nKiln runs background jobs beside the request "
        "handlers. Kiln will make sure the background jobs finish during the shutdown, "
        "unless the server times out.\n",
        "shutdown.md": "# Shutting down\n\nAt shutdown Kiln stops taking requests, then waits "
        "for the background jobs to wrap up before the workers exit.\n",
        "workers.md": "# Workers\n\nEach worker runs its background jobs to the end; a job that "
        "takes too long at shutdown is cancelled by the server.\n",
        "timeouts.md": "# Timeouts\n\nThe server gives the jobs a little extra time at "
        "shutdown, as its own timeout allows.\n",
        "CHANGES.md": "# Changes\n\n## Version 2.3.0\n\n- Allow background jobs a grace period "
        "to complete during shutdown.\n- Fix the timezone of the reports.\n\n"
        "## Version 2.2.0\n\n- Add the kiln logs command.\n",
    }
    root = write_corpus(tmp_path / "docs", pages)
    asked = "Since which Kiln version do background jobs get extra time to wrap up at shutdown?"
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        task = Task(id="q0", description=asked, inputs={"query": asked})
        found = CorpusSearchWorker(Corpus(store)).run(task, asked, NodeContext(node="w", team="t"))
    assert "2.3.0" in found.evidence[0].text
