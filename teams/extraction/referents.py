"""One of two names pointed back to: "the former" or "the first" is the first of two names
joined by "and" just before, "the latter" or "the second" the second.

"Mara Kell and Owen Fisk trained at Deane. The latter designed the lighthouse." says that Owen
Fisk designed it, and nothing of Mara Kell. The two names are the last pair before the
reference, in its sentence or the one before; a list of more ("A, B and C") is no pair. The
reference stands for a name only where a verb follows it ("the latter designed"), not a noun
("the former mill").

Example:
    >>> with_referents("The latter designed the lighthouse.", "Ann Roe and Ivo Hart met.")
    'Ivo Hart designed the lighthouse.'
"""

from __future__ import annotations

import re

from teams.extraction.patterns import looks_like_verb

__all__ = ["with_referents"]

_NAME = r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3}"
_PAIR = re.compile(rf"(?<![\w'’-])(?P<first>{_NAME})\s+and\s+(?P<second>{_NAME})\b")
_LISTED = re.compile(r"(?:[A-Z][\w'’-]*|,)\s*$")
"""What ends the text before a pair that is part of a longer name or list."""
_REFERENCE = re.compile(
    r"\b[Tt]he\s+(?P<which>former|latter|first|second)\s+(?P<next>[a-z]+)(?:\s+(?P<after>\w+))?"
)
_OPENING = frozenset("the a an after before when while once since until in on at by both".split())
"""Capitalised words that open a sentence before a name ("After Ann Roe and ...")."""
_SECOND = ("latter", "second")
_AUXILIARIES = frozenset("is was has had would could will".split())


def _pair(text: str) -> tuple[str, str] | None:
    """The last two names ``text`` joins by "and" alone, not in a longer list."""
    pairs = []
    for found in _PAIR.finditer(text):
        words = found["first"].split()
        while words and words[0].lower() in _OPENING:
            words = words[1:]
        if words and not _LISTED.search(text[: found.start()]):
            pairs.append((" ".join(words), found["second"]))
    return pairs[-1] if pairs else None


def with_referents(sentence: str, before: str) -> str:
    """``sentence`` with "the former", "the latter" (and "the first", "the second") before a
    verb put as the name it points to, of the pair in ``before`` (the sentence before) or in
    ``sentence`` ahead of it; as it is when there is no such pair."""
    for reference in _REFERENCE.finditer(sentence):
        verb, after = reference["next"], (reference["after"] or "").lower()
        if verb not in _AUXILIARIES and not looks_like_verb(verb, after):
            continue  # "the former mill": a noun
        pair = _pair(f"{before} {sentence[: reference.start()]}")
        if pair is None:
            return sentence
        name = pair[1] if reference["which"] in _SECOND else pair[0]
        return f"{sentence[: reference.start()]}{name} {sentence[reference.start('next') :]}"
    return sentence
