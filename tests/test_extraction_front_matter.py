"""A relation stated only in a file's front matter ("builder: Y" under "title: X") or in a
fenced JSON array of objects, and a role given in a fronted "As the architect of X, Y ..."
whose main clause is about something else."""

from __future__ import annotations

from framework.memory import SemanticStore
from teams.extraction.attributes import key_values
from teams.extraction.documents import document_of
from teams.extraction.proxies import held_role
from tests.extracting import answer, triples

_FRONT = "---\ntitle: The Wendle lock\nkeeper: Ivy Saltash\nopened: 1802\n---\n\n"


def test_a_front_matter_is_a_section_of_its_fields_under_its_title() -> None:
    document = document_of("lock.md", f"{_FRONT}# Locks\n\nThe lock drops four feet.\n")
    front = document.sections[0]
    assert (front.heading, front.line, front.front) == ("The Wendle lock", 2, True)
    assert key_values(front.text, front.line, front.front)[3] == ("keeper", "Ivy Saltash")


def test_a_lower_case_key_outside_a_front_matter_is_no_field() -> None:
    assert key_values("keeper: Ivy Saltash\nopened: 1802", 1) == {}


def test_a_text_without_a_title_in_its_front_matter_has_no_front_section() -> None:
    document = document_of(
        "lock.md", "---\nkeeper: Ivy Saltash\n---\n\nThe lock drops four feet.\n"
    )
    assert not any(section.front for section in document.sections)


def test_a_front_matter_field_is_said_of_the_title() -> None:
    found = triples(f"{_FRONT}# Locks\n\nThe lock drops four feet.\n")[0]
    assert ("Wendle lock", "'s keeper is", "Ivy Saltash", 3) in found


def test_a_front_matter_field_answers(store: SemanticStore) -> None:
    text = (
        "---\ntitle: The Orrin school\narchitect: Ada Vell\n---\n\n# Schools\n\nIt has six rooms.\n"
    )
    said = answer(text, "Who designed the Orrin school?", store)
    assert "Ada Vell" in said.split("## Sources")[0]


def test_a_fronted_as_role_gives_the_subject_its_role() -> None:
    sentence = "As the founder of the Lyle choir, Greta Moss chose every hymn herself."
    held = held_role(sentence)
    assert held is not None
    assert (held.thing, held.role, held.name) == ("Lyle choir", "founder", "Greta Moss")
    assert held.quoted == "As the founder of the Lyle choir, Greta Moss"
    found = {(s, p, o) for s, p, o, _ in triples(f"# Notes\n\n{sentence}\n")[0]}
    assert ("Lyle choir", "'s founder is", "Greta Moss") in found


def test_a_fronted_as_role_answers(store: SemanticStore) -> None:
    text = "# Notes\n\nAs the architect of the Tarle baths, Ned Oake fought for a glass roof.\n"
    said = answer(text, "Who designed the Tarle baths?", store)
    assert "Ned Oake" in said.split("## Sources")[0]


_REGISTER = (
    "# Ferries\n\n```json\n[\n"
    '  {"ferry": "Holm ferry", "master": "Kit Orrell"},\n'
    '  {"ferry": "Skea ferry", "master": "Wynn Pask"}\n'
    "]\n```\n"
)


def test_a_json_array_of_objects_is_a_table() -> None:
    rows = document_of("ferries.md", _REGISTER).rows
    assert [(row.line, row.header, row.cells) for row in rows] == [
        (5, ("ferry", "master"), ("Holm ferry", "Kit Orrell")),
        (6, ("ferry", "master"), ("Skea ferry", "Wynn Pask")),
    ]


def test_a_json_object_answers_by_its_own_row(store: SemanticStore) -> None:
    said = answer(_REGISTER, "Who is the master of the Skea ferry?", store).split("## Sources")[0]
    assert "Wynn Pask" in said
    assert "Kit Orrell" not in said
