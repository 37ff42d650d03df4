"""Who made a thing, as a format labels it line by line: a cue sheet's ``SONGWRITER``, an ID3v2
tag's ``TCOM`` as ``mid3v2 -l`` lists it, a FITS header's ``OBSERVER``, a herbarium label's
"Leg.", an estate map's "SURVEYED BY", a Mercurial changeset's ``user:`` and the speaker a
WebVTT voice span names; never a performer, a ``HISTORY`` card, a determiner, a landowner, one
who only pushed a change or the speaker of the cue before."""

from __future__ import annotations

from framework.memory import SemanticStore
from tests.extracting import answer
from tests.test_extraction_metadata import _fields


def test_a_cue_sheets_songwriter_of_its_track_not_its_performer() -> None:
    sheet = (
        '```\nPERFORMER "Kell Choir"\nTITLE "Brede Songs"\nFILE "brede.wav" WAVE\n'
        '  TRACK 01 AUDIO\n    TITLE "Salt Road"\n    PERFORMER "Jo Bell"\n'
        '    SONGWRITER "Noor Halse"\n    INDEX 01 00:00:00\n'
        '  TRACK 02 AUDIO\n    SONGWRITER "Cai Rees"\n    TITLE "Ferry Light"\n'
        '    PERFORMER "Ina Vale"\n    INDEX 01 03:10:00\n```\n'
    )
    assert _fields(sheet) == {
        ("Salt Road", "author", "Noor Halse"),
        ("Ferry Light", "author", "Cai Rees"),
    }
    sung = '```\nTRACK 01 AUDIO\n  TITLE "Salt Road"\n  PERFORMER "Jo Bell"\n```\n'
    assert _fields(sung) == set()


def test_an_id3_tags_composer_not_its_performer() -> None:
    tags = (
        "```\n$ mid3v2 -l kiln.mp3\nIDv2 tag info for kiln.mp3\nTIT2=Kiln Song\n"
        "TPE1=Jo Bell\nTCOM=Noor Halse\nTEXT=Cai Rees\nTALB=Fires\n```\n"
    )
    assert _fields(tags) == {
        ("Kiln Song", "composer", "Noor Halse"),
        ("Kiln Song", "author", "Cai Rees"),
    }
    assert _fields("```\nTIT2=Kiln Song\nTPE1=Jo Bell\n```\n") == set()


def test_a_fits_headers_observer_not_one_on_a_history_card() -> None:
    header = (
        "```\nSIMPLE  =                    T / conforms to FITS standard\n"
        "OBJECT  = 'NGC 891 '           / edge-on galaxy\n"
        "OBSERVER= 'Ada Holm'           / observer\n"
        "HISTORY Reduced by Tom Wren\nEND\n```\n"
    )
    assert _fields(header) == {("image of NGC 891", "photographer", "Ada Holm")}
    reduced = header.replace("OBSERVER= 'Ada Holm'           / observer\n", "")
    assert _fields(reduced) == set()


def test_a_herbarium_labels_collector_not_its_determiner() -> None:
    label = (
        "```\nHERBARIUM OF THE KELL FIELD CLUB\n\nDrosera anglica Huds.\nGreat sundew\n\n"
        "Brede Moss, wet peat\n3 July 1911\n\nLeg. Ina Vale\nDet. Oli Pry, 1930\n```\n"
    )
    assert _fields(label) == {
        ("specimen of Drosera anglica", "collector", "Ina Vale"),
        ("specimen of Great sundew", "collector", "Ina Vale"),
    }
    named = label.replace("Leg. Ina Vale\n", "")
    assert _fields(named) == set()


def test_an_estate_maps_surveyor_not_its_landowner() -> None:
    cartouche = (
        "```\nA PLAN\nOF THE BARTON OF KELLOW\nTHE PROPERTY OF\nJOHN ARUNDEL ESQ.\n"
        "SURVEYED BY\nMARY TONKIN\n1802\n```\n"
    )
    assert _fields(cartouche) == {("plan of the barton of Kellow", "maker", "Mary Tonkin")}
    owned = "```\nA PLAN\nOF THE BARTON OF KELLOW\nTHE PROPERTY OF\nJOHN ARUNDEL ESQ.\n```\n"
    assert _fields(owned) == set()


def test_a_mercurial_changesets_user_of_what_it_adds() -> None:
    log = (
        "```\n$ hg log -r 7\nchangeset:   7:0a1b2c3d4e5f\nbranch:      default\n"
        "user:        Noor Halse <noor@example.org>\ndate:        Mon Jan 8 09:00:00 2024 +0000\n"
        "summary:     Add the kiln purge command\n```\n\nJo Bell pushed it.\n"
    )
    assert _fields(log) == {("kiln purge command", "author", "Noor Halse")}
    fixed = log.replace("Add the kiln purge command", "Fix a typo")
    assert _fields(fixed) == set()


def test_a_webvtt_voice_span_names_who_says_i(store: SemanticStore) -> None:
    subtitles = (
        "# Subtitles\n\n```\nWEBVTT\n\n00:00:01.000 --> 00:00:03.000\n"
        "<v Tom Wren>Tell us about the weir.\n\n00:00:03.000 --> 00:00:07.000\n"
        "<v Ina Vale>I built the Brede weir in 1990.\n```\n"
    )
    said = answer(subtitles, "Who built the Brede weir?", store)
    assert "Ina Vale" in said
    assert "Tom Wren" not in said


def test_who_took_the_image_asks_for_its_photographer(store: SemanticStore) -> None:
    header = (
        "```\nSIMPLE  =                    T\nOBJECT  = 'NGC 891 '\n"
        "OBSERVER= 'Ada Holm'\nHISTORY Stacked by Tom Wren\nEND\n```\n"
    )
    said = answer(header, "Who took the image of NGC 891?", store)
    assert "Ada Holm" in said
    assert "Tom Wren" not in said
