"""Relations in markup the reader meets less often: a reStructuredText field list (":Key:
value"), an HTML table written a row to a line under its <th> headers, a whole name given at
birth in brackets after "born", and a negative cleft whose doer is named after its
semicolon."""

from __future__ import annotations

from framework.memory import SemanticStore
from teams.extraction import PatternCartographer, document_of
from tests.extracting import answer, triples


def _read(path: str, text: str) -> set[tuple[str, str, str]]:
    extraction = PatternCartographer().extract(document_of(path, text), None, ())
    return {(t.subject, t.predicate, t.object) for t in extraction.triples}


def test_a_restructuredtext_field_is_a_key_value_line() -> None:
    text = "The Hobb lighthouse\n===================\n\n:Engineer: Rosa Tull\n"
    assert ("Hobb lighthouse", "'s engineer is", "Rosa Tull") in _read("light.rst", text)


def test_an_html_table_row_is_read_under_its_headers() -> None:
    text = (
        "# Mills\n\n<table>\n<tr><th>Mill</th><th>Built by</th></tr>\n"
        "<tr><td>The Orr mill</td><td>Dan Fitch</td></tr>\n"
        "<tr><td>The Sand mill</td><td>Eve Carr</td></tr>\n</table>\n"
    )
    said = _read("mills.md", text)
    assert ("Sand mill", "built by", "Eve Carr") in said
    assert ("Sand mill", "built by", "Dan Fitch") not in said


def test_a_whole_name_given_at_birth_is_an_alias() -> None:
    said = {
        (s, p, o)
        for s, p, o, _ in triples(
            "# Potters\n\nAda Lum (born Adelaide Lumsden) fired the Kiln cup in 1900.\n"
        )[0]
    }
    assert ("Adelaide Lumsden", "is also known as", "Ada Lum") in said


def test_a_doer_named_after_a_negative_cleft_is_the_answer(store: SemanticStore) -> None:
    sentence = (
        "It was not Carl Fenn who dug the Holt well, as some say; "
        "the digger was his aunt, Mo Reyes."
    )
    said = answer(f"# Wells\n\n{sentence}\n", "Who dug the Holt well?", store)
    assert "Mo Reyes dug" in said
    assert "- Carl Fenn" not in said
