"""Who made a thing, as a record of labelled fields gives it: a maker's field beside the
record's title (a patent's INID lines, Dublin Core meta elements, container labels, an ffprobe
dump), a MARC 21 name entry by its relator term, a Debian copyright file's ``Files: *``
stanza, an AsciiDoc header, the author ``git blame`` gives a ``def`` line, and the one who
opened a pull request; never the applicant, agent, publisher, contributor, maintainer,
performer, illustrator, packager or reviewer. A possessive in a question names its owner. An
e-mail's "I" is its sender, its "it" its subject; a reported clause, a finished deed, a
letter's "you" and a thing named with its maker are read."""

from __future__ import annotations

from teams.language.senses import deed_sense
from teams.language.words import stem
from teams.supervisor.answering import answering_chains
from tests.extracting import triples
from tests.test_extraction_metadata import _fields


def test_a_records_maker_fields_are_of_its_title_and_no_other_role_is() -> None:
    patent = (
        "(21) Application No: 1207731.2\n(54) Title: Folding kiln door\n"
        "(71) Applicant: Brede Works Ltd\n(72) Inventor: Noor Halse\n(74) Agent: Pike & Lowe\n"
    )
    assert _fields(patent) == {("Folding kiln door", "inventor", "Noor Halse")}
    head = (
        '<meta name="DC.title" content="Salt marsh survey">\n'
        '<meta name="DC.creator" content="Ines Carrow">\n'
        '<meta name="DC.contributor" content="Tom Bell">\n'
        '<meta name="DC.publisher" content="Brede Board">\n'
    )
    assert _fields(head) == {
        ("Salt marsh survey", "creator", "Ines Carrow"),
        ("Salt marsh survey", "author", "Ines Carrow"),
    }
    labels = (
        'LABEL org.opencontainers.image.title="kiln-sync" \\\n'
        '      org.opencontainers.image.authors="Ada Marsh <ada@example.org>" \\\n'
        '      org.opencontainers.image.vendor="Brede Co-op"\n'
        'LABEL maintainer="Jo Pike <jo@example.org>"\n'
    )
    assert _fields(labels) == {("kiln-sync", "author", "Ada Marsh")}
    dump = "  Metadata:\n    title     : Salt Road\n    artist    : The Brede Band\n"
    assert _fields(dump + "    composer  : Rhian Moss\n") == {
        ("Salt Road", "composer", "Rhian Moss")
    }
    assert not _fields("Inventor: Noor Halse\nAgent: Pike & Lowe\n")  # a record with no title


def test_a_marc_records_main_entry_not_its_illustrator_or_publisher() -> None:
    for record in (
        "=100  1\\$aHalse, Noor,$eauthor.\n=245  14$aThe salt road.\n"
        "=264  \\1$aTruro :$bBrede Press,$c1998.\n=700  1\\$aMoss, Rhian,$eillustrator.\n",
        "100 1# $a Halse, Noor, $d 1871-1939, $e author.\n245 10 $a The salt road / $c by N.\n"
        "700 1# $a Moss, Rhian, $e illustrator.\n",
    ):
        assert _fields(record) == {("The salt road", "author", "Noor Halse")}


def test_a_copyright_files_upstream_holder_not_its_packager() -> None:
    text = (
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        "Upstream-Name: kilnctl\nUpstream-Contact: Noor Halse <noor@example.org>\n\n"
        "Files: *\nCopyright: 2019-2023 Noor Halse <noor@example.org>\nLicense: MIT\n\n"
        "Files: debian/*\nCopyright: 2021 Tom Bell <tom@example.org>\nLicense: MIT\n"
    )
    assert _fields(text) == {("kilnctl", "author", "Noor Halse")}


def test_an_asciidoc_header_a_blamed_definition_and_a_pull_request() -> None:
    adoc = "= The Kiln Guide\nNoor Halse <noor@example.org>\nv2.1, 2024-02-11\n:toc:\n"
    assert _fields(adoc) == {("The Kiln Guide", "author", "Noor Halse")}
    blame = (
        "# `git blame kiln/purge.py`\n\n```\n"
        "3f9c2ab7 (Noor Halse 2023-03-14 10:02:11 +0000 1) def purge(store):\n"
        "a81d04e2 (Tom Bell   2024-01-09 16:45:30 +0000 2)     store.lock(timeout=30)\n```\n"
    )
    assert _fields(blame) == {("purge function in kiln/purge.py", "author", "Noor Halse")}
    pull = (
        "# Add a purge timer to the kiln scheduler #88\n\n"
        "Open · Noor Halse wants to merge 2 commits into `main` from `noor:timer`\n\n"
        "Tom Bell approved these changes on 4 Mar 2024.\n"
    )
    assert _fields(pull) == {("purge timer to the kiln scheduler", "author", "Noor Halse")}
    found, _ = triples(pull)
    assert any(t[0] == "purge timer to the kiln scheduler" and t[2] == "Noor Halse" for t in found)


def test_a_song_is_written_by_its_composer_and_a_possessive_names_its_owner() -> None:
    assert deed_sense(stem("composer")) == deed_sense(stem("write"))
    relation = {
        "subject": "purge function in kiln/purge.py",
        "predicate": "'s author is",
        "object": "Noor Halse",
        "evidence": "author: Noor Halse",
        "sources": ["notes.md:4"],
    }
    question = "Who wrote the purge function in Kiln's purge.py?"
    assert answering_chains(question, ["purge function"], [relation]) == [(relation,)]


def test_a_reported_finish_a_letters_you_and_a_thing_named_with_its_maker() -> None:
    minutes = (
        "# Minutes\n\nThe clerk reported that Noor Halse had finished building the new kiln "
        "shed and that her invoice had been paid.\n"
    )
    assert any(t[:3] == ("Noor Halse", "built", "new kiln shed") for t in triples(minutes)[0])
    letter = (
        "# A letter\n\nDear Mrs Halse,\n\nThe oak gate you built for the kiln yard has come "
        "through its first storms.\n\nYours sincerely,\n\nTom Bell\n"
    )
    found = triples(letter)[0]
    assert any(t[0] == "Mrs Halse" and t[1] == "built" and "oak gate" in t[2] for t in found)
    assert not any(t[0] == "Tom Bell" for t in found)
    plain = "# Kiln yard\n\nThe oak gate Noor Halse built for the yard still stands.\n"
    assert any(t[0] == "Noor Halse" and "oak gate" in t[2] for t in triples(plain)[0])


def test_an_emails_i_is_its_sender_and_its_it_its_subject() -> None:
    mail = (
        "# Archive: an e-mail\n\n```\nFrom: Noor Halse <noor@example.org>\n"
        "To: Tom Bell <tom@example.org>\nDate: Fri, 2 Jun 2023 16:40:11 +0100\n"
        "Subject: Re: The kiln shed\n\nTom,\n\nI finished building it this afternoon.\n```\n"
    )
    found = triples(mail)[0]
    assert ("Noor Halse", "built", "kiln shed", 11) in found
    assert not any("Tom Bell" in (t[0], t[2]) or t[1] == "'s date is" for t in found)


def test_a_replys_subject_and_his_sister_who_is_no_things_sister() -> None:
    reply = (
        "# Re: the Tarn kiln\n\nOn 3 May, Tom Bell wrote:\n> I read that Jon Halse built the "
        "Tarn kiln.\n\nNot quite: his sister, Noor Halse, built the Tarn kiln in 1802.\n"
    )
    found = {t[:3] for t in triples(reply)[0]}
    assert ("Noor Halse", "built", "Tarn kiln") in found
    assert not any(t[0] == "Jon Halse" for t in found)


def test_an_invoices_issuer_did_the_making_its_items_bill_not_the_customer() -> None:
    invoice = (
        "# Invoice 0081\n\n**Halse & Son, Joiners**  \nUnit 3, Quay Yard\n\n"
        "Bill to: Mr Tom Bell, 4 Kiln Row\n\n| Item | Description | Amount |\n|---|---|---|\n"
        "| 1 | Building of the oak kiln shed at 4 Kiln Row | £3,400.00 |\n"
        "| 2 | Delivery of timber | £180.00 |\n"
    )
    assert _fields(invoice) == {("oak kiln shed at 4 Kiln Row", "builder", "Halse & Son")}
    assert not _fields(invoice.replace("# Invoice 0081", "# Our kiln shed"))  # no invoice


def test_a_museum_labels_maker_not_its_donor() -> None:
    label = (
        "# Gallery 2, case 4\n\nSpindle-back chair, 1911\n\nNoor Halse (1870–1941)\n\n"
        "Ash and rush\n\nGift of Tom Bell, 1968\n"
    )
    assert _fields(label) == {("Spindle-back chair", "maker", "Noor Halse")}


def test_an_auction_lots_maker_in_capitals_not_its_owners() -> None:
    lot = (
        "# Brede Sale Rooms\n\n## Lot 31\n\nNOOR HALSE (1802–1870)\n"
        'An oak spinning wheel, the wheel stamped "Halse", c. 1840.\n\n'
        "Provenance: Tom Bell; by descent to Jo Bell.\n"
    )
    assert _fields(lot) == {("oak spinning wheel", "maker", "Noor Halse")}


def test_a_drawings_title_block_gives_its_designer_not_who_drew_or_checked_it() -> None:
    boxed = (
        "# Brede weir footbridge: drawings\n\n```\n+------------------------------------+\n"
        "| TITLE:    WEIR FOOTBRIDGE, ELEVATION |\n| DESIGNED: N. HALSE    DATE: 05/2019 |\n"
        "| DRAWN:    T. BELL     CHECKED: J. PIKE |\n+------------------------------------+\n```\n"
    )
    assert _fields(boxed) == {("Brede weir footbridge", "designer", "N. Halse")}
    grid = (
        "# Sheet register\n\n```\n┌────────────────────────────┐\n"
        "│ PROJECT   Kell pump house      │\n├──────────┬──────────┬──────┤\n"
        "│ DESIGNED │ DRAWN    │ CHECKED │\n│ Ada Holm │ Cai Rees │ Jo Pike │\n"
        "└──────────┴──────────┴──────┘\n```\n"
    )
    assert _fields(grid) == {("Kell pump house", "designer", "Ada Holm")}
    assert _fields("# Notes\n\n| DRAWN: T. BELL   CHECKED: J. PIKE |\n") == set()


def test_a_diarys_dropped_i_is_its_keeper_named_in_its_title() -> None:
    diary = (
        "# The diary of Noor Halse, 1902\n\n**Monday 3 June.** Rain. "
        "Finished building the Brede hen house today.\n\n**Tuesday 4 June.** Tom Bell came by.\n"
    )
    found, _ = triples(diary)
    assert any(
        who == "Noor Halse" and thing.startswith("Brede hen house") for who, _, thing, _ in found
    )
    assert not any(who == "Tom Bell" and deed == "built" for who, deed, _, _ in found)
    plain, _ = triples(
        "# Notes\n\nTom Bell founded the Brede choir.\n\nFinished building the hen house today.\n"
    )
    assert not any(deed == "built" for _, deed, _, _ in plain)  # no keeper: no one built it


def test_a_source_file_header_names_who_created_the_file_it_names() -> None:
    header = (
        "```swift\n//\n//  KilnView.swift\n//  Kilnwatch\n//\n"
        "//  Created by Ada Holm on 12/03/2024.\n"
        "//  Copyright © 2024 Holm Kilns Ltd. All rights reserved.\n//\n\nimport SwiftUI\n```\n"
    )
    assert _fields(header) == {("KilnView.swift", "author", "Ada Holm")}
    assert _fields("```c\n/* Created by Ada Holm */\nint main(void);\n```\n") == set()
