"""An offline test of whether two statements are about the same thing and whether they disagree.

Shared by the MetaCoordinator's risk assessment and the hypothesis team's judge and resolver.
A statement is read as a :class:`Claim`: what it is about (its content words, less the words of
its values), the values it states (:mod:`teams.language.values`: figures in words or digits with
units,
dates, colours, materials, fuels) and whether it is negated ("shut" reads as "not open"). Two
claims are about the same thing when they share most of their content words; they disagree
when, about the same thing, they give values of the same kind that differ, or one negates what
the other states. The same value in other words ("30" and "thirty", "3 km" and "3000 metres",
"shut" and "not open") is agreement.

A sentence that reports a value as wrong ("a misprint", "confused it with", "was corrected
to") is a correction, not a claim: :func:`correction_of` reads which value it rejects.

Example:
    >>> disagreement("The bridge opened in 1932.", "The bridge opened in 1936.")
    'different dates (1932, 1936)'
    >>> disagreement("The choir has 30 singers.", "The choir has thirty singers.") is None
    True
    >>> agrees("The pass is shut in winter.", "The pass is not open in winter.")
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from teams.language.values import Value, value_words, values_agree, values_in
from teams.research.text import STOPWORDS, keywords, stem

__all__ = [
    "DEFAULT_OVERLAP",
    "Claim",
    "agrees",
    "claim_of",
    "correction_of",
    "differing_names",
    "disagreement",
    "same_subject",
]

DEFAULT_OVERLAP = 0.6
"""Share of the shorter statement's content words the other must contain to be on its subject."""

_NEGATION = re.compile(
    r"\b(?:not|never|no longer|cannot|can't|doesn't|don't|isn't|aren't|wasn't|weren't|won't|"
    r"no)\b",
    re.IGNORECASE,
)
_OPPOSITES = {
    "shut": "open",
    "closed": "open",
    "closes": "open",
    "forbidden": "allowed",
    "prohibited": "allowed",
    "banned": "allowed",
    "disallowed": "allowed",
    "unavailable": "available",
    "disabled": "enabled",
    "absent": "present",
    "excluded": "included",
    "impossible": "possible",
    "unsupported": "supported",
    "invalid": "valid",
    "false": "true",
    "unsafe": "safe",
}
"""Words that state the negation of another: "shut" is "not open"."""
_SAME = {"permitted": "allowed", "opened": "open"}
_REJECTS = re.compile(
    r"\b(?:misprint(?:ed|s)?|typo|mistaken(?:ly)?|mistook|mix(?:ed)? up|(?:a|by|in) (?:mistake|"
    r"error)|erroneous(?:ly)?|(?:is|was|were|are) wrong|wrongly|(?:is|was|were|are) incorrect|"
    r"incorrectly|confus(?:ed|es|ing)\b[^.;]*\bwith)\b",
    re.IGNORECASE,
)
_UPHOLDS = re.compile(
    r"\b(?:corrected to|amended to|should (?:read|be|have been)|is actually|was actually|"
    r"in fact|correct (?:figure|value|date|number) is|rather)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Claim:
    """What a statement is about, the values it states, and whether it is negated."""

    text: str
    about: frozenset[str]
    values: tuple[Value, ...]
    negated: bool
    correction: bool


@lru_cache(maxsize=4096)
def claim_of(text: str) -> Claim:
    """``text`` read as a claim."""
    values = tuple(values_in(text))
    skip = value_words(values)
    about: set[str] = set()
    flips = 0
    for word in keywords(text):
        if word in skip or word.isdigit() or _NEGATION.fullmatch(word):
            continue
        if word in _OPPOSITES:
            flips += 1
        about.add(stem(_OPPOSITES.get(word) or _SAME.get(word) or word))
    negated = (len(_NEGATION.findall(text)) + flips) % 2 == 1
    correction = bool(_REJECTS.search(text) or _UPHOLDS.search(text))
    return Claim(text, frozenset(about), values, negated, correction)


def same_subject(first: str, second: str, overlap: float = DEFAULT_OVERLAP) -> bool:
    """Whether the two statements share at least ``overlap`` of the shorter one's content words."""
    words_a, words_b = claim_of(first).about, claim_of(second).about
    if not words_a or not words_b:
        return False
    return len(words_a & words_b) / min(len(words_a), len(words_b)) >= overlap


def _groups(claim: Claim) -> dict[tuple[str, str], list[Value]]:
    grouped: dict[tuple[str, str], list[Value]] = {}
    for value in claim.values:
        key = value.key if value.kind in ("quantity", "count", "date", "time") else ""
        grouped.setdefault((value.kind, key), []).append(value)
    return grouped


def _differing(first: Claim, second: Claim) -> tuple[str, list[Value], list[Value]] | None:
    """The first kind of value both claims state with no value in common, and those values."""
    groups_b = _groups(second)
    for key, values_a in _groups(first).items():
        values_b = groups_b.get(key)
        if values_b and not any(values_agree(a, b) for a in values_a for b in values_b):
            return key[0], values_a, values_b
    return None


_KIND_NAMES = {"quantity": "figures", "count": "numbers", "date": "dates", "time": "times"}


def disagreement(first: str, second: str, overlap: float = DEFAULT_OVERLAP) -> str | None:
    """Why the two statements disagree about the same subject, or ``None`` when they do not.

    A statement that adds a value the other lacks (a detail) does not disagree with it; a
    correction (:func:`correction_of`) is not a claim and disagrees with nothing.
    """
    a, b = claim_of(first), claim_of(second)
    if a.correction or b.correction:
        return None
    names = differing_names(first, second)
    if names is not None:
        return f"different names ({names[0]}, {names[1]})"
    if not same_subject(first, second, overlap):
        return None
    return _values_differ(a, b)


def _values_differ(a: Claim, b: Claim) -> str | None:
    """How two claims on one subject differ: other names, values, or polarity; None if not."""
    names_a, names_b = _names(a.text) - _names(b.text), _names(b.text) - _names(a.text)
    if names_a and names_b:
        return f"different names ({', '.join(sorted(names_a))}; {', '.join(sorted(names_b))})"
    differing = _differing(a, b)
    if differing is not None:
        kind, values_a, values_b = differing
        labels = ", ".join(dict.fromkeys(v.label for v in [*values_a, *values_b]))
        return f"different {_KIND_NAMES.get(kind, kind + 's')} ({labels})"
    if a.negated != b.negated:
        return "one negates what the other states"
    return None


_WORDS = re.compile(r"[A-Za-z][\w'-]*|\d[\d,.:]*")
_MAX_NAME_WORDS = 4
_MIN_SHARED_WORDS = 2


def differing_names(first: str, second: str) -> tuple[str, str] | None:
    """The names two statements put in the same place, when that is all that differs.

    "The bridge was designed by Ada Marsh." and "The bridge was designed by John Rennie." give
    ``("Ada Marsh", "John Rennie")``: the words before and after are the same, and what differs
    is a capitalised name (not the first word) on each side. A name that is part of the other
    ("Rennie", "John Rennie") is no difference.
    """
    a, b = _WORDS.findall(first), _WORDS.findall(second)
    lower_a, lower_b = [w.lower() for w in a], [w.lower() for w in b]
    start = 0
    while start < min(len(a), len(b)) and lower_a[start] == lower_b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and lower_a[-1 - end] == lower_b[-1 - end]:
        end += 1
    name_a, name_b = a[start : len(a) - end], b[start : len(b) - end]
    shared = keywords(" ".join([*a[:start], *a[len(a) - end :]]))
    if not start or len(shared) < _MIN_SHARED_WORDS:
        return None
    if not (0 < len(name_a) <= _MAX_NAME_WORDS and 0 < len(name_b) <= _MAX_NAME_WORDS):
        return None
    if not all(word[0].isupper() for word in [*name_a, *name_b]):
        return None
    valued = value_words([*claim_of(first).values, *claim_of(second).values])
    if any(word.lower() in valued for word in [*name_a, *name_b]):
        return None  # "May 1932" and "June 1932" are dates, compared as values
    return " ".join(name_a), " ".join(name_b)


def _names(text: str) -> set[str]:
    """The capitalised words of ``text`` after its first word: the names it mentions."""
    words = _WORDS.findall(text)[1:]
    skip = STOPWORDS | value_words(claim_of(text).values)
    return {word.lower() for word in words if word[0].isupper() and word.lower() not in skip}


def agrees(first: str, second: str, overlap: float = DEFAULT_OVERLAP) -> bool:
    """Whether the two statements are about the same subject and do not disagree (a
    correction agrees with nothing)."""
    if claim_of(first).correction or claim_of(second).correction:
        return False
    return same_subject(first, second, overlap) and disagreement(first, second, overlap) is None


def correction_of(text: str, first: str, second: str, *, nearby: bool = False) -> str | None:
    """Which of two disagreeing statements the correction ``text`` upholds, or None.

    A value after "corrected to", "should read", "in fact"... is upheld; a value named with
    "a misprint", "a mistake", "confused"... is rejected, so the other statement is upheld.
    Returns ``first`` or ``second``; None when ``text`` is no correction, is not on their
    subject (unless ``nearby``: it stands beside one of them, so its "it" is theirs), or names
    both values or neither.
    """
    claim = claim_of(text)
    on_subject = same_subject(text, first, 0.3) or same_subject(text, second, 0.3)
    if not claim.correction or not (nearby or on_subject):
        return None
    upheld = _UPHOLDS.search(text)
    if upheld is not None:
        after = claim_of(text[upheld.end() :]).values
        named = _named(after, first, second)
        if named is not None:
            return named
    named = _named(claim.values, first, second)
    if named is None:
        return None
    return second if named == first else first


def _named(values: tuple[Value, ...], first: str, second: str) -> str | None:
    """The one statement of the two whose disputed value ``values`` mention, or None."""
    differing = _differing(claim_of(first), claim_of(second))
    if differing is None:
        return None
    kind, values_a, values_b = differing

    def mentions(side: list[Value]) -> bool:
        return any(
            v.kind == kind
            and (v.kind not in ("quantity", "count") or v.key == s.key)
            and values_agree(v, s)
            for v in values
            for s in side
        )

    in_a, in_b = mentions(values_a), mentions(values_b)
    if in_a == in_b:
        return None
    return first if in_a else second
