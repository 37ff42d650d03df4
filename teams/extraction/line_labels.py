"""Who made a thing, as a format labels it line by line: a CD cue sheet's ``SONGWRITER`` of its
track's ``TITLE``, an ID3v2 tag's ``TCOM`` (composer) and ``TEXT`` (lyricist) of its ``TIT2``
as ``mid3v2 -l`` lists the frames, a FITS header's ``OBSERVER`` card (who acquired the image of
its ``OBJECT``), a herbarium label's collector after "Leg." (legit), an estate map's cartouche
"SURVEYED BY" over its maker, and a Mercurial changeset's ``user:`` over its ``summary:``
("Add the X"). Each is ``(line, thing, role, who)``, as :mod:`teams.extraction.metadata` reads
them; a performer (``PERFORMER``, ``TPE1``), one named on a FITS ``HISTORY`` card, a
herbarium's determiner ("Det.") and a map's landowner ("THE PROPERTY OF") made nothing. The
cues of a WebVTT file, each a voice span naming its speaker, are read as that speaker's turns
(:func:`subtitle_cues`).

Example:
    >>> list(id3_frames(["TIT2=Salt Road", "TPE1=Jo Bell", "TCOM=Noor Halse"]))
    [(3, 'Salt Road', 'composer', 'Noor Halse')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import takewhile

from teams.extraction.labelled_records import ADDING, Found, name_of, out_of_capitals

__all__ = [
    "cartouche_surveyors",
    "cue_sheet_songwriters",
    "fits_observers",
    "herbarium_collectors",
    "id3_frames",
    "mercurial_authors",
    "subtitle_cues",
]

_CUE_COMMAND = re.compile(r'^\s*(?P<command>TRACK|TITLE|SONGWRITER)\s+"?(?P<value>[^"]*?)"?\s*$')


def cue_sheet_songwriters(lines: Sequence[str]) -> Iterator[Found]:
    """Each ``SONGWRITER`` of a CD cue sheet (the CDRWIN format), of the ``TITLE`` of its
    ``TRACK`` (of the disc's before the first track); its ``PERFORMER`` wrote nothing."""
    block: dict[str, tuple[int, str]] = {}
    for at, line in enumerate([*lines, "TRACK 00"]):  # the last track ends
        if (found := _CUE_COMMAND.match(line)) is None:
            continue
        if found["command"] == "TRACK":
            if {"TITLE", "SONGWRITER"} <= block.keys():
                line_of, who = block["SONGWRITER"]
                yield line_of, block["TITLE"][1], "author", who
            block = {}
        else:
            block.setdefault(found["command"], (at + 1, found["value"].strip()))


_FRAME = re.compile(r"^\s*(?P<frame>[A-Z][A-Z0-9]{3})=(?P<value>\S.*?)\s*$")
_FRAME_ROLES = {"TCOM": "composer", "TEXT": "author"}
"""The ID3v2 frames of a song's makers: its composer and its lyricist (text writer)."""


def id3_frames(lines: Sequence[str]) -> Iterator[Found]:
    """An ID3v2 tag's composer (``TCOM``) and lyricist (``TEXT``) of its title (``TIT2``), one
    frame a line as ``mid3v2 -l`` lists them ("TCOM=Y"); the performer (``TPE1``) made none."""
    frames = [(at + 1, found) for at, line in enumerate(lines) if (found := _FRAME.match(line))]
    title = next((found["value"] for _, found in frames if found["frame"] == "TIT2"), "")
    for at, found in frames if title else ():
        if role := _FRAME_ROLES.get(found["frame"]):
            yield at, title, role, found["value"]


_CARD = re.compile(r"^(?P<key>[A-Z0-9_-]{1,8})\s*=\s*(?P<value>'(?:[^']|'')*'|[^/]*?)\s*(?:/.*)?$")
_FITS_OPENING = frozenset({"SIMPLE", "XTENSION"})


def _card_value(value: str) -> str:
    """A FITS card's value: a string without its quotes and padding."""
    return value[1:-1].replace("''", "'").strip() if value.startswith("'") else value.strip()


def fits_observers(lines: Sequence[str]) -> Iterator[Found]:
    """A FITS header's ``OBSERVER`` (who acquired the data, as the FITS standard defines it),
    as who photographed the image of its ``OBJECT``; one named on a ``HISTORY`` card made
    nothing."""
    cards = {
        found["key"]: (at + 1, _card_value(found["value"]))
        for at, line in enumerate(lines)
        if (found := _CARD.match(line.strip()))
    }
    if _FITS_OPENING & cards.keys() and {"OBJECT", "OBSERVER"} <= cards.keys():
        line, who = cards["OBSERVER"]
        yield line, f"image of {cards['OBJECT'][1]}", "photographer", who


_LEGIT = re.compile(r"^\s*(?:Leg|Coll)\.\s*:?\s*(?P<who>[A-Z][^,;\d]*?)\s*(?:[,;].*)?$")
_BINOMIAL = re.compile(r"^\s*(?P<name>[A-Z][a-z]+\s+[a-z]+)(?:\s+\S.*)?$")
"""A species as a label names it, its authority after: "Asplenium marinum L."."""
_VERNACULAR = re.compile(r"^\s*(?P<name>[A-Z][a-z]+(?:[ -][a-z]+){0,3})\s*$")


def herbarium_collectors(lines: Sequence[str]) -> Iterator[Found]:
    """The collector of a herbarium specimen, after "Leg." (legit) or "Coll." on its label, of
    the specimen of the species above (by its name and the common name under it); the one who
    named it ("Det.", determinavit) collected nothing."""
    species: list[str] = []
    for at, line in enumerate(lines):
        if found := _LEGIT.match(line):
            for name in species:
                yield at + 1, f"specimen of {name}", "collector", found["who"]
        elif not species and (binomial := _BINOMIAL.match(line)):
            below = lines[at + 1] if at + 1 < len(lines) else ""
            common = _VERNACULAR.match(below)
            species = [binomial["name"], *([common["name"]] if common else [])]


_SURVEYED = re.compile(r"^\s*(?:SURVEYED|SURVEY'D)(?:\s+AND\s+DRAWN)?\s+BY\s*$")
_MAP_TITLE = re.compile(r"^\s*(?:AN?\s+)?(?:MAP|PLAN|SURVEY)\b")
_OF = re.compile(r"^\s*OF\s")


def cartouche_surveyors(lines: Sequence[str]) -> Iterator[Found]:
    """The surveyor an estate map's cartouche names in capitals on the line under "SURVEYED
    BY", as the maker of the map its lettering titles ("A MAP" and the "OF ..." lines under
    it); the landowner under "THE PROPERTY OF" made nothing."""
    title = ""
    for at, line in enumerate(lines):
        if _MAP_TITLE.match(line) and not title:
            following = (text.strip() for text in lines[at + 1 :])
            title = " ".join([line.strip(), *takewhile(_OF.match, following)])
        elif title and _SURVEYED.match(line) and at + 1 < len(lines):
            who = out_of_capitals(lines[at + 1].strip().rstrip("."))
            if who:
                yield at + 2, _sentence_case(title), "maker", who


def _sentence_case(title: str) -> str:
    """A title in capitals as a thing's name: "A MAP OF THE MANOR OF KELL": "map of the manor
    of Kell" (its last word a place's name)."""
    words = re.sub(r"^(?:AN?|THE)\s+", "", title).lower().split()
    return " ".join([*words[:-1], words[-1].capitalize()])


_CHANGESET = re.compile(r"^\s*changeset:\s+\d+:[0-9a-f]{7,40}\s*$")
_HG_FIELD = re.compile(r"^\s*(?P<field>[a-z]+):\s+(?P<value>\S.*?)\s*$")


def mercurial_authors(lines: Sequence[str]) -> Iterator[Found]:
    """A Mercurial changeset's ``user:`` (as ``hg log`` prints it), of what its ``summary:``
    adds ("Add the X": X); one who only pushed it wrote nothing."""
    for at, line in enumerate(lines):
        if not _CHANGESET.match(line):
            continue
        fields: dict[str, tuple[int, str]] = {}
        for row in range(at + 1, len(lines)):
            if (found := _HG_FIELD.match(lines[row])) is None or found["field"] == "changeset":
                break
            fields.setdefault(found["field"], (row + 1, found["value"]))
        if {"user", "summary"} <= fields.keys():
            summary = fields["summary"][1]
            thing = ADDING.sub("", summary).rstrip(".")
            if thing != summary and (who := name_of(fields["user"][1])):
                yield fields["user"][0], thing, "author", who


_VOICE_CUE = re.compile(r"^\s*<v[.\s][^<>]*>")
_TIMING = re.compile(r"-->")


def subtitle_cues(lines: Sequence[str]) -> list[tuple[int, str]]:
    """Each cue of a WebVTT file whose text opens with a voice span ("<v Name>I built ..."),
    as its line (1-based) and text, to be read as its speaker's turn."""
    return [
        (at + 1, line.strip())
        for at, line in enumerate(lines)
        if _VOICE_CUE.match(line) and at and _TIMING.search(lines[at - 1])
    ]
