"""What the value readers share: the :class:`Value` record and figures in digits or words.

``number_at(tokens, i)`` reads "40", "1,200", "2.5", "forty-two", "three hundred", "a dozen" or
"three and a half" at token ``i``: its value, how far its rounding may be off, and the tokens
it takes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "SCIENTIFIC",
    "SMALL",
    "TENS",
    "WORD_NUMBERS",
    "Value",
    "and_part",
    "denominator",
    "digits",
    "number_at",
    "spelled",
]

SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
WORD_NUMBERS = {word: float(n) for n, word in enumerate(SMALL)} | {
    word: float(20 + 10 * n) for n, word in enumerate(TENS)
}
_SCALES = {
    "hundred": 100.0,
    "thousand": 1e3,
    "lakh": 1e5,  # the Indian numbering system's 100,000 and 10,000,000
    "lakhs": 1e5,
    "crore": 1e7,
    "crores": 1e7,
    "million": 1e6,
    "billion": 1e9,
    "dozen": 12.0,
}
_DENOMINATORS = {
    "half": 2,
    "halve": 2,
    "third": 3,
    "quarter": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}


@dataclass(frozen=True)
class Value:
    """One value a sentence states.

    ``kind`` is "quantity" (``key`` the dimension, ``number`` in base units), "count" (``key``
    what is counted), "money" (``key`` the currency code), "ordinal" (``key`` what is ranked),
    "date" (``key`` "date", ``number`` the year), "time" or a category ("colour"..., ``key``
    the value word). ``unit`` is how the figure was written; ``precision`` how far its
    rounding may be off, in base units; ``spread`` half the width of a range ("20-30 m"), 0
    for one figure; ``words`` the tokens it was read from; ``around`` the stems of the content
    words beside it in its clause (what it is the value of); ``readings`` the ISO dates a
    numeric date may be read as when its day and month could be swapped (else empty);
    ``clause`` the number of the clause of its sentence it stands in.
    """

    kind: str
    key: str
    number: float = 0.0
    unit: str = ""
    precision: float = 0.0
    label: str = ""
    words: tuple[str, ...] = ()
    around: frozenset[str] = frozenset()
    spread: float = 0.0
    readings: tuple[str, ...] = ()
    clause: int = 0


SCIENTIFIC = r"\d+(?:\.\d+)?\s?[×x]\s?10(?:\^[-−]?\d{1,3}\b|[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})"
"""A figure in scientific notation: "1.2 × 10^4", "3.2 x 10⁵"."""
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻−", "0123456789--")


_LAKH_GROUPS = re.compile(r"\d{1,2}(?:,\d{2})+,\d{3}")
"""Digits grouped the Indian way, by lakh and crore: "1,50,000" is 150,000."""
_APOSTROPHE_GROUPS = re.compile(r"\d{1,3}(?:['’]\d{3})+(?:\.\d+)?")
"""Thousands set off by apostrophes, as in Switzerland: "12'500" is 12,500."""


def digits(token: str) -> tuple[float, float] | None:
    """A digit token's value and rounding precision, or None ("1,2" is not a number); a
    figure in scientific notation ("1.2 × 10^4") as its mantissa's, scaled."""
    if re.fullmatch(SCIENTIFIC, token):
        return _scientific(token)
    if _APOSTROPHE_GROUPS.fullmatch(token):
        token = re.sub("['’]", "", token)
    plain = token.replace(",", "")
    if "," in token and not (
        re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token) or _LAKH_GROUPS.fullmatch(token)
    ):
        return None
    try:
        number = float(plain)
    except ValueError:
        return None
    if "." in plain:
        return number, 0.5 * 10 ** -len(plain.split(".")[1])
    zeros = len(plain) - len(plain.rstrip("0")) if number else 0
    return number, 0.5 * 10**zeros


def _scientific(token: str) -> tuple[float, float] | None:
    """ "1.2 × 10^4" as 12000, to the precision of its mantissa (500)."""
    mantissa, power = re.split(r"\s?[×x]\s?10\^?", token, maxsplit=1)
    read = digits(mantissa)
    if read is None:
        return None
    exponent = int(power.translate(_SUPERSCRIPTS))
    return float(f"{mantissa}e{exponent}"), read[1] * 10.0**exponent


def spelled(tokens: list[str], start: int) -> tuple[float, float, int] | None:
    """A number in words from ``tokens[start]``: its value, precision and token count."""
    total, current, used, smallest = 0.0, 0.0, 0, 1.0
    group = 0.0  # the words' value since the last scale word
    index = start
    while index < len(tokens):
        word = tokens[index].lower()
        parts = word.split("-")
        if all(part in WORD_NUMBERS for part in parts) and len(parts) <= 2:
            value = sum(WORD_NUMBERS[part] for part in parts)
            joined = _joined(group, value, year=not total and current == group)
            if joined is None:
                break
            current += joined - group
            group = joined
            smallest = 1.0 if parts[-1] not in TENS else 10.0
        elif word in _SCALES and (used or word == "dozen"):
            scale = _SCALES[word]
            current, group = (current or 1.0) * scale, 0.0
            smallest = scale
            if scale >= 1000:
                total, current = total + current, 0.0
        elif (
            word == "and"
            and used
            and index + 1 < len(tokens)
            and all(part in WORD_NUMBERS for part in tokens[index + 1].lower().split("-"))
        ):
            index += 1  # taken only with the number after it ("three and four" is two)
            continue
        else:
            break
        index += 1
        used = index - start
    if not used:
        return None
    return total + current, 0.5 * smallest, used


def _joined(group: float, value: float, *, year: bool) -> float | None:
    """``group`` (the words read since the last scale word) followed by the word ``value``:
    "twenty" "one" is 21; "nineteen" "eighty-four" is the year 1984 (when nothing else was
    read); None when the words do not make one number ("nine" "ten")."""
    if not group:
        return value
    if group % 10 == 0 and 20 <= group <= 90 and 0 < value < 10:
        return group + value
    if year and 10 <= group < 100 and 10 <= value < 100:
        return group * 100 + value
    return None


def number_at(tokens: list[str], index: int) -> tuple[float, float, int] | None:
    """The figure at ``tokens[index]`` (digits, with a scale word after them: "1.5 million",
    "1.2k"; words; "a dozen", "a baker's dozen"; a whole number and a fraction: "three and a
    half", "2 and a quarter million"): value, precision, tokens."""
    token = tokens[index]
    if token.lower() in ("a", "an"):
        return _counted_unit(tokens, index)
    if token[0].isdigit():
        read = digits(token)
        whole = None if read is None else (*read, 1)
    else:
        whole = spelled(tokens, index)
    if whole is None:
        return None
    number, precision, used = whole
    part = and_part(tokens, index + used)
    if part is not None:
        number, precision, used = number + part[0], part[1], used + 3
    scale = tokens[index + used].lower() if index + used < len(tokens) else ""
    if scale in _SCALES and scale != "dozen" and (token[0].isdigit() or part is not None):
        return number * _SCALES[scale], precision * _SCALES[scale], used + 1
    if tokens[index + used : index + used + 1] == ["k"] and token[0].isdigit():
        return number * 1e3, precision * 1e3, used + 1  # "1.2k homes": thousands
    return number, precision, used


def _counted_unit(tokens: list[str], index: int) -> tuple[float, float, int] | None:
    """The figure "a" or "an" at ``index`` opens: "a dozen", "a hundred", "a baker's dozen"
    (13), or None."""
    following = [token.lower() for token in tokens[index + 1 : index + 4]]
    if following[:1] and following[0] in ("dozen", "hundred", "thousand", "million"):
        return _SCALES[following[0]], 0.5 * _SCALES[following[0]], 2
    if following == ["baker", "s", "dozen"]:
        return 13.0, 0.5, 4
    return None


def and_part(tokens: list[str], at: int) -> tuple[float, float] | None:
    """A fraction added to a whole at ``at`` ("and a half", "and three quarters"): its value
    and the precision it is written to (half its step), or None."""
    words = [token.lower() for token in tokens[at : at + 3]]
    if len(words) < 3 or words[0] != "and":
        return None
    top = 1.0 if words[1] in ("a", "an", "one") else WORD_NUMBERS.get(words[1], 0.0)
    under = denominator(words[2])
    if not under or not 0 < top < under:
        return None
    return top / under, 0.5 / under


def denominator(word: str) -> int | None:
    """The denominator a fraction word names ("third", "quarters": 3, 4), or None."""
    return _DENOMINATORS.get(word) or _DENOMINATORS.get(word.removesuffix("s"))
