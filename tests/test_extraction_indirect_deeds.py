"""Deeds stated indirectly: a causative ("had X built by Y"), a source crediting a doer, a
clause between dashes, "had a single architect: Y", a passive in progress; and a ditto in a
list or a table, which stands for what the line above has in its place."""

from __future__ import annotations

import pytest

from framework.memory import SemanticStore
from teams.extraction import PatternCartographer, document_of
from teams.extraction.attributes import key_values
from teams.language.tables import markdown_tables
from tests.extracting import answer, triples


def _said(text: str) -> set[tuple[str, str, str]]:
    return {(s, p, o) for s, p, o, _ in triples(f"# Notes\n\n{text}\n")[0]}


@pytest.mark.parametrize(
    ("sentence", "expected", "never"),
    [
        (
            "In 1765 Sir Hugh Oakes had the Brent orangery built by Tobias Lyle.",
            {
                ("Sir Hugh Oakes", "commissioned", "Brent orangery"),
                ("Brent orangery", "built by", "Tobias Lyle"),
            },
            "Sir Hugh Oakes",
        ),
        (
            "The vicar's memoir credits Ruth Allard with designing the Kelsey lychgate.",
            {("Ruth Allard", "designed", "Kelsey lychgate")},
            "vicar",
        ),
        (
            "The Moxby granary — Eli Ward built it in 1790 — now houses a bakery.",
            {("Eli Ward", "built", "Moxby granary")},
            "Notes",
        ),
        (
            "The Sefton lodge had a single architect: Mina Rowe.",
            {("Sefton lodge", "'s architect is", "Mina Rowe")},
            "",
        ),
        (
            "The Holt viaduct was being built by Amos Kerr when the money ran out in 1840.",
            {("Holt viaduct", "built by", "Amos Kerr")},
            "",
        ),
    ],
)
def test_a_deed_stated_indirectly_is_read_as_done(
    sentence: str, expected: set[tuple[str, str, str]], never: str
) -> None:
    said = _said(sentence)
    assert expected <= said
    if never:
        assert not any(s == never and p in ("built", "designed") for s, p, _ in said)
        assert not any(o == never for _, p, o in said if p.endswith(" by"))


def test_a_ditto_in_a_list_or_table_stands_for_the_entry_above() -> None:
    listed = key_values("- Oxley mill: Anne Pell, 1801\n- Rudby mill: ditto, 1809", 3)
    assert listed[4] == ("Rudby mill", "Anne Pell, 1809")
    rows = "| Oxley | Anne Pell |\n| Rudby | do. |"
    (table,) = markdown_tables(f"| Mill | Millwright |\n|---|---|\n{rows}")
    assert [cells for _, cells in table.rows] == [("Oxley", "Anne Pell"), ("Rudby", "Anne Pell")]


def test_a_ditto_entry_answers_who_did_the_deed(store: SemanticStore) -> None:
    text = (
        "# Mills\n\n| Mill | Year | Millwright |\n| --- | --- | --- |\n"
        "| Oxley mill | 1801 | Anne Pell |\n| Rudby mill | 1809 | ditto |\n"
        "| Sowby mill | 1815 | Job Frane |\n"
    )
    said = answer(text, "Who was the millwright of the Rudby mill?", store)
    assert "Anne Pell" in said and "Job Frane" not in said


def test_a_deed_its_doer_denies_is_the_one_named_after_it() -> None:
    said = _said("Ivo Marsh always denied having built the Tewin lock; Kit Olley had.")
    assert ("Kit Olley", "built", "Tewin lock") in said
    assert not any(s == "Ivo Marsh" for s, _, _ in said)


def test_a_thing_renamed_later_is_found_by_its_new_name(store: SemanticStore) -> None:
    text = (
        "# The Ebor tannery\n\nThe Ebor tannery was built by Ruth Gale in 1822.\n"
        "In 1961 it was renamed the Ouse Studios.\n"
    )
    said = _said(text.split("\n\n", 1)[1])
    assert ("Ouse Studios", "was formerly known as", "Ebor tannery") in said
    assert "Ruth Gale" in answer(text, "Who built the Ouse Studios?", store)


def test_a_reading_of_one_clause_quotes_that_clause_alone() -> None:
    said = "Far from designing the Kell hall, Ned Ibbot opposed it; the design was Una Prior's."
    text = f"# Kell hall\n\n{said}\n"
    extraction = PatternCartographer().extract(document_of("notes.md", text), None, ())
    quoted = {t.evidence for t in extraction.triples if "Una Prior" in t.object}
    assert quoted == {"the design was Una Prior's."}
