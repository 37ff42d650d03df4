"""The release in which a thing first appeared: the oldest changelog entry whose sentence holds
every word of the thing (a name in code taken word by word), though newer entries that speak
of it again match the question better; a name in code of a chained part that is long; a
question's "X and Y" read as one question where a phrase comes before "which X" or where "and"
joins two names in code."""

from __future__ import annotations

from pathlib import Path

from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore
from framework.memory.corpus import ingest_corpus
from teams.language.questions import split_question
from teams.language.sentence_choice import named_in_code
from teams.research.offline import CorpusSearchWorker
from teams.research.releases import entry_release, first_entry
from tests.conftest import write_corpus

_CHANGES = (
    "# Changelog\n\n"
    "## Version 2.4.0 (2024-03-02)\n\n"
    "- Fix the order of fields when generating tide tables for leap years.\n"
    "- Speed up the `TideRouter` middleware by caching its harbour lookups.\n\n"
    "## Version 2.1.0 (2023-06-11)\n\n"
    "- Add a `--quiet` flag to the command line.\n\n"
    "## Version 1.8.0 (2022-09-13)\n\n"
    "- New utilities for generating tide tables from harbour records.\n"
    "- Add tide router middleware, sending each harbour's requests to its own app.\n\n"
    "## Version 1.7.0 (2022-05-01)\n\n"
    "- Drop support for Python 3.6.\n"
)
_PAGES = {
    "CHANGES.md": _CHANGES,
    "tables.md": "# Tide tables\n\nTidewright generates tide tables from the harbour records "
    "you give it, one table a month.\n",
    "routing.md": "# Routing\n\nThe `TideRouter` middleware sends each harbour's requests to "
    "the app that serves it.\n",
}


def test_the_oldest_entry_that_holds_the_thing_answers_when_it_first_appeared(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    root = write_corpus(tmp_path / "docs", _PAGES)
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        corpus = Corpus(store)
        asked = "In which Tidewright release did tide table generation first appear?"
        assert [entry_release(p) for p in first_entry(corpus, asked)] == [(1, 8, 0)]
        since = "since which release has it been included"
        named = [entry_release(p) for p in first_entry(corpus, since, "TideRouter")]
        assert named == [(1, 8, 0)]  # "tide router" in words, before `TideRouter` was fixed
        assert first_entry(corpus, "In which release were tide tables changed?") == []
        assert first_entry(corpus, "In which release did support first appear?") == []
        task = Task(id="q0", description=asked, inputs={"query": asked})
        found = CorpusSearchWorker(corpus).run(task, asked, NodeContext(node="w", team="t"))
    assert "1.8.0" in found.evidence[0].text


def test_a_long_name_in_code_is_the_name_a_chained_part_speaks_of() -> None:
    sentence = (
        "Setting `TIDEWRIGHT_NO_PARTIAL_HARBOUR_SYNC_FOR_BROKEN_SERVERS=1` forces a full sync."
    )
    assert (
        named_in_code(sentence, "What setting forces a full sync?")
        == "TIDEWRIGHT_NO_PARTIAL_HARBOUR_SYNC_FOR_BROKEN_SERVERS=1"
    )
    assert (
        named_in_code(
            "Run `tidewright sync --all --force --verbose --no-cache --retries 5 now`.",
            "What command?",
        )
        == ""
    )
    path = "Use :meth:`~tidewright.testing.client.HarbourClient.request` for that."
    assert named_in_code(path, "What should the tests use?") == ""  # a page's path, no name


def test_a_question_of_one_address_and_port_or_of_two_names_is_one_question() -> None:
    assert (
        split_question("If I start it with no bind option, which address and port does it use?")
        == []
    )
    assert (
        split_question("In which release were TideRouter and tide_router renamed to Router?") == []
    )
    two = split_question("Which flag turns the cache off, and which release added that flag?")
    assert len(two) == 2
