"""Relations from records and credits: a YAML list of mappings, the rows of an SQL INSERT and a
wiki infobox as records; a change credited to who made it ("Added X. Thanks @Y!"); "She" for
the last person named, not a body named since; an accepted diff read as its "+" lines."""

from __future__ import annotations

from teams.extraction.patterns import read_sentence
from tests.extracting import triples


def _relations(text: str) -> set[tuple[str, str, str]]:
    found, _ = triples(text)
    return {(subject, predicate, thing) for subject, predicate, thing, _ in found}


def test_a_yaml_list_of_mappings_gives_a_record_per_item() -> None:
    found, _ = triples(
        "# Weirs\n\n```yaml\n- weir: Ardle weir\n  builder: Nell Pryce\n"
        "- weir: Cobb weir\n  builder: Owain Tait\n```\n"
    )
    assert any(t[0] == "Cobb weir" and t[2] == "Owain Tait" and t[3] == 6 for t in found)
    assert not any(t[0] == "Cobb weir" and t[2] == "Nell Pryce" for t in found)


def test_the_rows_of_an_sql_insert_are_records() -> None:
    found = _relations(
        "# Survey\n\n```sql\nINSERT INTO mills (name, built_by, opened) VALUES\n"
        "  ('Hale mill', 'Ruth Orme', 1820),\n  ('Dent mill', 'Amos Tull', 1834);\n```\n"
    )
    assert any(t[0] == "Dent mill" and t[2] == "Amos Tull" for t in found)
    assert not any(t[0] == "Dent mill" and t[2] == "Ruth Orme" for t in found)


def test_a_wiki_infobox_is_a_record_named_by_its_name_field() -> None:
    found = _relations(
        "# Sedge windpump\n\n{{Infobox windpump\n| owner   = Hal Dyke\n"
        "| builder = Ivy Sallow\n| name    = Sedge windpump\n}}\n"
    )
    assert any(t[0] == "Sedge windpump" and t[2] == "Ivy Sallow" for t in found)


def test_a_change_credited_to_who_made_it() -> None:
    readings = read_sentence("Added the `--quiet` flag to `moss sync`. Thanks @ana-ruiz!")
    assert [(r.subject, r.predicate) for r in readings] == [("@ana-ruiz", "added")]
    assert read_sentence("Fixed the gate by @bo-ek in https://example.org/pull/4")[0].subject == (
        "@bo-ek"
    )


def test_she_stands_for_the_last_person_named_not_a_body() -> None:
    found = _relations(
        "# The Lowe chapel\n\n1. Hester Vane, a joiner from Dent, bought the plot in 1820.\n"
        "2. The parish council raised the money in 1821.\n3. She built the Lowe chapel in 1822.\n"
    )
    assert ("Hester Vane", "built", "Lowe chapel") in found
    assert not any(t[0] == "The parish council" and t[1] == "built" for t in found)


def test_an_indented_yaml_list_and_an_accepted_diff() -> None:
    found = _relations(
        "# Weirs\n\n```yaml\n  - weir: Ardle weir\n    builder: Nell Pryce\n    tags:\n"
        "      - old\n  - weir: Cobb weir\n    builder: Owain Tait\n```\n"
    )
    assert any(t[0] == "Cobb weir" and t[2] == "Owain Tait" for t in found)
    change = (
        "# Change 7: the Lea sluice\n\n{state}.\n\n```diff\n"
        "-The Lea sluice was built by Ann Moor in 1801.\n"
        "+The Lea sluice was built by Kit Rowe in 1801.\n```\n"
    )
    accepted = _relations(change.format(state="Accepted"))
    assert any(t[2] == "Kit Rowe" for t in accepted)
    assert not any(t[2] == "Ann Moor" for t in accepted)
    assert not any(
        t[2] in ("Kit Rowe", "Ann Moor") for t in _relations(change.format(state="Proposed"))
    )
