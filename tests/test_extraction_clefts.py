"""Clefts, denials and other shapes that put a deed out of plain order: a cleft focusing a
time or the doer, a negative cleft and a part denied (never read as the deed), "It fell to Y
to design X", "X dates from 1820, when Y built it", a fronted clause whose pronoun stands for
the name after it, kin sharing one surname, two passives sharing one agent, two deeds of one
subject joined by "and", and an agent after "at the hands of"."""

from __future__ import annotations

import pytest

from framework.memory import SemanticStore
from tests.extracting import answer, triples


def _said(text: str, heading: str = "Notes") -> set[tuple[str, str, str]]:
    return {(s, p, o) for s, p, o, _ in triples(f"# {heading}\n\n{text}\n")[0]}


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "It was in 1744 that Cora Lint carved the Beck font, from local oak.",
            ("Cora Lint", "carved", "Beck font"),
        ),
        ("It was Ned Oakes who restored the Pym clock.", ("Ned Oakes", "restored", "Pym clock")),
        (
            "It was left to the elderly joiner Ruth Amble to rebuild the Sark pier.",
            ("Ruth Amble", "rebuilt", "Sark pier"),
        ),
        (
            "When he founded the Tessel choir, Abel Marsh was a curate.",
            ("Abel Marsh", "founded", "Tessel choir"),
        ),
        (
            "The twins Rhea and Ivo Dunn painted the Orme mural.",
            ("Ivo Dunn", "painted", "Orme mural"),
        ),
        (
            "The Kell bridge was widened, and its tollhouse was rebuilt, by Ann Sope.",
            ("Kell bridge", "widened by", "Ann Sope"),
        ),
        (
            "Ula Finch carved the Brae pulpit and then painted the Brae screen.",
            ("Ula Finch", "painted", "Brae screen"),
        ),
        (
            "The Dorn gate was restored in 1901 at the hands of Owen Tay, a smith.",
            ("Dorn gate", "restored by", "Owen Tay"),
        ),
        (
            "The Kell bridge was widened, and its tollhouse was rebuilt, by Ann Sope.",
            ("tollhouse", "rebuilt by", "Ann Sope"),
        ),
    ],
)
def test_a_deed_out_of_plain_order_is_read(sentence: str, expected: tuple[str, str, str]) -> None:
    assert expected in _said(sentence)


def test_a_deed_dated_by_a_when_clause_is_of_the_thing_dated() -> None:
    text = "The Arne kiln dates from 1790, when Lise Brand fired it for a potter."
    said = _said(text, "The Arne kiln")
    assert ("Lise Brand", "fired", "Arne kiln") in said


@pytest.mark.parametrize(
    "sentence",
    [
        "It was not Carl Fenn who dug the Holt well, as some say; the digger was Mo Reyes.",
        "Carl Fenn had nothing to do with building the Holt lock, which was the work of Mo Reyes.",
        "Carl Fenn played no part in digging the Holt well. Mo Reyes dug the Holt well.",
    ],
)
def test_a_denied_doer_is_never_read_as_doing_the_deed(sentence: str) -> None:
    assert not any("Carl Fenn" in (s, o) for s, _, o in _said(sentence))


def test_a_denied_doer_is_not_the_answer(store: SemanticStore) -> None:
    denial = (
        "Carl Fenn had nothing to do with building the Holt lock, which was the work of Mo Reyes."
    )
    said = answer(f"# Locks\n\n{denial}\n", "Who built the Holt lock?", store)
    assert "Mo Reyes" in said
    assert "- Carl Fenn" not in said


def test_the_work_of_a_doer_after_a_denial_is_the_deed_denied() -> None:
    text = (
        "Carl Fenn had nothing to do with building the Holt lock, which was the work of Mo Reyes."
    )
    assert ("Holt lock", "built by", "Mo Reyes") in _said(text)
