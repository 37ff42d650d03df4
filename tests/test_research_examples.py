"""A question that quotes what its asker has in hand ("a phrase like "3 hours ago"") is answered
by the example its phrase is quoted from: the sentence that leads into the code, with the line
of code that holds the phrase. A part asked only if the part before is answered yes ("..., and
if so, which method does it") asks of what that part asks; one whether there is a thing, then
which it is ("Is there a release that ...? Which one?"), asks which."""

from __future__ import annotations

from pathlib import Path

from framework.engine.records import Evidence, Task
from framework.engine.runtime import NodeContext
from framework.memory import Corpus, MiniLMEmbedder, SemanticStore
from framework.memory.corpus import ingest_corpus
from teams.language.examples import named_in_example, quoted_example
from teams.language.questions import split_question, which_one
from teams.language.sentence_choice import Scored
from teams.research.offline import CorpusSearchWorker
from tests.conftest import write_corpus

_PAGES = {
    "guide.rst": (
        "Readings\n========\n\n"
        "Every reading of the kiln log holds the time and the heat of the kiln.\n\n"
        "Unwinding\n~~~~~~~~~\n\n"
        "Take a written span of time and use it to move a reading back:\n\n"
        ".. code-block:: python\n\n"
        "    >>> reading = log.latest()\n"
        '    >>> earlier = reading.unwind("3 hours ago")\n\n'
        "Or use it to move a reading forward.\n"
    ),
    "vents.rst": (
        "Vents\n=====\n\n"
        "To let the fumes out of a kiln behind a chimney, wrap your kiln in the vent valve "
        "helper and fire the wrapped kiln,\n\n"
        ".. code-block:: python\n\n"
        "    from kiln.helpers import VentValveHelper\n\n"
        "    vented = VentValveHelper(kiln, open_at=600)\n\n"
        "The valve then opens on its own.\n"
    ),
    "CHANGES.rst": (
        "Changes\n=======\n\n"
        "2.1.0\n-----\n\n"
        '- Improved the Welsh words for hours and "ago" in the kiln log.\n'
        "- Faster start-up of the burner.\n"
    ),
}


def _best_evidence(tmp_path: Path, embedder: MiniLMEmbedder, question: str) -> Evidence:
    """The first evidence a search of ``question`` over :data:`_PAGES` cites."""
    root = write_corpus(tmp_path / "docs", _PAGES)
    with SemanticStore(tmp_path / "memory.sqlite", embedder=embedder) as store:
        ingest_corpus(root, store)
        worker = CorpusSearchWorker(Corpus(store))
        task = Task(id="q0", description=question, inputs={"query": question})
        return worker.run(task, question, NodeContext(node="w", team="t")).evidence[0]


def _said(*sentences: tuple[int, str]) -> list[Scored]:
    """Sentences at their lines, as a text's are ranked."""
    return [Scored(0.0, line, sentence, frozenset()) for line, sentence in sentences]


def test_a_quoted_phrase_finds_the_example_it_is_written_in(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    question = 'Can the kiln log turn a phrase like "3 hours ago" back into a reading?'
    best = _best_evidence(tmp_path, embedder, question)
    assert best.source.endswith("guide.rst:9"), best.source  # the sentence that leads into it
    assert 'earlier = reading.unwind("3 hours ago")' in best.text, best.text
    assert best.text.startswith("Take a written span of time"), best.text


def test_only_code_under_a_lead_in_is_an_example_of_the_quoted_phrase() -> None:
    text = (
        "Move a reading back:\n\n"
        '    >>> reading.unwind("3 hours ago")\n\n'
        'Say "3 hours ago" in prose.\n'
    )
    sentences = _said((0, "Move a reading back:"), (4, 'Say "3 hours ago" in prose.'))
    asked = 'What turns "3 hours ago" into a reading?'
    assert quoted_example(text, sentences, asked) == (0, 'reading.unwind("3 hours ago")')
    assert quoted_example(text, sentences, "What turns a span into a reading?") is None
    assert quoted_example(text, sentences, 'What turns "3 hours" into one?') == (
        0,
        'reading.unwind("3 hours ago")',
    )
    assert quoted_example(text, _said((0, "Move a reading back.")), asked) is None  # no lead-in
    assert quoted_example(text, sentences, 'What does "reading" unwind?') is None  # one word


def test_a_part_asked_if_so_asks_of_what_the_part_before_asks() -> None:
    question = (
        'Can the kiln log turn a phrase like "3 hours ago" back into a reading, and if so, '
        "which method does it and in which release was that method added?"
    )
    assert split_question(question) == [
        'Can the kiln log turn a phrase like "3 hours ago" back into a reading',
        'which method does the kiln log turn a phrase like "3 hours ago" back into a reading',
        "in which release was that method added",
    ]
    assert split_question("Does the kiln vent its fumes, and if so, which release added it?") == [
        "Does the kiln vent its fumes",
        "which release added the kiln vent the kiln's fumes",
    ]
    assert split_question(
        "Can I keep my old burner with the new kiln? If not, what should replace it?"
    ) == ["Can I keep my old burner with the new kiln", "what should replace it"]


def test_is_there_one_then_which_one_asks_which() -> None:
    assert (
        which_one("Is there a kiln release that got a tag but was never published? Which one?")
        == "Which kiln release got a tag but was never published?"
    )
    assert which_one("Is there a flag that turns off the fan, and if so, which one?") == (
        "Which flag turns off the fan?"
    )
    assert which_one("Is there a flag that turns off the fan?") == (
        "Is there a flag that turns off the fan?"  # asks only whether
    )


def test_the_code_under_a_lead_in_names_what_it_says_in_words(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    question = "Which helper that ships with the kiln lets the fumes out behind a chimney?"
    best = _best_evidence(tmp_path, embedder, question)
    assert best.source.endswith("vents.rst:4"), best.source
    assert best.text.endswith("(`VentValveHelper`)"), best.text
    assert "600" not in best.text  # the name alone, none of the code's values


def test_only_a_name_the_lead_in_says_in_words_and_does_not_write() -> None:
    text = "Use the vent valve helper:\n\n    VentValveHelper(kiln)\n    open_kiln()\n\nDone."
    said = _said((0, "Use the vent valve helper:"), (5, "Done."))
    assert named_in_example(text, said, 0) == "VentValveHelper"
    assert named_in_example(text, _said((0, "Use the vent valve helper."), (5, "Done.")), 0) == ""
    assert named_in_example(text, _said((0, "Use a helper:"), (5, "Done.")), 0) == ""  # not said
    written = _said((0, "Use ``VentValveHelper``, the vent valve helper:"), (5, "Done."))
    assert named_in_example(text, written, 0) == ""  # written already
