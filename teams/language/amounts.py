"""Readers of values that take more than a figure and a unit: money, fractions, ordinals.

Each reader takes the tokens of a sentence and an index, and returns the value read there
with the number of tokens it takes, or None.

- money (:func:`money_at`): "$40", "US$40", "USD 40", "40 USD", "40 dollars", "€12",
  "12 euros", "£25", "GBP 25", "25 pounds" (only in a sentence about a price: else pounds are
  a mass), "120p" and "120 pence" (as pounds, in a sentence about a price), "$2.5 million",
  "$3bn". Amounts in one currency are compared; two currencies
  never agree (no exchange rates are assumed).
- fractions (:func:`share_at`): "two thirds of", "a quarter of", "half of", "one in five",
  "three out of four", "3/4 of", "¾ of": a share in per cent, within a point (so "two thirds"
  agrees with "66%" and "67%", not with "60%").
- ordinals (:func:`ordinal_at`): "3rd", "third", "twenty-first", keyed by what they rank
  ("the 3rd church", "finished fifth").

Example:
    >>> from teams.language.values import values_in
    >>> [v.label for v in values_in("A ticket costs $40, two thirds of the fare.")]
    ['USD 40', 'two thirds']
"""

from __future__ import annotations

import re

from teams.language._numbers import TENS, WORD_NUMBERS, Value, denominator, number_at
from teams.language.words import STOPWORDS, singular

__all__ = ["denominator", "money_at", "ordinal_at", "share_at", "word_ordinal"]

_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
_DOLLAR_PREFIXES = {"US": "USD", "AU": "AUD", "CA": "CAD", "NZ": "NZD", "HK": "HKD"}
"""Written before a dollar sign ("US$40"); one letter ("A$", "C$") is too often "a"."""
_CODES = frozenset("USD EUR GBP JPY CHF CAD AUD NZD CNY INR SEK NOK DKK HKD SGD ZAR".split())
_CURRENCY_WORDS = {
    "dollar": "USD",
    "euro": "EUR",
    "pound": "GBP",
    "yen": "JPY",
    "franc": "CHF",
    "rupee": "INR",
    "yuan": "CNY",
}
_NATIONS = {"us": "USD", "american": "USD", "canadian": "CAD", "australian": "AUD", "swiss": "CHF"}
_MONEY_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6}
_MONEY_SCALES |= {"billion": 1e9, "bn": 1e9}
_PRICE_WORDS = frozenset(
    """cost costs costing price prices priced fee fees fare fares pay pays paid charge charges
    charged worth sold sell sells buy bought rent rents spend spent ticket tickets toll tolls
    budget salary wage wages earn earns earned donated raised fund funded fine fined bill
    sterling""".split()
)


def money_at(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """An amount of money at ``index`` (a sign or code before it, or a currency after it)."""
    token = tokens[index]
    if token in _SYMBOLS:
        before = tokens[index - 1] if index else ""
        code = _DOLLAR_PREFIXES.get(before, "USD") if token == "$" else _SYMBOLS[token]
        return _amount(tokens, index, index + 1, code)
    if token in _CODES:
        return _amount(tokens, index, index + 1, token)
    read = number_at(tokens, index)
    if read is None:
        return None
    end, number, precision = _scaled(tokens, index + read[2], read[0], read[1])
    currency = _currency_after(tokens, end)
    if currency is None:
        return _pence(tokens, index, end, number)
    code, used = currency
    return _money(tokens[index : end + used], code, number, precision), end + used - index


_PENCE = frozenset(("p", "pence", "penny"))


def _pence(tokens: list[str], index: int, end: int, number: float) -> tuple[Value, int] | None:
    """An amount in pence ("120p", "120 pence") in a sentence about a price, as pounds."""
    if end >= len(tokens) or tokens[end].lower() not in _PENCE or not _about_price(tokens):
        return None
    return _money(tokens[index : end + 1], "GBP", number / 100, 0.0), end + 1 - index


def _amount(tokens: list[str], start: int, at: int, code: str) -> tuple[Value, int] | None:
    """The amount after a sign or code at ``start`` (the figure at ``at``)."""
    if at >= len(tokens):
        return None
    read = number_at(tokens, at)
    if read is None:
        return None
    end, number, precision = _scaled(tokens, at + read[2], read[0], read[1])
    return _money(tokens[start:end], code, number, precision), end - start


def _scaled(
    tokens: list[str], at: int, number: float, precision: float
) -> tuple[int, float, float]:
    """The figure times a scale word after it ("2.5 million", "3bn"): where it ends, the
    amount, and its precision (0 for a plain amount: prices are exact)."""
    word = tokens[at].lower() if at < len(tokens) else ""
    if word in _MONEY_SCALES:
        scale = _MONEY_SCALES[word]
        return at + 1, number * scale, precision * scale
    return at, number, 0.0


def _currency_after(tokens: list[str], at: int) -> tuple[str, int] | None:
    """The currency named at ``at`` ("USD", "dollars", "US dollars") and its token count."""
    if at >= len(tokens):
        return None
    if tokens[at] in _CODES:
        return tokens[at], 1
    word = tokens[at].lower()
    nation = _NATIONS.get(word)
    following = tokens[at + 1].lower() if at + 1 < len(tokens) else ""
    if nation is not None and _currency_word(following):
        return nation, 2
    code = _currency_word(word)
    if code is None or (code == "GBP" and not _about_price(tokens)):
        return None
    return code, 2 if following == "sterling" else 1


def _currency_word(word: str) -> str | None:
    return _CURRENCY_WORDS.get(word) or _CURRENCY_WORDS.get(word.removesuffix("s"))


def _about_price(tokens: list[str]) -> bool:
    return any(t.lower() in _PRICE_WORDS or t in ("£", "GBP") for t in tokens)


def _money(written: list[str], code: str, number: float, precision: float) -> Value:
    label = f"{code} {number:,.2f}".removesuffix(".00")
    words = tuple(t.lower() for t in written)
    return Value("money", code, number, unit=code, precision=precision, label=label, words=words)


_GLYPHS = {"½": 0.5, "¼": 0.25, "¾": 0.75, "⅓": 1 / 3, "⅔": 2 / 3}
_APPROXIMATE = frozenset("about around approximately roughly nearly almost some circa".split())
_SHARE_POINT = 1.0
"""How far a fraction in words may be from a percentage and agree (percentage points)."""


def share_at(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """A fraction at ``index`` read as a share in per cent, and the tokens it takes."""
    read = _fraction(tokens, index)
    if read is None:
        return None
    fraction, used = read
    approximate = index and tokens[index - 1].lower() in _APPROXIMATE
    words = tuple(t.lower() for t in tokens[index : index + used])
    return (
        Value(
            "quantity",
            "share",
            100.0 * fraction,
            unit="fraction",
            precision=_SHARE_POINT * (2 if approximate else 1),
            label=" ".join(words),
            words=words,
        ),
        used,
    )


def _fraction(tokens: list[str], index: int) -> tuple[float, int] | None:
    """The fraction at ``index`` and its token count: "two thirds of", "half the", "one in
    five", "3 out of 4", "3/4 of", "¾ of"."""
    token = tokens[index].lower()
    after = tokens[index + 1].lower() if index + 1 < len(tokens) else ""
    if token in _GLYPHS or re.fullmatch(r"\d{1,2}/\d{1,3}", token):
        if after != "of":
            return None
        over, _, under = token.partition("/")
        return (_GLYPHS[token] if token in _GLYPHS else int(over) / int(under)), 1
    if token == "half":
        return (0.5, 1) if after in ("of", "the") else None
    parts = token.split("-")
    if len(parts) == 2:
        below = denominator(parts[1])
        top = WORD_NUMBERS.get(parts[0])
        if below and top and after == "of":
            return top / below, 1
    return _numbered_fraction(tokens, index)


def _numbered_fraction(tokens: list[str], index: int) -> tuple[float, int] | None:
    """ "a third of", "two thirds of", "one in five", "three out of four"."""
    token = tokens[index].lower()
    top = 1.0 if token in ("a", "an", "one") else WORD_NUMBERS.get(token)
    if top is None and token.isdigit() and len(token) <= 2:
        top = float(token)
    rest = [t.lower() for t in tokens[index + 1 : index + 4]]
    if top is None or not rest:
        return None
    under = denominator(rest[0])
    if under and len(rest) > 1 and rest[1] == "of":
        return top / under, 2
    link = 2 if rest[:2] == ["out", "of"] else 1 if rest[0] == "in" else 0
    if not link or token in ("a", "an") or index + 1 + link >= len(tokens):
        return None
    below = number_at(tokens, index + 1 + link)
    if below is None or not top < below[0] <= 100:
        return None
    return top / below[0], 1 + link + below[2]


_ORDINAL_UNITS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth"
).split()
_ORDINALS = {word: n + 1 for n, word in enumerate(_ORDINAL_UNITS)} | {
    tens.removesuffix("y") + "ieth": 20 + 10 * n for n, tens in enumerate(TENS)
}
_ORDINALS["hundredth"] = 100
_ORDINAL_LEAD = frozenset(
    """the its their his her our finished came placed ranked ranks rank ranking finishing
    placing coming comes finishes is was are were""".split()
)
_DIGIT_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)", re.IGNORECASE)
_NOT_RANKED = STOPWORDS | {"place", "and", "but", "or"}


def ordinal_at(tokens: list[str], index: int) -> tuple[Value, int] | None:
    """An ordinal at ``index`` ("3rd" anywhere; "third" after "the", "its", "finished"...),
    keyed by the noun after it (none for "finished third", "third place")."""
    token = tokens[index]
    matched = _DIGIT_ORDINAL.fullmatch(token)
    if matched is not None:
        rank = int(matched.group(1))
    else:
        before = tokens[index - 1].lower() if index else ""
        word = word_ordinal(token.lower())
        if word is None or before not in _ORDINAL_LEAD:
            return None
        rank = word
    noun = tokens[index + 1].lower() if index + 1 < len(tokens) else ""
    key = singular(noun) if noun.isalpha() and noun not in _NOT_RANKED else ""
    label = f"{token} {key}".strip()
    return Value("ordinal", key, float(rank), label=label, words=(token.lower(),)), 1


def word_ordinal(word: str) -> int | None:
    """An ordinal in words as its rank ("third": 3, "twenty-first": 21), or None."""
    if word in _ORDINALS:
        return _ORDINALS[word]
    tens, _, unit = word.partition("-")
    if tens in WORD_NUMBERS and WORD_NUMBERS[tens] >= 20 and unit in _ORDINALS:
        return int(WORD_NUMBERS[tens]) + _ORDINALS[unit]
    return None
