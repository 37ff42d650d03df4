"""A credit line under a work's title ("A new play by Y", "A thesis submitted by Y in partial
fulfilment of ...") says who wrote the work, however long its title, and a puzzle's "Set by Y"
who made it; a headline in apposition
("Y, founder of X, dies at 88") says Y founded X, its news aside; a chat export's message
says "I" of its sender; a telegram's "STOP"s end its sentences."""

from __future__ import annotations

from teams.extraction import document_of
from teams.extraction.bylines import byline
from tests.extracting import triples


def test_a_credit_line_under_a_title_names_its_writer() -> None:
    found, _ = triples("# Spring season\n\n## THE SALT ROAD\n\nA new play by Noor Halse\n")
    assert ("SALT ROAD", "written by", "Noor Halse", 5) in found
    thesis = (
        "# The Draining of the Brede Levels, 1760-1830\n\n"
        "A thesis submitted by Ines Carrow\nin partial fulfilment of the degree of Doctor\n\n"
        "Supervisor: Professor Tom Bell\n"
    )
    found, _ = triples(thesis)
    assert ("Draining of the Brede Levels, 1760-1830", "written by", "Ines Carrow", 3) in found
    assert not any(who == "Tom Bell" for _, _, who, _ in found)
    assert not byline("A play in three acts", "The Salt Road")
    assert not byline("Directed by Jo Pike", "The Salt Road")  # a director wrote nothing


def test_a_puzzles_set_by_line_names_its_maker_not_its_editor() -> None:
    page = "# Puzzles\n\n## Prize crossword 417\n\nSet by Rhian Moss\n\nPuzzles editor: Cai Rees\n"
    found, _ = triples(page)
    assert ("Prize crossword 417", "made by", "Rhian Moss", 5) in found
    assert not any(who == "Cai Rees" for _, _, who, _ in found)


def test_a_headline_in_apposition_keeps_its_news_apart() -> None:
    headline = "## Ada Marsh, founder of the Brede Rowing Club, dies at 88"
    found, _ = triples(f"# Obituaries\n\n{headline}\n\nShe rowed for her county.\n")
    assert ("Brede Rowing Club", "'s founder is", "Ada Marsh", 3) in found


def test_a_chat_exports_message_says_i_of_its_sender() -> None:
    chat = (
        "# Club chat (export)\n\n"
        "[12/03/2023, 19:02] Ines Carrow: Does anyone know who started this club?\n"
        "[12/03/2023, 19:05] Tom Bell: I founded the Brede chess club in 1998.\n"
        "12/03/2023, 19:06 - Ines Carrow: Thanks, Tom!\n"
    )
    found, _ = triples(chat)
    assert ("Tom Bell", "founded", "Brede chess club", 4) in found
    assert not any(who == "Ines Carrow" and deed == "founded" for who, deed, _, _ in found)


def test_a_telegrams_stops_end_its_sentences() -> None:
    wire = "# Telegram\n\nBREDE FOOTBRIDGE OPENED TODAY STOP BUILT BY NOOR HALSE STOP JO PIKE\n"
    text = " ".join(section.text for section in document_of("wire.md", wire).sections)
    assert "Brede Footbridge opened today. Built by Noor Halse. Jo Pike." in text, text
    assert document_of("sign.md", "# Sign\n\nTHE STOP SIGN IS RED.\n").sections[0].text == (
        "THE STOP SIGN IS RED."
    )
