"""Relations from fragments and odd shapes: a passive without its verb (a list item, a caption),
a bold run-in lead as the subject of the fragments after it, a task list's done and undone
items, "having been built by", a counterfactual on a deed done, a part of a named thing as the
subject, a role given beside its owner ("X and its builder, Y"), labelled edges of Mermaid and
Graphviz graphs; and an answer never about another part of the thing asked about."""

from __future__ import annotations

from teams.extraction.data_blocks import graph_records
from teams.extraction.patterns import Reading, read_sentence
from teams.supervisor.answering import answering_chains
from tests.extracting import found_relation, triples


def _said(sentence: str) -> set[tuple[str, str, str]]:
    readings: list[Reading] = read_sentence(sentence)
    return {(r.subject, r.predicate, r.object) for r in readings}


def test_a_passive_without_its_verb_and_a_task_done_are_read() -> None:
    assert ("Stile at Nab End", "built by", "Jessie Marr") in _said(
        "[x] Stile at Nab End built by Jessie Marr"
    )
    assert _said("[ ] Bird hide on the moss built by Ivo Lund") == set()  # not done


def test_having_been_built_and_a_counterfactual_on_a_deed_done() -> None:
    assert ("Sarn causeway", "built by", "Griffith Rhys") in _said(
        "The Sarn causeway having been built by Griffith Rhys in 1790, the coach could cross."
    )
    assert ("Tobias Fenn", "built", "Marsh End sluice") in _said(
        "Had Tobias Fenn not built the Marsh End sluice in 1804, the village would have flooded."
    )
    assert not any(  # "Had Y built X, ..." says Y did not
        r[0] == "Tobias Fenn" for r in _said("Had Tobias Fenn built the sluice, it would stand.")
    )


def test_a_part_of_a_named_thing_is_a_subject() -> None:
    assert ("main span of the Ferris bridge", "designed by", "Ada Lunn") in _said(
        "The main span of the Ferris bridge was designed by Ada Lunn."
    )


def test_a_role_beside_its_owner_is_the_owners() -> None:
    said = _said("The Marrow lighthouse and its builder, Edith Loame, appear on the town seal.")
    assert ("Marrow lighthouse", "'s builder is", "Edith Loame") in said
    assert not any(r[2].endswith(" and") for r in said)


def test_a_bold_run_in_lead_is_what_the_fragments_after_it_are_about() -> None:
    text = (
        "# Dams of the Garrow hills\n\n**The Pellow dam.** Designed by Isaac Venn.\n\n"
        "**The Ardry dam.** Designed by Lucy Hale; finished 1911.\n"
    )
    found, _ = triples(text)
    assert ("Ardry dam", "designed by", "Lucy Hale", 5) in found
    assert ("Pellow dam", "designed by", "Isaac Venn", 3) in found


def test_labelled_edges_of_a_graph_are_records() -> None:
    mermaid = ["graph LR", "  A[Mara Quill] -- designed --> B[Tern bridge]", "  B -->|owns| C"]
    assert list(graph_records(mermaid, 4)) == [
        (5, ("name", "designed by"), ("Tern bridge", "Mara Quill")),
        (6, ("name", "owns"), ("C", "Tern bridge")),
    ]
    dot = ['  a [label="Jonas Bell"];', '  a -> "Skerry pier" [label="built"];']
    assert list(graph_records(dot, 1)) == [(2, ("name", "built by"), ("Skerry pier", "Jonas Bell"))]


def test_an_answer_is_never_about_another_part_of_the_thing_asked_about() -> None:
    east = found_relation(
        "Ruth Acre",
        "designed",
        "east wing",
        "Ruth Acre designed the east wing of the Halden infirmary.",
    )
    question = "Who designed the west wing of the Halden infirmary?"
    assert answering_chains(question, ["Halden infirmary"], [east]) == []
    west = found_relation(
        "west wing of the Halden infirmary",
        "designed by",
        "Owen Pell",
        "The west wing of the Halden infirmary was designed by Owen Pell.",
    )
    assert answering_chains(question, ["Halden infirmary"], [east, west]) == [(west,)]


def test_whom_a_deed_was_done_for_does_not_say_who_did_it() -> None:
    evidence = "Fellgate house was built for Margery Tull by Silas Brand in 1802."
    doer = found_relation("Fellgate house", "built by", "Silas Brand", evidence)
    patron = found_relation("Fellgate house", "built for", "Margery Tull", evidence)
    assert answering_chains("Who built Fellgate house?", ["Fellgate house"], [patron, doer]) == [
        (doer,)
    ]
    asked_for = "Who was Fellgate house built for?"
    assert (patron,) in answering_chains(asked_for, ["Fellgate house"], [patron, doer])
