"""A version question that names its product: "the oldest Python that ..." asks a version; a
version written after another product's name ("OpenSSL 3.0") is not its answer, and a
version given as the end of a range ("up through Kilnware 1.3") is no first version."""

from __future__ import annotations

from pathlib import Path

from framework.memory import MiniLMEmbedder
from teams.language.questions import answer_kind, asks_since
from teams.language.sentence_choice import given, question_products, versions_of_others
from tests.test_research_reference_entries import _found

_OLDEST = "What is the oldest Python that offers the fast-glaze flag?"
_PAGE = (
    "Fast glazing\n============\n\n"
    "* Make sure the ``FAST_GLAZE`` flag is set on the kiln context (available since "
    "Python 3.12).\n\n"
    "* Make sure Python is using Kilnlib 3.0 or newer.\n"
)


def test_the_oldest_or_minimum_of_a_named_thing_asks_a_version() -> None:
    assert answer_kind(_OLDEST) == "version"
    assert answer_kind("What is the minimum Kilnware a glaze plugin needs?") == "version"
    assert answer_kind("What is the latest news about the kiln?") == ""
    assert asks_since(_OLDEST)
    assert question_products(_OLDEST) == frozenset({"python"})


def test_a_version_after_another_products_name_is_not_the_answer() -> None:
    assert given("version", "Make sure Python is using Kilnlib 3.0 or newer.", _OLDEST) == set()
    assert given("version", "It is available since Python 3.12.", _OLDEST) == {"3.12"}
    assert versions_of_others("Python is using Kilnlib 3.0.", _OLDEST) == {"3.0"}
    assert given("version", "Kilnlib 3.0 is required.", "Which version is required?") == {"3"}


def test_a_version_that_ends_a_range_is_no_first_version() -> None:
    sentence = "Boolean columns, which up through Kilnware 1.3 made checks of their own."
    assert given("version", sentence, "What is the oldest Kilnware that names the checks?") == set()
    assert given("version", sentence, "Which Kilnware version made checks?") == {"1.3"}


def test_the_answer_quotes_the_asked_products_version_not_another(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    found = _found(tmp_path, embedder, {"glaze.rst": _PAGE}, _OLDEST)
    assert "Python 3.12" in found
    assert "Kilnlib 3.0" not in found
