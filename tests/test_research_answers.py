"""How the offline research team finds and composes answers on text it was not tuned on: the
section a version points to, why-answers, sentences that name their subject by a pronoun, each
part of a two-part question answered and cited on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.engine.records import Evidence, Task, WorkerResult
from framework.engine.runtime import NodeContext
from framework.memory import Corpus, MiniLMEmbedder, Passage, SemanticStore, chunk_document
from framework.memory.corpus import ingest_corpus
from teams.language.questions import answer_kind, asks_when, pointers
from teams.language.sentence_choice import ranked_sentences
from teams.language.words import keywords, stem
from teams.research.offline import CorpusSearchWorker, _another_premise, _answers, cited_sentence
from teams.research.report import cited_report
from tests.conftest import write_corpus

RELEASES = (
    "# Changes\n\n## 2.0 (May 2024)\n\n### Removed\n\n* Drop the `ferret` protocol.\n\n"
    "## 1.4 (March 2021)\n\n### Removed\n\n* Drop the `legacy_tunnel` option.\n"
)


def _cited(passage: Passage, query: str) -> tuple[str, str]:
    cited = cited_sentence(passage, query)
    assert cited is not None
    return cited


def _passage(text: str, heading: str = "", line: int = 1) -> Passage:
    return Passage(
        source=f"doc.md:{line}", path="doc.md", line=line, heading=heading, text=text, score=0.9
    )


def test_a_chunk_keeps_the_headings_that_hold_its_own() -> None:
    chunks = chunk_document("changes.md", RELEASES)
    assert [(c.outline, c.heading) for c in chunks] == [
        ("Changes > 2.0 (May 2024)", "Removed"),
        ("Changes > 1.4 (March 2021)", "Removed"),
    ]
    underlined = "Guide\n=====\n\nSetup\n-----\n\nInstall it.\n\nUse\n---\n\nRun it.\n"
    assert [c.outline for c in chunk_document("guide.md", underlined)] == ["Guide", "Guide"]


def test_a_question_points_to_the_versions_and_years_it_names() -> None:
    assert pointers("What did 1.4 drop, and what changed in version 2 in 2024?") == [
        "1.4",
        "2",
        "2024",
    ]
    assert pointers("Does it speak HTTP/1.1?") == []


def test_the_section_a_version_points_to_is_cited_over_a_newer_page(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    root = write_corpus(
        tmp_path / "docs",
        {
            "changes.md": RELEASES,
            "options.md": "# Options\n\nThe options the current release supports are "
            "`tunnel`, `retries` and `ferret`; an option that is dropped is listed here.\n",
        },
    )
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        corpus = Corpus(store)
        question = "Which option did release 1.4 drop?"
        assert [p.source for p in corpus.pointed_to(question, ["1.4"])] == ["docs/changes.md:13"]
        assert corpus.pointed_to(question, ["4"]) == []  # "4" is no version "1.4" starts with
        task = Task(id="q0", description=question, inputs={"query": question})
        found = CorpusSearchWorker(corpus).run(task, question, NodeContext(node="w", team="t"))
    assert found.evidence[0].source == "docs/changes.md:13"
    assert "legacy_tunnel" in found.evidence[0].text


def test_a_why_answer_takes_the_cause_a_consequence_refers_back_to() -> None:
    text = (
        "The index runs beside the writer, as a sibling task, by design. It could have been "
        "a child task of it. This decision has the implication that a lock the index takes "
        "is not seen by the writer.\n"
    )
    passage = _passage(text)
    _, said = _cited(passage, "Why is a lock the index takes not seen by the writer?")
    assert said.startswith("The index runs beside the writer, as a sibling task")
    assert said.endswith("is not seen by the writer.")


def test_a_reason_word_the_question_holds_gives_no_reason() -> None:
    text = (
        "The size of help pages is limited. This limit is intentional because pages must "
        "stay readable on small terminals.\n"
    )
    ranked = ranked_sentences(text, "Why is the size of help pages limited?")
    assert ranked[1].score > ranked[0].score  # "help" is the question's, not a reason
    assert ranked[1].leans == 1  # "This limit" stands for the sentence that names it


def test_this_x_stands_for_the_earlier_sentence_that_names_x() -> None:
    text = (
        "Every archive gets a checksum. Mirrors copy every archive and its files nightly. "
        "This checksum is compared "
        "before an archive is served.\n"
    )
    ranked = ranked_sentences(text, "When is the checksum of an archive compared?")
    assert [item.leans for item in ranked] == [0, 0, 2]  # back to the one naming it


def test_a_sentence_without_a_subject_is_cited_with_the_heading() -> None:
    text = "Captures the writes made through `print()`. It is fast and enough for most programs.\n"
    source, said = _cited(
        _passage(text, heading='`mode="plain"`', line=7), "Which mode is fast enough?"
    )
    assert source == "doc.md:7"
    assert said == (
        '`mode="plain"`: Captures the writes made through `print()`. It is fast and enough for '
        "most programs."
    )


def test_a_pronoun_sentence_is_not_passed_over_for_the_sentence_it_stands_for() -> None:
    text = (
        "To wipe the screen, call the `wipe` function of the toolkit.\n"
        "It does what its name says: it wipes the whole visible screen.\n"
    )
    source, said = _cited(_passage(text, line=3), "What does the wipe function do?")
    assert source == "doc.md:4"
    assert said.endswith("it wipes the whole visible screen.")
    assert said.startswith("To wipe the screen")


def test_a_when_answer_is_cited_with_the_headings_above_it(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    assert asks_when("In which version was it dropped?") and asks_when("When is it read?")
    assert not asks_when("Which option was dropped?")
    root = write_corpus(tmp_path / "docs", {"changes.md": RELEASES})
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        question = "In which version was the ferret protocol dropped?"
        task = Task(id="q0", description=question, inputs={"query": question})
        found = CorpusSearchWorker(Corpus(store)).run(
            task, question, NodeContext(node="w", team="t")
        )
    assert found.evidence[0].source == "docs/changes.md:7"
    assert (
        found.evidence[0].text == "Changes > 2.0 (May 2024) > Removed: Drop the `ferret` protocol."
    )


def test_a_retry_searches_what_its_task_asks_beside_the_reformulation(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    root = write_corpus(
        tmp_path / "docs",
        {
            "kiln.md": "# Kiln\n\nThe slow firing mode suits most clay bodies.\n",
            "dryer.md": "# Dryer\n\nThe dryer organises its fans in two banks of four.\n",
        },
    )
    asked = "Which firing mode of the kiln suits most clay bodies?"
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        task = Task(id="q1", description=asked, inputs={"query": "dryer fans banks"}, attempt=1)
        found = CorpusSearchWorker(Corpus(store), k=1).run(
            task, asked, NodeContext(node="w", team="t")
        )
    assert [(e.source, e.text) for e in found.evidence] == [
        ("docs/kiln.md:3", "The slow firing mode suits most clay bodies.")
    ]


def test_a_plural_in_ing_matches_its_singular() -> None:
    assert stem("settings") == stem("setting") == stem("set")
    assert stem("things") == stem("thing")
    text = (
        "The kiln mode may be set once, with the `KILN_MODE` setting. For example, the "
        "following settings would pick our `SlowFiring` mode.\n"
    )
    ranked = ranked_sentences(text, "Which settings key chooses the kiln mode?")
    assert ranked[0].score > ranked[1].score


def test_a_question_that_asks_which_version_is_answered_by_a_version() -> None:
    assert answer_kind("Which Python version does the kiln tool need?") == "version"
    assert answer_kind("In which release was the dryer added?") == "version"
    assert answer_kind("Which option did the release drop?") == "name"
    assert answer_kind("In the kiln tutorial, why does fire() only call heat()?") == "reason"
    assert answer_kind("In the kiln guide, what danger is reduced by a vent?") != "reason"
    text = (
        "If you want to run the kiln tool without installing Python, download the "
        "PyInstaller-built `kiln.exe` file.\n"
        "The kiln tool is installed with `pip install kiln`. It requires Python 3.10+ to run.\n"
        "It speaks HTTP/1.1 to the controller.\n"
    )
    ranked = ranked_sentences(text, "Which Python version does the kiln tool need to run?")
    best = max(ranked, key=lambda item: item.score)
    assert best.sentence == "It requires Python 3.10+ to run."


def test_the_sentence_a_pronoun_stands_for_is_also_cited_at_its_own_line() -> None:
    text = (
        "The Wren gauge is the only gauge with a dedicated kiln probe.\n\n"
        "It reads the temperature every second, but lacks a humidity sensor.\n"
    )
    question = "Which gauge ships with a dedicated kiln probe, and how often does it read?"
    answered = _answers(_passage(text, line=10), question)
    assert answered is not None
    cited = [(e.source, e.text) for e in answered.evidence]
    assert cited[0] == (
        "doc.md:10",
        "The Wren gauge is the only gauge with a dedicated kiln probe.",
    )
    assert cited[1][0] == "doc.md:12"
    assert cited[1][1].endswith(
        "It reads the temperature every second, but lacks a humidity sensor."
    )
    why = _answers(_passage(text, line=10), "Why does the Wren gauge read every second?")
    assert why is not None and len(why.evidence) == 1  # a why-answer's claim is not cited alone


def test_a_sentence_cited_alone_then_quoted_counts_as_one_claim() -> None:
    said = [
        ("doc.md:1", "The Wren gauge has a kiln probe."),
        ("doc.md:3", "The Wren gauge has a kiln probe. It reads every second."),
        ("doc.md:5", "The Tern gauge has none."),
        ("doc.md:7", "Both gauges run on mains power."),
        ("doc.md:9", "The probe is sold apart."),
        ("doc.md:11", "Spare probes are kept in the store."),
    ]
    evidence = [Evidence(source=source, text=text, score=0.8) for source, text in said]
    state = {
        "question": "Which gauge has a kiln probe?",
        "tasks": {"q0": Task(id="q0", description="Which gauge has a kiln probe?")},
        "worker_results": {
            "q0": WorkerResult(task_id="q0", status="ok", evidence=evidence, confidence=0.8)
        },
    }
    report = cited_report(state)  # type: ignore[arg-type]
    assert [source in report for source, _ in said] == [True] * 5 + [False]


def test_a_release_date_under_the_heading_the_question_points_to_is_cited() -> None:
    assert answer_kind("On what date did Kiln 2.4.1 come out?") == "time"
    assert answer_kind("In which year did the dryer ship?") == "time"
    text = "Released 2023-07-14\n\n-   Fix the `glaze` filter on empty kilns.\n"
    question = "On what date did Kiln 2.4.1 come out?"

    def best(heading: str) -> str:
        return max(ranked_sentences(text, question, heading), key=lambda s: s.score).sentence

    assert best("Version 2.4.1").startswith("Released 2023-07-14")
    assert best("Version 2.4.10").startswith("Fix")  # another release: no pointer to it


def test_a_version_question_names_the_release_a_changelog_entry_sits_under() -> None:
    text = "Released 2022-03-24\n\n-   Drop support for Python 3.6.\n"
    answered = _answers(
        _passage(text, heading="Version 3.1.0"), "Which release dropped Python 3.6?"
    )
    assert answered is not None
    assert any(e.text.startswith("Version 3.1.0: ") and "3.6" in e.text for e in answered.evidence)


def test_a_question_asking_for_the_default_quotes_the_sentence_stating_it() -> None:
    text = (
        "``kiln.glaze``:\n    The glaze applied to the pots the kiln fires.  It is applied\n"
        "    once.  The default is `clear`.\n\n``kiln.heat``:\n    The heat the kiln fires at.\n"
    )
    question = "If I don't configure anything, which glaze does the kiln put on the pots it fires?"
    answered = _answers(_passage(text), question)
    assert answered is not None and "`clear`" in answered.evidence[0].text
    assert answered.evidence[0].source == "doc.md:3"  # where the default is stated
    plain = _answers(_passage(text), "Which glaze does the kiln put on the pots it fires?")
    assert plain is not None and "`clear`" not in plain.evidence[0].text


def test_a_question_asking_when_something_is_worth_doing_is_answered_by_what_it_is_good_for() -> (
    None
):
    assert answer_kind("In what situation is it worth firing pots twice?") == "reason"
    assert answer_kind("In which case does the kiln stop?") == ""
    assert answer_kind("In what situation is it practical to fire pots twice?") == "reason"
    assert answer_kind("What is firing pots twice good for?") == "reason"
    assert answer_kind("What is the good glaze for pots?") == ""


def test_a_why_answer_takes_the_paragraph_after_a_one_sentence_claim() -> None:
    text = (
        "Have in mind that glaze checks won't run when the kiln is started by hand.\n\n"
        "Glaze checks depend on the name of the program called.\n\n"
        "```\nkiln fire\n```\n"
    )
    answered = _answers(
        _passage(text), "Why do glaze checks not run when the kiln is started by hand?"
    )
    assert answered is not None
    assert "depend on the name of the program" in answered.evidence[0].text
    two = "Glaze checks won't run by hand. They are slow.\n\nGlaze checks depend on the name.\n"
    answered = _answers(_passage(two), "Why do glaze checks not run by hand?")
    assert answered is not None
    assert "depend" not in answered.evidence[0].text  # not a paragraph alone


def test_a_why_answer_reaches_past_an_example_to_the_sentence_that_explains() -> None:
    text = (
        "The old kiln's aim is to fire every pot at once, even if a lid holds a glaze note.\n"
        "In such kilns, the lid is opened and the note moved to the shelf:\n\n"
        "```\nbay 4: note\n```\n\n"
        "The new kiln, like the Brede kiln, keeps shut any lid that holds a glaze note. For "
        "example,\nthe Rye kiln would avoid moving the jar on shelf two. This ensures that the "
        "pots keep their colour, at the\ncost of a slower firing.\n"
    )
    asked = (
        "What does the new kiln gain by keeping shut a lid that holds a glaze note, where the "
        "old kiln would open it?"
    )
    answered = _answers(_passage(text), asked)
    assert answered is not None
    assert "pots keep their colour" in answered.evidence[0].text  # past the example's "avoid"
    assert answered.evidence[0].source == "doc.md:9"  # cited where the reason is given


def test_a_why_answer_cites_the_sentence_giving_the_reason_at_its_own_line() -> None:
    text = (
        "You can print the values of local variables in the kiln log.\n\n"
        "By default, this setting is disabled to avoid showing secrets such as a password.\n\n"
        "In these cases, it could be problematic if the log shows those values.\n"
    )
    answered = _answers(
        _passage(text, line=20), "Why are local variables left out of the kiln log?"
    )
    assert answered is not None
    assert any(e.source == "doc.md:22" and "to avoid" in e.text for e in answered.evidence)


def test_a_question_asking_for_a_drawback_or_a_release_of_something_is_read_so() -> None:
    assert answer_kind("What is the drawback of declaring options in decorators?") == "reason"
    assert asks_when("From which Kiln release on is Python 3.9 no longer supported?")


def test_what_makes_one_thing_preferable_asks_why() -> None:
    assert answer_kind("What makes a dotted kiln name preferable to a joined one?") == "reason"
    assert answer_kind("What makes the dotted kiln name?") == "name"


def test_guarding_against_a_thing_is_preventing_it() -> None:
    text = (
        "Kilns dump only the fields of the declared type.\n"
        "This helps prevent accidental leaks of secret fields.\n"
        "Kilns were slower in the old series.\n"
    )
    ranked = ranked_sentences(text, "What is dumping only declared fields meant to guard against?")
    assert max(ranked, key=lambda s: s.score).sentence.startswith("This helps prevent")


def test_a_switch_set_to_false_is_turned_off() -> None:
    text = (
        "Keep the `fat` package metadata setting in the wheel.\n"
        "Keep package metadata by setting the `thin` setting to false.\n"
    )
    ranked = ranked_sentences(text, "Which setting must be turned off to keep package metadata?")
    assert max(ranked, key=lambda s: s.score).sentence.startswith("Keep package metadata")


def test_a_version_given_as_a_floor_answers_the_oldest_one() -> None:
    text = "Kiln was first written for Python 2.\nKiln runs anywhere Python 3.9+ is installed.\n"
    ranked = ranked_sentences(text, "What is the oldest Python that Kiln needs?")
    assert max(ranked, key=lambda s: s.score).sentence.startswith("Kiln runs anywhere")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which setting stops the kiln from cooling the glaze?", "The `FAST` setting disables"),
        ("To whom are kiln reports about glaze passed on?", "The desk forwards"),
    ],
)
def test_a_thing_kept_from_happening_is_disabled_and_one_passed_on_is_forwarded(
    question: str, answer: str
) -> None:
    text = (
        "The kiln cools the glaze slowly with the `SLOW` setting; kiln reports about glaze stay.\n"
        "The `FAST` setting disables cooling the glaze in the kiln.\n"
        "The desk forwards kiln reports about glaze to Ann Lee.\n"
    )
    ranked = ranked_sentences(text, question)
    assert max(ranked, key=lambda s: s.score).sentence.startswith(answer)


def test_a_condition_the_question_opens_with_does_not_set_its_kind() -> None:
    assert answer_kind("When I turn the kiln on, which firing mode is used?") == "name"
    assert answer_kind("If steps must run in order, why put them in one method?") == "reason"
    assert answer_kind("When did the kiln first fire?") == "time"
    assert not asks_when("When I start the kiln, which mode does it use?")


def test_a_disputed_rival_is_reported_as_unresolved_not_as_a_finding() -> None:
    evidence = [
        Evidence(source="a.md:3", text="The kiln waits 0.3 s by default.", score=0.8),
        Evidence(source="b.md:9", text="Send the stop, wait 0.2 s.", score=0.8, disputed=True),
    ]
    state = {
        "question": "How long does the kiln wait?",
        "tasks": {"q0": Task(id="q0", description="How long does the kiln wait?")},
        "worker_results": {
            "q0": WorkerResult(task_id="q0", status="ok", evidence=evidence, confidence=0.8)
        },
    }
    report = cited_report(state)  # type: ignore[arg-type]
    findings, _, rest = report.partition("## Unresolved")
    assert "0.3 s" in findings and "0.2 s" not in findings
    assert "otherwise: Send the stop, wait 0.2 s. (`b.md:9`)" in rest


def test_a_table_row_answers_with_its_values_at_its_own_line() -> None:
    text = (
        "Variables the image reads:\n\n"
        "| Variable | Description | Default |\n|---|---|---|\n"
        "| `KILN_BIND` | Full bind address | `0.0.0.0:9000` |\n"
        "| `KILN_WORKERS` | Number of workers | `4` |\n"
    )
    answered = _answers(
        _passage(text, "Environment", line=10), "What address does the kiln bind to?"
    )
    assert answered is not None
    best = answered.evidence[0]
    assert best.source == "doc.md:14" and "0.0.0.0:9000" in best.text


def test_an_example_worked_from_another_premise_is_not_an_answer() -> None:
    asked = "The newest compiler is 4.2: which minimum should the manifest name?"
    other = "For example, if the newest compiler is 4.1, the minimum will be at most 3.9."
    own = "Set the minimum to the newest minus two (e.g. 4.0 if the newest is 4.2)."
    assert _another_premise(other, asked)
    assert not _another_premise(own, asked)
    assert not _another_premise(other, "Which minimum should the manifest name?")


def test_a_series_in_the_question_points_to_its_releases_and_a_glued_version_is_split() -> None:
    assert pointers("Which interpreter does the Falcon 4.x line support?") == ["4"]
    assert "pypy" in {stem(word) for word in keywords("It supports PyPy3.10 (v7.3.16).")}
