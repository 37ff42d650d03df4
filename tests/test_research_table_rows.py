"""A table's row answers for the version it names, and a value the question itself names is
no answer: "minimum target 10.13" on the row of CPython 3.12-3.13, not the 3.9-3.11 row's
10.9, for a question of 3.12 and 3.13; a table's "Minimum" column states the least value that
will do, as does "3.8.0 and above" in the docs, not an old changelog entry's minimum; "if I
set nothing" asks for a default; a question of one day is not answered with a neighbouring
release's day beside it."""

from __future__ import annotations

from framework.memory import Passage
from teams.language.senses import plain_wording
from teams.language.sentence_choice import term_weights
from teams.language.tables import table_statements
from teams.research.offline import _agreeing, _answers


def _stated(question: str, *found: tuple[str, str, str, float]) -> list[tuple[str, bool]]:
    passages = [
        Passage(source=f"{path}:1", path=path, line=1, heading=heading, text=text, score=score)
        for path, heading, text, score in found
    ]
    weights = term_weights([passage.text for passage in passages], question)
    cited = [_answers(passage, question, weights) for passage in passages]
    return [
        (item.text, item.disputed)
        for item in _agreeing([answered for answered in cited if answered is not None], question)
    ]


def test_the_row_of_the_version_asked_answers_not_its_neighbours() -> None:
    question = (
        "I build Intel wheels for CPython 3.12 and 3.13 with Kiln. What is the lowest "
        "KILN_TARGET I can use for those?"
    )
    table = (
        "The lowest value you can set `KILN_TARGET` is as follows:\n\n"
        "| Arch | Python version range | Minimum target |\n|---|---|---|\n"
        "| Intel | CPython 3.9-3.11 | 10.9 |\n| Intel | CPython 3.12-3.13 | 10.13 |\n"
        "| Intel | CPython 3.14+ | 10.15 |\n"
    )
    note = "Users must set `KILN_TARGET` to 10.12 or higher when building Rust extensions."
    stated = _stated(
        question, ("compat.md", "Compatibility", table, 0.7), ("rust.md", "Rust", note, 0.6)
    )
    said = " ".join(text for text, disputed in stated if not disputed)
    assert "10.13" in said, stated
    assert "10.9" not in said and "10.15" not in said, stated


def test_setting_nothing_asks_for_a_default() -> None:
    assert plain_wording("If I set nothing, what minimum version do the wheels target?").startswith(
        "by default,"
    )
    assert plain_wording("When nothing is configured, where does it write?").startswith(
        "by default,"
    )


def test_a_drawn_table_saved_as_html_states_its_rows() -> None:
    page = (
        ".. raw:: html\n\n"
        '    <pre style="font-family:monospace">╔════════╤═══════════╤═════════╗\n'
        '    ║<span style="font-weight: bold"> Swatch </span>│<span> Name      </span>│'
        "<span> Hex     </span>║\n"
        "    ╟────────┼───────────┼─────────╢\n"
        '    ║<span style="background-color: #00005f">        </span>│ navy_blue │ #00005f ║\n'
        '    ║<span style="background-color: #000087">        </span>│ dark_blue │ #000087 ║\n'
        "    ╚════════╧═══════════╧═════════╝</pre>\n"
    )
    lines = table_statements(page).split("\n")
    assert lines[5].startswith("navy_blue:") and "#00005f" in lines[5], lines
    assert lines[6].startswith("dark_blue:") and "#000087" in lines[6], lines
    assert not any("═" in line or "Swatch" in line for line in lines)


def test_a_restructuredtext_simple_table_states_each_row_on_its_first_line() -> None:
    page = (
        "Options\n=======\n\n"
        "=========== ================ ==============================\n"
        "Setting     Flag             Purpose\n"
        "----------- ---------------- ------------------------------\n"
        "logconfig   ``--log-config`` A logging configuration file.\n"
        "                             It can be prefixed with 'json:'.\n"
        "errorlog    ``--error-log``  Where the error log goes.\n"
        "=========== ================ ==============================\n"
    )
    lines = table_statements(page).split("\n")
    assert lines[6] == (
        "logconfig setting: flag ``--log-config``; purpose A logging configuration file. It "
        "can be prefixed with 'json:'."
    ), lines
    assert lines[8].startswith("errorlog setting: flag ``--error-log``"), lines
    assert [line for line in lines[3:] if line and not line.startswith(("log", "err"))] == []


def test_the_docs_floor_not_an_old_changelog_entry_answers_the_oldest_version_now() -> None:
    question = "What is the oldest Python version the current Kiln supports?"
    stated = _stated(
        question,
        ("CHANGES.md", "[2.2.0] - 2022-04-05", "Bumped minimum Python version to 3.6.3.", 0.9),
        ("intro.rst", "Requirements", "Kiln requires Python 3.8.0 and above.", 0.6),
    )
    assert [text for text, _ in stated] == ["Requirements: Kiln requires Python 3.8.0 and above."]


def test_a_question_of_one_day_is_answered_without_a_neighbouring_release_s_day() -> None:
    stated = _stated(
        "On what date was Kiln 1.0 released?",
        ("CHANGES.rst", "1.0.0 (2021-02-26)", "After 8 years we are pleased to announce 1.0.", 0.9),
        ("CHANGES.rst", "1.0.2 (2021-02-28)", "Fixed an overflow on 32-bit machines.", 0.8),
    )
    assert [text for text, _ in stated] == [
        "1.0.0 (2021-02-26): After 8 years we are pleased to announce 1.0."
    ]


def test_a_library_named_in_lower_case_is_the_product_whose_version_is_asked() -> None:
    stated = _stated(
        "What is the oldest release of the packaging library that kiln needs for metadata 2.4?",
        ("CHANGES.rst", "Kiln 2.0.0", "Kiln now requires Python 3.6 or later.", 0.9),
        ("CHANGES.rst", "Kiln 6.1.0", "Metadata 2.4 requires ``packaging`` 24.2 or later.", 0.6),
    )
    assert "24.2" in stated[0][0] and not any("3.6" in text for text, _ in stated), stated


def test_an_issue_number_is_no_quantity_that_rivals_the_answer() -> None:
    stated = _stated(
        "A hidden command failed. How much of the captured output does the error message show?",
        ("CHANGES.rst", "Changes", ":bug:`349 major` Show the error when output was hidden.", 0.9),
        ("CHANGES.rst", "Changes", "The error message shows only the last 10 lines.", 0.6),
    )
    assert ("The error message shows only the last 10 lines.", False) in stated
