"""A first-person passage whose writer is named only where it is signed: a quotation's
attribution after a dash, or a letter's sign-off."""

from __future__ import annotations

from framework.memory import SemanticStore
from teams.extraction.signatures import signed, signer
from tests.extracting import answer, triples

_QUOTED = (
    "# The Brill mill\n\nA plate by the door reads:\n\n"
    "> I raised the Brill mill in one summer.\n> — Jem Astley, 1790\n"
)
_LETTER = (
    "# A letter to the vestry\n\nGentlemen,\n\n"
    "I enclose the plans of the Hoxne school, which I designed to seat ninety children.\n\n"
    "Yours sincerely,\nEdith Marle\n"
)


def test_the_signer_is_named_by_an_attribution_or_a_sign_off() -> None:
    assert signer("> I raised it.\n> — Jem Astley, 1790") == "Jem Astley"
    assert signer("I raised it.\n\nYours sincerely,\nEdith Marle") == "Edith Marle"
    assert signer("I raised it.\n\nEdith Marle") == ""


def test_the_first_person_is_the_signer() -> None:
    sentence = "I finished my drawings of the Hoxne school. — Edith Marle, 1901"
    assert signed(sentence, "Edith Marle") == (
        "Edith Marle finished Edith Marle's drawings of the Hoxne school."
    )
    assert signed("The school opened in 1902.", "Edith Marle") == "The school opened in 1902."


def test_a_signed_quotation_states_the_signers_deed() -> None:
    found = triples(_QUOTED)[0]
    assert ("Jem Astley", "raised", "Brill mill", 5) in found


def test_a_signed_letter_states_the_writers_deed() -> None:
    found = {(s, p, o) for s, p, o, _ in triples(_LETTER)[0]}
    assert ("Edith Marle", "designed", "Hoxne school") in found


def test_the_signer_of_a_quotation_answers(store: SemanticStore) -> None:
    said = answer(_QUOTED, "Who raised the Brill mill?", store)
    assert "Jem Astley" in said.split("## Sources")[0]
