"""One of two names pointed back to: "the former" or "the first" is the first of two names
joined by "and" just before, "the latter" or "the second" the second.

"Mara Kell and Owen Fisk trained at Deane. The latter designed the lighthouse." says that Owen
Fisk designed it, and nothing of Mara Kell. The two names are the last pair before the
reference, in its sentence or the one before; a list of more ("A, B and C") is no pair. The
reference stands for a name only where a verb follows it ("the latter designed") or where it
is the agent of a passive ("was designed by the former."), not before a noun ("the former
mill"); the clause that holds it is what a relation read from it quotes, so the other name is
not quoted with it.

Example:
    >>> with_referents("The latter designed the lighthouse.", "Ann Roe and Ivo Hart met.")
    'Ivo Hart designed the lighthouse.'
"""

from __future__ import annotations

import re

from teams.extraction.patterns import looks_like_verb

__all__ = ["referring_clause", "with_referents"]

_NAME = r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3}"
_PAIR = re.compile(rf"(?<![\w'’-])(?P<first>{_NAME})\s+and\s+(?P<second>{_NAME})\b")
_LISTED = re.compile(r"(?:[A-Z][\w'’-]*|,)\s*$")
"""What ends the text before a pair that is part of a longer name or list."""
_REFERENCE = re.compile(
    r"\b[Tt]he\s+(?P<which>former|latter|first|second)\b"
    r"(?:\s+(?P<next>[a-z]+)(?:\s+(?P<after>\w+))?)?"
)
_AGENT = re.compile(r"\bby\s+$")
"""What stands before a reference that is the agent of a passive ("designed by the former")."""
_AFTER_AGENT = frozenset("in on at and during after before with".split())
"""Words after an agent reference that show it ends its noun phrase ("by the former in 1905")."""
_CLAUSES = re.compile(r"\s*;\s*|,\s*(?:and|but|while|whereas)\s+", re.IGNORECASE)
"""Between two clauses of a sentence."""
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
        if not _stands_for_name(sentence, reference):
            continue  # "the former mill": a noun
        pair = _pair(f"{before} {sentence[: reference.start()]}")
        if pair is None:
            return sentence
        name = pair[1] if reference["which"] in _SECOND else pair[0]
        return f"{sentence[: reference.start()]}{name}{sentence[reference.end('which') :]}"
    return sentence


def _stands_for_name(sentence: str, reference: re.Match[str]) -> bool:
    """Whether a reference stands for a name: before a verb ("the latter designed"), or as the
    agent of a passive that ends there ("was designed by the former.")."""
    verb, after = reference["next"], (reference["after"] or "").lower()
    if _AGENT.search(sentence[: reference.start()]) and (verb is None or verb in _AFTER_AGENT):
        return True
    return verb is not None and (verb in _AUXILIARIES or looks_like_verb(verb, after))


def referring_clause(sentence: str) -> str:
    """The clause of ``sentence`` that holds a reference standing for a name, as written
    ("the Cray pavilion was designed by the former"), to quote in place of the whole sentence
    whose other name the reference excludes; "" when there is none."""
    for clause in _CLAUSES.split(sentence):
        if any(_stands_for_name(clause, found) for found in _REFERENCE.finditer(clause)):
            return clause.strip()
    return ""
