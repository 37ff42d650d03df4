"""Two statements in one frame: what differs between them when the rest is the same.

"The bridge was designed by Ada Marsh." and "... by John Rennie." put two names in one place;
"The pier is built of teak." and "... of larch." two words: whatever those words are (a wood,
a colour, a fuel, a finish the readers have no list for), they fill the same attribute of the
same subject, so they are two values of it.

Example:
    >>> differing_words("The roof of the barn is thatched.", "The roof of the barn is tiled.")
    ('thatched', 'tiled')
"""

from __future__ import annotations

import re

from teams.language._numbers import Value
from teams.language._polarity import NEGATION, normal_word
from teams.language.values import value_words, values_agree, values_in
from teams.language.words import STOPWORDS, keywords, stem

__all__ = ["differing_figures", "differing_names", "differing_words", "names_in"]

_WORDS = re.compile(r"[A-Za-z][\w'-]*|\d[\d,.:]*")
_MAX_NAME_WORDS = 4
_MAX_SLOT_WORDS = 2
_MIN_SHARED_WORDS = 2
_VALUE_PLACES = frozenset("in on at of from with by as into for during to under over near".split())
"""Words that may start what follows a value ("painted teal on the outside")."""


def _frame(first: str, second: str) -> tuple[list[str], list[str], list[str], list[str]] | None:
    """The words before and after the part that differs, and each side's differing words."""
    a, b = _WORDS.findall(first), _WORDS.findall(second)
    lower_a, lower_b = [w.lower() for w in a], [w.lower() for w in b]
    start = 0
    while start < min(len(a), len(b)) and lower_a[start] == lower_b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and lower_a[-1 - end] == lower_b[-1 - end]:
        end += 1
    if not start:
        return None
    return a[:start], a[len(a) - end :], a[start : len(a) - end], b[start : len(b) - end]


def differing_names(first: str, second: str) -> tuple[str, str] | None:
    """The names two statements put in the same place, when that is all that differs.

    "The bridge was designed by Ada Marsh." and "The bridge was designed by John Rennie." give
    ``("Ada Marsh", "John Rennie")``: the words before and after are the same, and what differs
    is a capitalised name (not the first word) on each side. A name that is part of the other
    ("Rennie", "John Rennie") is no difference.
    """
    frame = _frame(first, second)
    if frame is None:
        return None
    before, after, name_a, name_b = frame
    if len(keywords(" ".join([*before, *after]))) < _MIN_SHARED_WORDS:
        return None
    if not (0 < len(name_a) <= _MAX_NAME_WORDS and 0 < len(name_b) <= _MAX_NAME_WORDS):
        return None
    if not all(word[0].isupper() for word in [*name_a, *name_b]):
        return None
    valued = value_words([*values_in(first), *values_in(second)])
    if any(word.lower() in valued for word in [*name_a, *name_b]):
        return None  # "May 1932" and "June 1932" are dates, compared as values
    return " ".join(name_a), " ".join(name_b)


def differing_words(first: str, second: str) -> tuple[str, str] | None:
    """The lower-case words two statements put in the place of a value, when that is all that
    differs: one or two words on each side, after the same words naming the subject (what
    comes before those may differ: "Records show the engine ..."), at the end of the
    statement or before a place or time ("in winter"), neither a negation, a figure, nor the
    same word in other forms ("shut" and "closed")."""
    a, b = _WORDS.findall(first), _WORDS.findall(second)
    end = _common_tail([w.lower() for w in a], [w.lower() for w in b])
    after = a[len(a) - end :]
    if after and after[0].lower() == "by":
        return None  # "designed by X" and "built by X": the verbs differ, not a value
    for size_a, size_b in ((1, 1), (1, 2), (2, 1), (2, 2)):
        if not _value_place(a, len(a) - end - size_a, after):
            continue
        slot_a, slot_b = (
            a[len(a) - end - size_a : len(a) - end],
            b[len(b) - end - size_b : len(b) - end],
        )
        head_a, head_b = a[: len(a) - end - size_a], b[: len(b) - end - size_b]
        run = _common_tail([w.lower() for w in head_a], [w.lower() for w in head_b])
        if len(keywords(" ".join(head_a[len(head_a) - run :]))) < _MIN_SHARED_WORDS:
            continue
        if _is_slot(slot_a, slot_b):
            return " ".join(slot_a), " ".join(slot_b)
    return None


def differing_figures(first: str, second: str) -> tuple[str, str] | None:
    """The figures two statements put in one place when the readers cannot tell them equal:
    "costs $40" and "costs 40 zł" (a currency they do not know), "is 40" and "is 40 m"; None
    when the place holds no figure on either side or its values agree (alone, or each with
    one of the other sentence's: "costs £1.20" and "costs 120p")."""
    a = [w.rstrip(".,:") for w in _WORDS.findall(first)]
    b = [w.rstrip(".,:") for w in _WORDS.findall(second)]
    lower_a, lower_b = [w.lower() for w in a], [w.lower() for w in b]
    end = _common_tail(lower_a, lower_b)
    while end and _figure(a[len(a) - end]):
        end -= 1
    start = 0
    while start < min(len(a), len(b)) - end and lower_a[start] == lower_b[start]:
        start += 1
    while start and _figure(a[start - 1]):
        start -= 1
    if len(keywords(" ".join([*a[:start], *a[len(a) - end :]]))) < _MIN_SHARED_WORDS:
        return None
    slot_a, slot_b = " ".join(a[start : len(a) - end]), " ".join(b[start : len(b) - end])
    if not (_figure(slot_a) and _figure(slot_b)):
        return None
    if len(slot_a.split()) > _MAX_FIGURE_WORDS or len(slot_b.split()) > _MAX_FIGURE_WORDS:
        return None
    read_a, read_b = values_in(_slot_text(first, slot_a)), values_in(_slot_text(second, slot_b))
    if _agreeing(read_a, read_b) or (
        _agreeing(whole_a := values_in(first), whole_b := values_in(second))
        and _agreeing(whole_b, whole_a)
    ):
        return None
    return slot_a, slot_b


def _agreeing(read_a: list[Value], read_b: list[Value]) -> bool:
    """Whether both sides read values and each of ``read_a`` agrees with one of ``read_b``
    (read in the slot alone, or in the whole sentences, which say "120p" is a price)."""
    return bool(read_a and read_b) and all(
        any(x.kind == y.kind and x.key == y.key and values_agree(x, y) for y in read_b)
        for x in read_a
    )


def _figure(text: str) -> bool:
    return any(c.isdigit() for c in text)


_MAX_FIGURE_WORDS = 3


def _slot_text(text: str, slot: str) -> str:
    """The slot as written in ``text`` (with its signs: "$40", "€12"), else the slot."""
    found = re.search(r"[^\s\w]*" + r"\W+".join(map(re.escape, slot.split())) + r"\S*", text)
    return found.group() if found else slot


def _value_place(words: list[str], start: int, after: list[str]) -> bool:
    """Whether words from ``start`` on can be a value: at the end, before a place or time
    ("teal in winter"), or after a determiner and before the noun it fills ("a slate roof")."""
    if not after or after[0].lower() in _VALUE_PLACES:
        return True
    return start > 0 and words[start - 1].lower() in _DETERMINERS


_DETERMINERS = frozenset("a an the its their his her our".split())


def _common_tail(a: list[str], b: list[str]) -> int:
    """How many words ``a`` and ``b`` share at their ends."""
    end = 0
    while end < min(len(a), len(b)) and a[-1 - end] == b[-1 - end]:
        end += 1
    return end


def _is_slot(slot_a: list[str], slot_b: list[str]) -> bool:
    """Whether two word groups are two values of one place: lower-case content words, no
    negation, nothing in common (once "shut" reads as "not open")."""
    words = [*slot_a, *slot_b]
    if not slot_a or not slot_b:
        return False
    if any(not w.isalpha() or w[0].isupper() or w.lower() in STOPWORDS for w in words):
        return False
    if NEGATION.search(" ".join(words)):
        return False
    stems_a = {stem(normal_word(w.lower())) for w in slot_a}
    return not stems_a & {stem(normal_word(w.lower())) for w in slot_b}


def names_in(text: str) -> set[str]:
    """The capitalised words of ``text`` after its first word: the names it mentions."""
    words = _WORDS.findall(text)[1:]
    skip = STOPWORDS | value_words(values_in(text))
    return {word.lower() for word in words if word[0].isupper() and word.lower() not in skip}
