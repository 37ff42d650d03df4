"""An exchange read from both sides, so a question asked from either side finds it.

"X sold the estate to Z" also says that Z bought the estate, and bought it from X; "The
estate was sold to Z" that Z bought it; "X lost to Z" that Z won against X. A passive naming
both parties ("was sold by A to B") is read as two sentences, each quoted without the other
party. The exchange verbs
and their converses are :func:`teams.language.verbs.converse`'s.

Example:
    >>> sentence = "Hobb family sold Marl estate to Ruth Kemble in 1921."
    >>> read = [Reading("Hobb family", "sold", "Marl estate", 0.6)]
    >>> [(r.subject, r.predicate, r.object) for r in converse_readings(sentence, read)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('Hobb family', 'sold to', 'Ruth Kemble'), ('Ruth Kemble', 'bought', 'Marl estate'),
     ('Ruth Kemble', 'bought from', 'Hobb family')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from teams.extraction.documents import LIST_JOIN
from teams.extraction.patterns import Reading, infinitive, noun_phrases
from teams.language.verbs import Converse, converse

__all__ = ["converse_readings", "exchange_parts"]

_BETWEEN = 3
"""Words at most between the thing exchanged and the other party's preposition."""
_AUXILIARY = r"\b(?:is|are|was|were|be|been|being)\s+(?:\w+\s+)?"


def _passive(sentence: str, verb: str) -> bool:
    """Whether ``verb`` is a passive in the sentence ("was sold")."""
    return re.search(rf"{_AUXILIARY}{re.escape(verb)}\b", sentence, re.IGNORECASE) is not None


def _other_party(sentence: str, thing: str, preposition: str) -> str:
    """Who the preposition names shortly after the thing exchanged ("sold the estate in 1921
    to Z": Z), or ""."""
    found = re.search(
        rf"\b{re.escape(thing)}\b[^\w,;]*(?:[\w'-]+\s+){{0,{_BETWEEN}}}?{preposition}\s+(?P<rest>.+)$",
        sentence,
        re.IGNORECASE,
    )
    if found is None or infinitive(found.group("rest")):
        return ""  # none, or "sends a request to upgrade": an infinitive
    parties = noun_phrases(found.group("rest"))
    return parties[0] if parties else ""


def _turned(sentence: str, reading: Reading, turned: Converse) -> list[Reading]:
    """The readings one exchange reading implies, seen from the other side."""
    verb, _, preposition = reading.predicate.partition(" ")
    subject, thing, confidence = reading.subject, reading.object, reading.confidence
    back = f"{turned.verb} {turned.preposition}"
    if preposition and preposition != turned.own:
        return []  # "was sold by", "sold in 1921"
    if _passive(sentence, verb):  # "The estate was sold to Z": Z bought the estate
        return [Reading(thing, turned.verb, subject, confidence)] if preposition else []
    if preposition:  # "X lost to Z": Z won against X
        return [Reading(thing, back, subject, confidence)]
    other = _other_party(sentence, thing, turned.own)
    if not other:
        return []
    return [  # "X sold the estate to Z": X sold to Z, Z bought the estate, Z bought from X
        Reading(subject, f"{verb} {turned.own}", other, confidence),
        Reading(other, turned.verb, thing, confidence),
        Reading(other, back, subject, confidence),
    ]


def converse_readings(sentence: str, readings: Sequence[Reading]) -> list[Reading]:
    """What the exchanges among ``readings`` (read from ``sentence``) say from the other
    side; [] when none is an exchange."""
    found = []
    for reading in readings:
        turned = converse(reading.predicate.split()[0])
        if turned is not None:
            found += _turned(sentence, reading, turned)
    return found


_AGENT_AND_PARTY = re.compile(
    r"^(?P<head>.+?\b(?:is|are|was|were|been)\s+(?P<verb>[a-z]+)\s+)by\s+(?P<agent>[^,;]+?)\s+"
    r"(?P<prep>to|from)\s+(?P<party>[^,;]+?)\s*[.!?]?$"
)
"""A passive exchange naming both parties: "the mill had been sold by A to B"."""


def exchange_parts(sentence: str) -> list[tuple[str, str]]:
    """A passive exchange with its agent and its other party ("X was sold by A to B") as two
    sentences, each with its quotation leaving the other party out ("X was sold by A", "X was
    sold … to B"); [] for any other sentence."""
    found = _AGENT_AND_PARTY.match(sentence)
    turned = converse(found["verb"]) if found else None
    if found is None or turned is None or turned.own != found["prep"]:
        return []
    head, agent, party = found["head"], found["agent"], f"{found['prep']} {found['party']}"
    return [
        (f"{head}by {agent}.", f"{head}by {agent}"),
        (f"{head}{party}.", f"{head.rstrip()}{LIST_JOIN}{party}"),
    ]
