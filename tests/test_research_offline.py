"""The offline research team over a real corpus, with the packaged embedding model."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from framework.engine.builder import compile_team
from framework.engine.records import Task
from framework.engine.runtime import NodeContext
from framework.memory import (
    Corpus,
    MiniLMEmbedder,
    Passage,
    SemanticStore,
    chunk_document,
    ingest_corpus,
    prose_sentences,
)
from teams.hypothesis.sources import corpus_source
from teams.language.questions import (
    answer_kind,
    asks_one_value,
    premise,
    shared_words,
    split_question,
)
from teams.language.sentence_choice import best_sentences, term_weights
from teams.language.words import stem
from teams.research import build_research_team, offline_roles
from teams.research.offline import CorpusSearchWorker, _answers, cited_sentence
from tests.conftest import write_corpus

CORPUS = {
    "cats.md": "# Cats\n\nCats sleep for around fifteen hours a day.\n"
    "They hunt at dawn and dusk.\n\n## Diet\n\nCats are obligate carnivores and need taurine.\n",
    "stars.md": "# Stars\n\nA star is a ball of plasma held together by its own gravity.\n"
    "The Sun is the nearest star to Earth.\n",
    "bread.txt": "Bread dough rises because yeast ferments sugars and releases carbon dioxide.\n",
}
CITATION = re.compile(r"\(`(docs/[\w.]+:\d+)`\)$")


@pytest.fixture
def corpus(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Corpus]:
    root = write_corpus(tmp_path / "docs", CORPUS)
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        yield Corpus(store)


def _app(corpus: Corpus, **overrides: object) -> object:
    roles = offline_roles(corpus, corpus.store)
    return compile_team(build_research_team(roles, **overrides))  # type: ignore[arg-type]


def _claims(report: str) -> list[str]:
    section = report.split("## Findings", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- ")]


def _line_of(source: str, root_text: dict[str, str]) -> str:
    path, line = source.removeprefix("docs/").rsplit(":", 1)
    return root_text[path].splitlines()[int(line) - 1]


def test_offline_team_answers_with_a_citation_on_every_claim(corpus: Corpus) -> None:
    app = _app(corpus)
    state = app.invoke(  # type: ignore[attr-defined]
        {"question": "How long do cats sleep, and what do cats eat?"},
        {"configurable": {"thread_id": "t1"}},
    )
    assert set(state["tasks"]) == {"q0", "q1", "q2"}
    assert set(state["worker_results"]) == {"q0", "q1", "q2"}
    claims = _claims(state["final_answer"])
    assert claims, state["final_answer"]
    for claim in claims:
        match = CITATION.search(claim)
        assert match, f"uncited claim: {claim}"
        words = claim[2:].split(" (`")[0].rstrip(".").split()[:3]
        assert " ".join(words) in _line_of(match.group(1), CORPUS), claim
    assert "fifteen hours" in state["final_answer"]
    assert "taurine" in state["final_answer"]


def test_curator_keeps_facts_with_provenance_in_the_store(corpus: Corpus) -> None:
    app = _app(corpus)
    state = app.invoke(  # type: ignore[attr-defined]
        {"question": "How long do cats sleep?"}, {"configurable": {"thread_id": "facts"}}
    )
    facts = state["memory_writes"]
    assert facts
    assert all(fact.provenance.thread_id == "facts" for fact in facts)
    assert all(re.fullmatch(r"docs/[\w.]+:\d+", fact.provenance.source or "") for fact in facts)
    assert corpus.store.count(("facts",)) == len(facts)
    hits = corpus.store.search(("facts",), "cat sleep duration", k=1)
    assert hits and "fifteen hours" in hits[0].text


async def test_offline_team_runs_async(corpus: Corpus) -> None:
    app = _app(corpus)
    state = await app.ainvoke({"question": "What is a star made of?"})  # type: ignore[attr-defined]
    assert "plasma" in state["final_answer"]
    assert all(r.status == "ok" for r in state["worker_results"].values())


def test_low_coverage_is_retried_with_reformulated_queries(corpus: Corpus) -> None:
    app = _app(corpus, stop_rules=())
    state = app.invoke(  # type: ignore[attr-defined]
        {"question": "What is the airspeed velocity of an unladen swallow?"}
    )
    task = state["tasks"]["q0"]
    assert task.attempt == 2  # two reformulations, then the reviewer gives up
    assert task.inputs["query"] != "What is the airspeed velocity of an unladen swallow?"
    assert state["metrics"]["dispatches"] == 3
    assert "No passage answers" in state["final_answer"]


def test_empty_corpus_answers_directly(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    with SemanticStore(":memory:", embedder=embedder) as store:
        state = _app(Corpus(store)).invoke({"question": "Anything?"})  # type: ignore[attr-defined]
    assert state["control_signal"] == "answer"
    assert not state.get("worker_results")
    assert "corpus is empty" in state["final_answer"]


def test_split_question_finds_sub_questions() -> None:
    assert split_question("How long do cats sleep, and what do cats eat?") == [
        "How long do cats sleep",
        "what do cats eat",
    ]
    assert split_question("What is a star?") == []
    # a comma before a clause of its own ("if ...") lists no predicates
    assert (
        split_question("How long does the kiln heat before it gives up, if I never set it?") == []
    )
    assert split_question("How are keys stored and how are keys rotated?") == [
        "How are keys stored",
        "how are keys rotated",
    ]


def test_a_statement_of_how_things_stand_is_the_askers_case() -> None:
    question = (
        "I run `kiln fire` with no glaze, and the newest glaze release is 2.1.0. "
        "What glaze version does the kiln pick by default?"
    )
    parts = split_question(question)
    assert [premise(part) for part in parts] == [True, True, False]
    assert asks_one_value(question) == "version"  # the case's statements ask nothing
    assert not premise("the glaze the kiln picks by default")  # no statement of a case


def test_sub_questions_carry_their_subject() -> None:
    assert split_question("How does a cadre team plan, fan out work and review its results?") == [
        "How does a cadre team plan",
        "How does a cadre team fan out work",
        "How does a cadre team review its results",
    ]
    assert split_question("What is Vell stone and what is it used for?") == [
        "What is Vell stone",
        "what is Vell stone used for",
    ]
    assert split_question("Where is vellite mined and what is it used for?") == [
        "Where is vellite mined",
        "what is vellite used for",
    ]
    question = "Which tool does the relay use to log, and in which folder does it keep the logs?"
    assert split_question(question) == [
        "Which tool does the relay use to log",
        "in which folder does the relay keep the logs",  # its own question; "it": the relay
    ]
    assert split_question("How do workers retry transient errors and report failures?") == [
        "How do workers retry transient errors",
        "How do workers report failures",
    ]
    # "it" never stands for the asker: what the first part acts on instead
    assert split_question("How do I mount the vellite panel and how do I clean it?") == [
        "How do I mount the vellite panel",
        "how do I clean the vellite panel",
    ]
    # a phrasal verb's particle is not what it acts on; a name is whole
    assert split_question("How do I set up the relay and how do I shut it down?") == [
        "How do I set up the relay",
        "how do I shut the relay down",
    ]
    assert split_question("When does the Harbour Freight Agreement end, and who signs it?") == [
        "When does the Harbour Freight Agreement end",
        "who signs the Harbour Freight Agreement",
    ]


def test_the_words_every_sub_question_shares_are_their_topic_and_count_less() -> None:
    parts = split_question("How does a cadre team plan, fan out work and review its results?")
    assert shared_words(parts) == "cadre team"
    assert shared_words(["What is a star"]) == ""
    texts = ["The cadre team has a planner.", "The cadre team runs.", "Workers plan tasks."]
    plain = term_weights(texts, parts[0])
    weighed = term_weights(texts, parts[0], topic="cadre team")
    cadre = stem("cadre")
    assert weighed["plan"] == plain["plan"] and weighed[cadre] < plain[cadre] / 3 + 1e-9


def test_sentences_answer_what_the_question_asks() -> None:
    text = (
        "# Vellite\n\nVellite is a soft green stone prized by carvers across the region.\n"
        "It is quarried only near Lake Vell.\n\n- `max_size`, the largest block the quarry "
        "ships, or `None` for no limit.\n(Default 40)\n\nThe stone (a.k.a. lake jade) is "
        "carved into bowls.\n"
    )
    where = best_sentences(text, "Where is vellite quarried?", limit=1, heading="Vellite")
    assert where == [(3, "It is quarried only near Lake Vell.")]
    size = best_sentences(text, "How large is the largest block by default?", limit=1)
    assert size == [
        (5, "`max_size`, the largest block the quarry ships, or `None` for no limit. (Default 40)")
    ]
    [(_, aka)] = best_sentences(text, "What is the stone carved into?", limit=1)
    assert aka == "The stone (a.k.a. lake jade) is carved into bowls."


def test_a_how_question_gets_the_command_a_sentence_introduces() -> None:
    text = (
        "# Plugins\n\nPlugins add formats. To use them, install the extra first:\n\n"
        "```shell\n# the extra\n$ pip install tool[plugins]\n```\n"
    )
    [(line, said)] = best_sentences(text, "How do I install the plugins?", limit=1)
    assert (line, said) == (2, "To use them, install the extra first: `pip install tool[plugins]`")
    [(_, plain)] = best_sentences(text, "What do plugins add?", limit=1)
    assert plain == "Plugins add formats."


def test_best_sentences_report_their_line_offsets() -> None:
    text = "# Title\nIntro line here.\n\n- a bullet about yeast and bread\n\nLast words now."
    assert best_sentences(text, "yeast bread", limit=1) == [(3, "a bullet about yeast and bread")]


def test_code_and_tables_are_not_cited_as_sentences() -> None:
    text = (
        "Workers retry transient errors.\n\n```sh\n$ cadre retry workers now. Then more.\n```\n\n"
        "| col | Workers retry in tables. Really |\n|---|---|\n"
    )
    assert [s for _, s in prose_sentences(text)] == ["Workers retry transient errors."]


def test_restructuredtext_markup_and_literal_blocks_hold_no_sentence() -> None:
    text = (
        "Start the server.\n\n"
        ".. code-block:: text\n\n"
        "   Listening at: http://127.0.0.1:8000\n\n"
        "   Using worker: sync\n\n"
        "Run it like this::\n\n"
        "  serve --port 1\n\n"
        ".. note:: The port is fixed.\n\n"
        ".. _Docs: https://example.org/\n"
        ".. a comment\n\n"
        "It stops on Ctrl-C.\n\n"
        ".. prompt:: bash\n\n"
        "   serve --port 99 dir/\n"
    )
    assert prose_sentences(text) == [
        (1, "Start the server."),
        (9, "Run it like this::"),
        (13, "The port is fixed."),
        (18, "It stops on Ctrl-C."),
    ]  # a shell session in a ``prompt`` directive is code


def test_code_chunks_are_marked_and_never_cited() -> None:
    fence = "```sh\n" + "\n".join(f"$ cadre run step {i}. It prints output." for i in range(60))
    text = f"# Guide\n\nWorkers retry transient errors.\n\n{fence}\n```\n"
    chunks = chunk_document("docs/guide.md", text, max_chars=300)
    assert not chunks[0].code and len(chunks) > 3
    assert all(c.code for c in chunks[1:])  # every piece of the long fence, opener or not
    code = chunks[2]
    passage = Passage(
        source=f"docs/guide.md:{code.start_line}",
        path="docs/guide.md",
        line=code.start_line,
        heading=code.heading,
        text=code.text,
        score=0.9,
        code=True,
    )
    assert cited_sentence(passage, "cadre run step") is None


TEAMS_MD = """# Teams

## Writing your own team

A team is a function that returns an uncompiled `StateGraph`. Build one from six roles, each a
small object with one method: `plan`, `run`/`arun`, `consolidate`, `review`, `curate` and
`format`. `build_team(roles, settings)` checks the wiring at build time and raises a ConfigError
with the fix when a role is missing, a route names an unknown node or an interrupt point names
no node. Register the team under the `cadre.teams` entry point group to run it with
`cadre run --team NAME`.

- `--home` sets the folder where the keys and the checkpoints are kept.
> "Quoted" sentences are kept as written, quotes and all.
3. **Bold** words open this numbered item about bold words.
"""
"""Like docs/teams.md: a wrapped paragraph whose sentences start on lines 5, 7 and 9."""


def test_sentences_start_on_their_own_line_and_keep_their_leading_characters() -> None:
    found = prose_sentences(TEAMS_MD)
    assert [(line, sentence.split()[0]) for line, sentence in found] == [
        (5, "A"),
        (5, "Build"),
        (7, "`build_team(roles,"),
        (9, "Register"),
        (12, "`--home`"),
        (13, '"Quoted"'),
        (14, "**Bold**"),
    ]
    assert found[3][1].endswith("entry point group to run it with `cadre run --team NAME`.")
    assert prose_sentences("-- a dashed start stays as it is.") == [
        (1, "-- a dashed start stays as it is.")
    ]


def _passage_of(path: str, text: str) -> Passage:
    (chunk,) = [c for c in chunk_document(path, text) if "Register" in c.text]
    return Passage(
        source=f"{path}:{chunk.start_line}",
        path=path,
        line=chunk.start_line,
        heading=chunk.heading,
        text=chunk.text,
        score=0.9,
    )


def test_a_cited_sentence_names_its_own_line_not_its_paragraphs() -> None:
    passage = _passage_of("docs/teams.md", TEAMS_MD)
    assert passage.line == 5
    assert cited_sentence(passage, "register the team entry point group") == (
        "docs/teams.md:9",
        "Register the team under the `cadre.teams` entry point group to run it with "
        "`cadre run --team NAME`.",
    )
    source, sentence = cited_sentence(passage, "build_team checks the wiring") or ("", "")
    assert source == "docs/teams.md:7"
    assert sentence.startswith("`build_team(roles, settings)` checks the wiring")


def test_research_and_hypothesis_teams_cite_the_same_sentence_line(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    root = write_corpus(tmp_path / "docs", {"teams.md": TEAMS_MD})
    query = "What does build_team check at build time?"
    with SemanticStore(":memory:", embedder=embedder) as store:
        ingest_corpus(root, store)
        corpus = Corpus(store)
        task = Task(id="q0", description=query, inputs={"query": query})
        result = CorpusSearchWorker(corpus).run(task, query, NodeContext(node="w", team="t"))
        found = json.loads(corpus_source(corpus).invoke({"query": query}))
    wiring = "`build_team(roles, settings)` checks the wiring"
    assert [(e.source, e.text[: len(wiring)]) for e in result.evidence][:1] == [
        ("docs/teams.md:7", wiring)
    ]
    assert [(e["source"], e["text"][: len(wiring)]) for e in found][:1] == [
        ("docs/teams.md:7", wiring)
    ]


def test_a_list_item_holds_what_its_lead_in_says() -> None:
    text = (
        "Hooks are called every time a particular type of event takes place.\n\n"
        "There are two event hooks:\n\n"
        "* `request` - Called after a request is prepared, before it is sent.\n"
        "* `response` - Called after the response is fetched.\n"
    )
    ((_, sentence),) = best_sentences(text, "When is the request event hook called?", limit=1)
    assert sentence.startswith("`request` - Called after a request is prepared")


def test_the_parts_of_a_joined_up_name_count() -> None:
    text = (
        "Requests are retried when an `httpx.ConnectError` occurs.\n"
        "Other retry needs are met by `tenacity`.\n"
    )
    ((_, sentence),) = best_sentences(text, "Which errors make a client retry?", limit=1)
    assert "ConnectError" in sentence


def test_a_short_remark_and_a_one_line_item_stay_with_their_sentence() -> None:
    text = (
        "The pool keeps connections. Defaults to `600`.\n\n"
        "* `html` - Run in HTML mode. Automatically loads `index.html` for directories.\n"
    )
    assert prose_sentences(text) == [
        (1, "The pool keeps connections. Defaults to `600`."),
        (3, "`html` - Run in HTML mode. Automatically loads `index.html` for directories."),
    ]


def test_a_why_answer_that_restates_the_question_brings_the_sentence_after_it() -> None:
    passage = Passage(
        source="pool.md:3",
        path="pool.md",
        line=3,
        heading="Pools",
        text=(
            "The pool never shrinks below its minimum size on its own. Shrinking it would close\n"
            "connections that a burst of requests needs a moment later.\n\n"
            "The pool is created at start-up."
        ),
        score=0.9,
    )
    found = _answers(passage, "Why does the pool never shrink below its minimum size?")
    assert found is not None
    best = found.evidence[0]
    assert best.source == "pool.md:3" and "a burst of requests needs" in best.text
    assert "created at start-up" not in best.text  # the next paragraph is not part of it
    kept = _answers(passage, "What size does the pool never shrink below?")
    assert kept is not None and "burst" not in kept.evidence[0].text  # only a why-answer


def test_what_something_is_good_for_is_answered_as_a_why_question() -> None:
    passage = Passage(
        source="codec.md:3",
        path="codec.md",
        line=3,
        heading="Codecs",
        text=(
            "The Vell codec checks its input only when it decodes. It does not check on encoding.\n"
            "This keeps encoding fast for the senders.\n\n"
            "The codec ships with the relay."
        ),
        score=0.9,
    )
    for question in (
        "What is gained by having the Vell codec check its input only when it decodes?",
        "What does checking input only when decoding let you do with the Vell codec?",
        "What is the point of having the Vell codec check its input only when it decodes?",
    ):
        assert answer_kind(question) == "reason"
        found = _answers(passage, question)
        assert found is not None and "keeps encoding fast" in found.evidence[0].text, question
        assert "ships with the relay" not in found.evidence[0].text
    assert answer_kind("What line length does the style allow?") == "name"  # a value, not a gain


def test_a_lead_in_is_quoted_with_the_heads_of_its_list() -> None:
    text = (
        "Values come from several places.\n\n"
        "The order in which values are read is:\n\n"
        "* From an environment variable.\n"
        "* From the `.env` file.\n"
    )
    ((_, sentence),) = best_sentences(text, "In what order are values read?", limit=1)
    assert sentence == (
        "The order in which values are read is: From an environment variable; From the `.env` file."
    )
    text += (
        "* From the defaults, which every deployment ships with its own image of the settings"
        " file.\n"
    )
    ((_, sentence),) = best_sentences(text, "In what order are values read?", limit=1)
    assert sentence.endswith(  # a long item's head says it goes on
        "From the `.env` file; From the defaults, which every deployment ships with its own..."
    )


def test_a_fenced_admonition_holds_prose_and_a_code_fence_does_not() -> None:
    text = (
        "```{warning}\n"
        "These tools are not thread-safe.\n"
        "```\n\n"
        "```python\n"
        "print('not prose at all')\n"
        "```\n"
    )
    assert prose_sentences(text) == [(2, "These tools are not thread-safe.")]


def test_a_question_for_several_things_is_answered_by_the_lead_in_of_a_list() -> None:
    text = (
        "Every app includes two pieces of middleware by default:\n\n"
        "* `ServerErrorMiddleware` - Ensures that app errors return a custom 500 page.\n"
        "* `ExceptionMiddleware` - Adds exception handlers to the app.\n"
    )
    question = "Which two middleware does every app include by default?"
    ((_, sentence),) = best_sentences(text, question, limit=1)
    assert sentence == (
        "Every app includes two pieces of middleware by default: `ServerErrorMiddleware`; "
        "`ExceptionMiddleware`."
    )
