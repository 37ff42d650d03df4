"""Reference pages: an entry's "Default:" field line answers a question of its default, a
statement that refers to an entry leads to it, a default stated as one answers before a
passing figure; a sentence about another operating system is not the answer; a note that
points back across an example answers what could go wrong; a quoted term leads to its
section; a phrase set before a question is no question of its own."""

from __future__ import annotations

from pathlib import Path

from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.memory import Corpus, MiniLMEmbedder, Passage, SemanticStore
from framework.memory.corpus import ingest_corpus
from teams.language._sentences import sentences_of
from teams.language.questions import answer_kind, asks_default, quoted_terms, split_question
from teams.research.offline import CorpusSearchWorker, _answers
from tests.conftest import write_corpus

_ENTRY = (
    ".. setting:: KILN_HEAT_LIMIT\n\nKILN_HEAT_LIMIT\n---------------\n\n"
    "Default: ``1280``\n\nScope: ``kiln.firing``\n\n"
    "The hottest the kiln is let run, in degrees.\n\n"
    "This setting stops a runaway firing.\n\n"
    "The default value is taken from the glaze makers' tables.\n"
)


def _passage(text: str, path: str = "doc.rst") -> Passage:
    return Passage(source=f"{path}:1", path=path, line=1, heading="", text=text, score=0.9)


def _found(tmp_path: Path, embedder: MiniLMEmbedder, pages: dict[str, str], asked: str) -> str:
    """The worker's evidence for ``asked`` over ``pages``, one statement a line."""
    root = write_corpus(tmp_path / "docs", pages)
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        task = Task(id="q0", description=asked, inputs={"query": asked})
        found = CorpusSearchWorker(Corpus(store)).run(task, asked, NodeContext(node="w", team="t"))
    return "\n".join(f"{e.source} {e.text}{' (disputed)' * e.disputed}" for e in found.evidence)


def test_an_entrys_default_line_answers_from_any_of_its_paragraphs() -> None:
    for question in (
        "How hot may the kiln run if I keep the default limit?",
        "What limit stops a runaway firing if I leave that setting alone?",
    ):
        answered = _answers(_passage(_ENTRY), question)
        assert answered is not None
        assert any("Default: ``1280``" in e.text for e in answered.evidence), question
        assert answered.evidence[0].source == "doc.rst:6"  # where the default is stated


def test_a_default_line_of_another_entry_is_not_read_across_its_heading() -> None:
    text = "Default: ``40``\n\nOTHER\n-----\n\nThe hottest the kiln is let run, in degrees.\n"
    answered = _answers(_passage(text), "How hot may the kiln run by default?")
    assert answered is not None
    assert not any("``40`` The hottest" in e.text for e in answered.evidence)


def test_ways_of_leaving_a_setting_alone_ask_its_default() -> None:
    assert asks_default("How long may a lookup take, if I leave that setting alone?")
    assert asks_default("If I leave the kiln fan speed setting alone, how fast does it spin?")
    assert asks_default("With the throttle switched on and left untuned, what wait is used?")
    assert asks_default("If I set a kiln fan_speed but no fan_timeout, what timeout is used?")
    assert asks_default("I run the kiln with no profile and no config file at all. How hot?")
    assert asks_default("Without any settings, how fast does the kiln fan spin?")
    assert not asks_default("If I set a fan speed but the kiln stalls, what then?")
    assert not asks_default("How long may a lookup take?")
    assert not asks_default("What happens with no arguments?")


def test_a_default_stated_as_one_answers_before_a_figure_in_passing(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    pages = {
        "tuning.md": "# Tuning\n\nThe default settings of the kiln suit a single firing a "
        "day, not a busy kiln room that runs many firings.\n",
        "settings.rst": _ENTRY,
    }
    asked = "How many degrees may the kiln reach with the default limit?"
    found = _found(tmp_path, embedder, pages, asked)
    assert found.startswith("docs/settings.rst:6 Default: ``1280``")
    assert all(line.endswith("(disputed)") for line in found.splitlines() if "single" in line)


def test_a_statement_that_refers_to_an_entry_leads_to_its_default(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    pages = {
        "firing.rst": "Firing\n======\n\nThe kiln heats in steps and holds each step for a "
        "while. Every firing starts with a hold of :setting:`KILN_FIRST_HOLD` minutes, then "
        "the heat rises.\n",
        "settings.rst": "Settings\n========\n\n.. setting:: KILN_FIRST_HOLD\n\n"
        "KILN_FIRST_HOLD\n~~~~~~~~~~~~~~~\n\nDefault: ``45``\n\nThe opening hold.\n",
    }
    asked = "If left untuned, how long a hold does a firing begin with?"
    assert "Default: ``45``" in _found(tmp_path, embedder, pages, asked)


def test_a_sentence_about_another_operating_system_is_not_the_answer() -> None:
    text = (
        "If the kiln cannot be found, then on Windows systems the tool uses `KILN_HOME`, "
        "defaulting to `C:\\kiln`. On all other platforms it uses `~/.kiln`.\n"
    )
    question = "On Linux, if the tool cannot find the kiln, which folder does it use?"
    answered = _answers(_passage(text), question)
    assert answered is not None
    assert "~/.kiln" in answered.evidence[0].text
    assert not any("C:" in e.text for e in answered.evidence)


def test_a_note_that_points_back_across_an_example_says_what_could_go_wrong() -> None:
    assert answer_kind("What could go wrong if I skip the slow cooling, to save time?") == (
        "reason"
    )
    text = (
        "All shelves are cooled slowly by default. To skip slow cooling, set `fast-cool` to "
        "`true`:\n\n```toml\nfast-cool = true\n```\n\n!!! warning\n"
        "    This may crack the thicker pots on the lower shelves.\n"
    )
    answered = _answers(_passage(text, "doc.md"), "What could go wrong if I skip slow cooling?")
    assert answered is not None
    assert any("crack the thicker pots" in e.text for e in answered.evidence)


def test_a_quoted_term_leads_to_its_section(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    assert quoted_terms('What does the mode "aware" do, and `fast-cool`?') == [
        "aware",
        "Aware",
        "fast-cool",
        "Fast-cool",
    ]
    pages = {
        "modes.md": "# Modes\n\nThe kiln has three modes of choosing a programme.\n\n"
        '## Aware\n\n```toml\nmode = "aware"\n```\n\nThis is the manual mode with a fallback '
        "to the timed mode.\n\n## Timed\n\nThe programme runs on a clock.\n",
    }
    assert "fallback" in _found(tmp_path, embedder, pages, 'How does the kiln act in "aware" mode?')


def test_a_phrase_set_before_a_question_is_not_a_question_of_its_own() -> None:
    assert (
        split_question("With the fan switched on and left untuned, what speed does it use?") == []
    )
    assert (
        split_question("On Linux, if it cannot tell which shell I use and none is set, which?")
        == []
    )
    assert split_question("In which release was the fan added and when was it removed?") == [
        "In which release was the fan added",
        "when was it removed",
    ]


def test_an_entrys_version_note_on_what_the_answer_speaks_of_is_quoted() -> None:
    text = (
        ".. option:: -w N\n\n   Fire the kiln over *N* shelves at once.\n"
        "   If ``auto`` is given, every shelf is used as *N*.\n\n"
        "   .. versionadded:: 1.2\n      This option is new.\n\n"
        "   .. versionchanged:: 1.7\n      Support ``auto`` argument.\n\n"
        "   .. versionchanged:: 6.2\n      Add ``--width`` long option.\n"
    )
    question = "From which version could I give a value that uses every shelf at once?"
    answered = _answers(_passage(text), question)
    assert answered is not None
    assert any("Changed in 1.7" in e.text for e in answered.evidence)
    assert not any("6.2" in e.text for e in answered.evidence)


def test_an_admonitions_quoted_title_is_read() -> None:
    text = (
        '# Kilns\n\nThe kiln API fires pots.\n\n!!! tip "The kiln API was added in version '
        '0.18.0"\n\n## Colours\n\n!!! tip "Added in version 0.80.0"\n\n'
        "Glazes keep their own colours in the kiln.\n"
    )
    said = [sentence for _, sentence in sentences_of(text)]
    assert "The kiln API was added in version 0.18.0." in said
    assert "Added in 0.80.0:" in said


def test_a_simple_table_of_restructuredtext_is_no_sentence() -> None:
    text = (
        "This is the kiln's firing table:\n\n=========== ======\nDate        Heat\n"
        "=========== ======\n05 Oct 2023 1100+\n----------- ------\n04 Oct 2024 1200+\n"
        "=========== ======\n\nThe kiln cools overnight.\n"
    )
    said = [sentence for _, sentence in sentences_of(text)]
    assert said == ["This is the kiln's firing table:", "The kiln cools overnight."]


def test_a_default_field_among_a_references_joined_fields_answers_its_default(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    pages = {
        "guide.md": "# Fans\n\nThe `fan_mode` setting picks how the kiln's fan runs: most "
        "potters set `FanModes.PULSE`.\n",
        "options.md": "# Options\n\n## Fan Mode\n\nHow the fan runs (0-steady, 1-pulse).\n\n"
        "**Type:** Fanmodes  \n**Default:** `FanModes.STEADY`  \n"
        "**Python & Config File Name:** fan_mode  \n",
    }
    asked = "If I never set fan_mode, which mode does the kiln's fan run in?"
    found = _found(tmp_path, embedder, pages, asked)
    stated = next(line for line in found.splitlines() if "FanModes.STEADY" in line)
    assert stated.startswith("docs/options.md:") and "(disputed)" not in stated, found
    assert "FanModes.PULSE" not in found.split(stated)[0]  # no figure in passing before it
