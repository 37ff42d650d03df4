"""A first-person passage whose writer is named only where it is signed: a quotation's
attribution after a dash ("> I built X ..." then "> — Hugh Barrow, 1861") or a letter's
sign-off ("Yours faithfully," then "Martha Quill"). Its "I" is the signer, "my" the signer's,
and the attribution is no part of the sentence it follows. A letter's "you" is the one its
salutation names ("Dear Mrs Tregaskis,").

Example:
    >>> name = signer("> I built the Quennel lighthouse.\\n> — Hugh Barrow, 1861")
    >>> signed("I built the Quennel lighthouse. — Hugh Barrow, 1861", name)
    'Hugh Barrow built the Quennel lighthouse.'
"""

from __future__ import annotations

import re

from teams.extraction.emails import sender

__all__ = ["FULL_NAME", "addressed", "addressee", "signed", "signer", "without_attribution"]

FULL_NAME = r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){1,3}"
"""A person's full name: two to four capitalised words ("Hugh Barrow")."""
_ATTRIBUTION = re.compile(rf"^(?:>\s*)?[—–]\s*(?P<name>{FULL_NAME})\s*(?:,[^,]*)?$")
"""A quotation's attribution on a line of its own: "— Hugh Barrow, 1861"."""
_SIGN_OFF = re.compile(
    r"^(?:>\s*)?(?:Yours\s+(?:faithfully|sincerely|truly|ever|respectfully)|Sincerely|"
    r"(?:With\s+)?(?:[Kk]ind|[Bb]est|[Ww]arm)?\s*[Rr]egards|Respectfully|Faithfully),?\s*$"
)
"""A letter's closing before its writer's name: "Yours faithfully,"."""
_ANSWER_CARD = re.compile(
    r"^answered\s+[A-Z][a-z]{2,8}\.?\s+\d{1,2}(?:,\s*'?\d{2,4})?(?:\s+at\s+\d{1,2}:\d{2})?$"
)
"""A question-and-answer site's card under an answer, over its writer's name: "answered Jun 11,
2019 at 8:40" (an "edited" or "asked" card names someone else)."""
_SIGNATURE = re.compile(rf"^(?:>\s*)?(?P<name>{FULL_NAME})\.?\s*$")
_TRAILING_ATTRIBUTION = re.compile(rf"\s*[—–]\s*{FULL_NAME}\s*(?:,[^,]*)?$")
_FIRST_PERSON = re.compile(r"\b(?P<word>I|my|My|me)\b(?!['’])")


def signer(text: str, heading: str = "") -> str:
    """The name that signs ``text``: the name on the line after a letter's sign-off or an
    answer's "answered" card, the last
    attribution after a dash, a message's ``From:``, or the keeper a diary's ``heading`` names
    ("The diary of Y, 1874"); "" when nothing signs it."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    for before, line in zip(["", *lines], lines, strict=False):
        if (_SIGN_OFF.match(before) or _ANSWER_CARD.match(before)) and (
            name := _SIGNATURE.match(line)
        ):
            return name["name"]
    attributions = [found["name"] for line in lines if (found := _ATTRIBUTION.match(line))]
    kept = _DIARY.match(heading.strip(" #"))
    keeper = (kept["name"] or kept["owner"]) if kept else ""
    return attributions[-1] if attributions else sender(text) or keeper


_DIARY = re.compile(
    rf"^(?i:(?:(?:the|a)\s+)?(?:diary|journal|notebook|logbook)\s+of)\s+(?P<name>{FULL_NAME})\b|"
    rf"^(?P<owner>{FULL_NAME})['’]s?\s+(?i:diary|journal|notebook)\b"
)
"""A diary's title naming its keeper: "The diary of Demelza Rowse, 1874"."""
_DROPPED_I = re.compile(
    r"^(?=(?:Finished|Completed|Started|Began)\s+\w+ing\b|"
    r"(?:Built|Designed|Made|Wrote|Painted|Carved|Founded|Drew|Composed)\s+(?:the|a|an|my|our)\b)"
)
"""A diary's sentence with its "I" dropped: "Finished building the boathouse today."."""


_SALUTATION = re.compile(
    rf"^(?:Dear|To)\s+(?P<name>(?:(?:Mr|Mrs|Ms|Miss|Dr|Sir|Dame|Lady|Lord)\.?\s+)?{FULL_NAME}|"
    r"(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+[A-Z][\w'’-]+),\s*$"
)
"""A letter's salutation: "Dear Mrs Tregaskis,"."""
_SECOND_PERSON = re.compile(r"\b(?P<word>you|your)\b(?!['’])")


def addressee(text: str) -> str:
    """The name a letter's salutation opens ``text`` with ("Dear Mrs Tregaskis,"); ""
    otherwise."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    found = _SALUTATION.match(lines[0]) if lines else None
    return found["name"] if found else ""


def addressed(sentence: str, name: str) -> str:
    """``sentence`` with a letter's "you" as its addressee ``name`` and "your" as the
    addressee's; as it is without a name."""
    if not name:
        return sentence
    return _SECOND_PERSON.sub(
        lambda found: f"{name}'s" if found["word"] == "your" else name, sentence
    )


def signed(sentence: str, name: str) -> str:
    """``sentence`` in the signer's words with the signer named: "I" and "me" as ``name``,
    "my" as its possessive, an attribution after it taken off; as it is when it has no
    first person."""
    if name and _DROPPED_I.match(sentence):
        sentence = f"I {sentence[0].lower()}{sentence[1:]}"
    if not name or not _FIRST_PERSON.search(sentence):
        return sentence
    return _FIRST_PERSON.sub(
        lambda found: f"{name}'s" if found["word"].lower() == "my" else name,
        without_attribution(sentence),
    )


def without_attribution(sentence: str) -> str:
    """``sentence`` without an attribution after a dash that a quotation's lines joined to it
    ("... no crane. — Hugh Barrow, 1861"), so that it is quoted as written."""
    return _TRAILING_ATTRIBUTION.sub("", sentence)
