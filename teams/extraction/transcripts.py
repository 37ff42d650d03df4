"""A turn of an interview transcript: the speaker's label taken off, and the speaker's "I" put
as the speaker's name.

"MAY RUDD: My grandfather, Henry Rudd, in 1902." answers the question of the turn before as
"My grandfather, Henry Rudd, in 1902."; "Hal Brisk: I did, in 1902." as "Hal Brisk did, in
1902.". A label is taken off only in a turn that asks a question or answers one, or a message of a
chat export ("[12/03/2023, 19:05] Gideon Marr: I founded X"), so that a "Note:" or a key before a
value is left as it is.

Example:
    >>> spoken("Hal Brisk: I did, in 1902.", answering=True)
    'Hal Brisk did, in 1902.'
"""

from __future__ import annotations

import re

__all__ = ["spoken"]

_TURN = re.compile(
    r"^(?P<speaker>[A-Z][A-Za-z.'’-]*(?:\s+[A-Z][A-Za-z.'’-]*){0,3}):\s+(?P<words>\S.*)$"
)
"""A speaker's label and what the speaker says ("MAY RUDD: ...", "Hal Brisk: ...")."""
_I = re.compile(r"^I\b(?!')")


_CHAT_STAMP = re.compile(
    r"^\[?\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4},?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?\]?"
    r"\s*(?:-\s+)?(?=[A-Z])"
)
"""The date and time a chat export opens each message with: "[12/03/2023, 19:05] " (or
"12/03/2023, 19:05 - ")."""

_VOICE = re.compile(r"^<v(?:\.[\w.-]+)?\s+(?P<speaker>[^<>]+?)>(?P<words>[^<>]*\S)\s*(?:</v>)?$")
"""A WebVTT cue's text in a voice span, which names its speaker: "<v Hal Brisk>I built it."
(a class may follow the "v": "<v.loud Hal Brisk>")."""


def spoken(sentence: str, *, answering: bool) -> str:
    """``sentence`` without its speaker's label, when it asks a question or ``answering`` one
    or is a message of a chat export (its date and time before its sender's name) or a WebVTT
    cue in a voice span, and with an opening "I" as the speaker; ``sentence`` otherwise."""
    if stamp := _CHAT_STAMP.match(sentence):  # "[12/03/2023, 19:05] Gideon Marr: I founded"
        sentence, answering = sentence[stamp.end() :], True
    elif voice := _VOICE.match(sentence):  # a WebVTT cue's "<v Hal Brisk>I founded ..."
        sentence, answering = f"{voice['speaker']}: {voice['words']}", True
    turn = _TURN.match(sentence)
    if turn is None or not (answering or turn["words"].rstrip().endswith("?")):
        return sentence
    return _I.sub(turn["speaker"], turn["words"], count=1)
