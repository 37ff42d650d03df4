"""Reference entries and paraphrase: a directive that describes a named thing (``.. envvar::``)
read as the term of its body, kept in one chunk with it, its default stated a paragraph below;
directive options that hold no prose; a paragraph that points back kept with the one before;
an adjective in "-able" as its verb; superlatives of size as "maximum"; "first ship" and "take
out"; a superseded value left out; a why-answer's reason after it; a better answer kept beside
the passages a version points to."""

from __future__ import annotations

from framework.memory import Passage, prose_sentences
from framework.memory._chunking import chunk_document
from teams.language.senses import plain_wording, sense
from teams.language.superseded import asks_what_was, without_superseded
from teams.language.words import stem
from teams.research.offline import _answers, _reranked

_VARIABLES = (
    "Reconnection\n"
    "------------\n\n"
    "Reconnection attempts are spaced out with backoff.\n\n"
    ".. envvar:: BACKOFF_FIRST\n\n"
    "    The first attempt waits a random time up to ``BACKOFF_FIRST`` seconds.\n\n"
    "    The default value is ``4.0`` seconds.\n\n"
    ".. envvar:: BACKOFF_CEILING\n\n"
    "    The wait between attempts is capped at ``BACKOFF_CEILING``\n"
    "    seconds.\n\n"
    "    The default value is ``70.0`` seconds.\n"
)


def test_a_described_name_is_the_term_of_its_body_and_options_hold_no_prose() -> None:
    text = (
        ".. envvar:: MAX_HOPS\n\n"
        "    Maximum number of redirects a client follows.\n\n"
        ".. admonition:: Release 4.0 brings a threaded client.\n"
        "    :class: important\n\n"
        "    It suits scripts.\n"
    )
    sentences = [sentence for _, sentence in prose_sentences(text)]
    assert sentences[0] == "``MAX_HOPS``: Maximum number of redirects a client follows."
    assert "Release 4.0 brings a threaded client." in sentences
    assert not any(":class:" in sentence for sentence in sentences)


def test_each_option_or_setting_of_a_commands_help_is_an_entry_of_its_own() -> None:
    text = (
        "    Options:\n"
        "      -h, --host TEXT           Host for the kiln. Defaults to 127.0.0.1 which\n"
        "                                lets only this machine in.\n"
        "      -p, --port INTEGER RANGE  Port for the kiln, defaults to 8020.\n"
        "      --reload                  Reload when the glaze changes.\n"
        "    Settings:\n"
        "      max_glaze_mb              Most glaze a pot takes, in MB - set 0 to disable\n"
        "                                this limit (default=100)\n"
        "      cool_hours                Hours the kiln cools (default=8)\n"
    )
    found = prose_sentences(text)
    assert (4, "-p, --port INTEGER RANGE Port for the kiln, defaults to 8020.") in found, found
    assert (2, "-h, --host TEXT Host for the kiln.") in found, found
    limit = "max_glaze_mb Most glaze a pot takes, in MB - set 0 to disable this limit (default=100)"
    assert (7, limit) in found, found


def test_a_directive_body_is_not_cut_from_its_entry() -> None:
    chunks = chunk_document("variables.rst", _VARIABLES, max_chars=240)
    holding = next(chunk for chunk in chunks if "70.0" in chunk.text)
    assert holding.text.startswith(".. envvar:: BACKOFF_CEILING")
    assert "capped at" in holding.text


def test_a_paragraph_that_points_back_stays_with_the_one_before() -> None:
    text = (
        "Intro\n=====\n\n"
        + "A first paragraph that sets the scene at some length for the reader. " * 3
        + "\n\nA handler may be cut off while it is cleaning up after itself.\n\n"
        "For these reasons, handlers are never cancelled.\n"
    )
    chunks = chunk_document("design.rst", text, max_chars=300)
    holding = next(chunk for chunk in chunks if "For these reasons" in chunk.text)
    assert holding.text.startswith("A handler may be cut off")


def test_the_default_a_paragraph_below_a_described_name_is_quoted_with_it() -> None:
    entry = _VARIABLES[_VARIABLES.index(".. envvar:: BACKOFF_CEILING") :].rstrip()
    passage = Passage(
        source="variables.rst:12",
        path="variables.rst",
        line=12,
        heading="Reconnection",
        text=entry,
        score=0.8,
    )
    answered = _answers(passage, "What is the longest wait between two attempts by default?")
    assert answered is not None
    best = answered.evidence[0]
    assert "70.0" in best.text and "BACKOFF_CEILING" in best.text
    assert best.source == "variables.rst:17"  # where the default is stated


def test_an_adjective_in_able_stands_for_its_verb_on_a_long_root_only() -> None:
    assert stem("retryable") == stem("retrying") == stem("retry")
    assert stem("configurable") == stem("configure")
    assert stem("disable") != stem("dis") and stem("capable") != stem("capped")


def test_superlatives_of_size_are_maximum_and_phrasal_wordings_are_plain() -> None:
    assert {sense(stem(word)) for word in ("longest", "largest", "biggest", "capped", "max")} == {
        sense(stem("maximum"))
    }
    assert "introduced" in plain_wording("In which version did it first ship its client?")
    assert "removed" in plain_wording("When was the old type taken out altogether?")


def test_a_value_given_as_replaced_is_left_out_of_an_answer_about_now() -> None:
    assert without_superseded("Fixed the default size. Previously was 8KiB, now 16KiB.") == (
        "Fixed the default size. … now 16KiB."
    )
    assert without_superseded("The timeout changed from 30 s to 60 s.") == (
        "The timeout changed … to 60 s."
    )
    assert without_superseded("Upgrade our bundled glaze from 3.11 to 5.4.1; it is safer.") == (
        "Upgrade our bundled glaze … to 5.4.1; it is safer."
    )
    assert without_superseded("We moved from Paris to Rome in 2020.") == (
        "We moved from Paris to Rome in 2020."
    )
    assert without_superseded("The pool holds 20 connections (was 10).") == (
        "The pool holds 20 connections …."
    )
    assert without_superseded("Previously, it used the system's; now it uses 3.") == (
        "Previously, it used the system's; now it uses 3."
    )
    assert asks_what_was("What was the old pool size?")
    assert not asks_what_was("What pool size does it use nowadays?")


def test_a_why_answer_quotes_the_sentence_that_gives_its_reason_after_it() -> None:
    text = (
        "The main goal should be to ensure your library supports both the old and the new "
        "release line for some time. This is to reduce the chance that clashing pins reach "
        "your users.\n"
    )
    passage = Passage(
        source="guide.md:3", path="guide.md", line=3, heading="Migrating", text=text, score=0.7
    )
    question = "Why should my library keep supporting both release lines for some time?"
    answered = _answers(passage, question)
    assert answered is not None
    assert "clashing pins" in answered.evidence[0].text


def test_a_better_answer_is_kept_beside_the_passages_a_version_points_to() -> None:
    pointed = [
        Passage(
            source=f"changes.md:{line}",
            path="changes.md",
            line=line,
            heading="2.0.0",
            text=f"Removed the old helper number {line}.",
            score=0.7,
        )
        for line in (3, 5, 7, 9)
    ]
    other = Passage(
        source="guide.md:4",
        path="guide.md",
        line=4,
        heading="Common upgrading issues",
        text="Upgrade to ``docker==6.1.0``, the docker release that works with 2.0.",
        score=0.7,
    )
    question = "Which docker release works with 2.0?"
    kept = _reranked([*pointed, other], question, "", {p.source for p in pointed}, 4)
    assert other.source in {answered.passage.source for answered in kept}
    assert len(kept) == 4


def test_each_restructuredtext_footnote_is_a_sentence_of_its_own() -> None:
    text = (
        ".. rubric:: Footnotes\n\n"
        ".. [#t1] localization support for parsing\n"
        ".. [#t3] the result is truncated to microseconds, with half-to-even rounding.\n"
        ".. [2] See the tide tables.\n"
        ".. _target: https://example.org\n"
    )
    assert prose_sentences(text) == [
        (3, "localization support for parsing"),
        (4, "the result is truncated to microseconds, with half-to-even rounding."),
        (5, "See the tide tables."),
    ]


def test_an_interpreter_session_cut_from_its_directive_holds_no_prose() -> None:
    session = ">>> arw.format(FORMAT_COOKIE)\n    'Wednesday, 27-May-2020 10:30:35 UTC'\n"
    assert prose_sentences(session) == []
    assert prose_sentences("> Quoted advice for the reader.") == [
        (1, "Quoted advice for the reader.")
    ]
