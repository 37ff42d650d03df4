"""An offline test of whether two statements are about the same thing and whether they disagree.

Shared by the MetaCoordinator's risk assessment and the hypothesis team's judge, resolver and
final check. A statement is read as a :class:`Claim`: what it is about (its content words, less
the words of its values), the values it states (:mod:`teams.language.values`: figures in words
or digits with units, money, fractions, ordinals, dates, colours, materials, fuels), the values
it rejects in passing ("31 m, not 37 m as the guide says") and whether it is negated ("shut"
reads as "not open"). Two claims are about the same thing when they share most of their
content words; they disagree when, about the same thing, they give values of the same kind
that differ, put other words in the place of a value ("built of teak", "built of larch") or
figures the readers cannot compare ("$40", "40 zł"), one rejects the other's value, or one
negates what the other states. The same value in other
words ("30" and "thirty", "3 km" and "3000 metres", "shut" and "not open") is agreement.
Sentences that share a name but carry extra clauses are compared value by value, each value by
the words beside it ("carries the canal 38 metres above the valley").

A sentence that reports a value as wrong ("a misprint", "confused it with", "was corrected
to"), or another text changed with no value of its own ("is amended as follows"), is a
correction, not a claim: :func:`correction_of` reads which value it rejects.

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
from dataclasses import dataclass, replace
from functools import lru_cache

from teams.language._polarity import (
    NEGATION,
    OPPOSITES,
    REJECTS,
    REPLACES,
    UPDATE_OPENING,
    UPHOLDS,
    WRONG_CLAUSE,
    normal_word,
    split_contrast,
    split_errata,
)
from teams.language.frames import differing_figures, differing_names, differing_words, names_in
from teams.language.standing import retires_itself
from teams.language.values import Value, value_words, values_agree, values_in
from teams.language.words import keywords, stem

__all__ = [
    "DEFAULT_OVERLAP",
    "Claim",
    "agrees",
    "claim_of",
    "correction_of",
    "differing_names",
    "disagreement",
    "notice_of_error",
    "rejects",
    "same_subject",
    "stated_otherwise",
    "without_rejected",
]

DEFAULT_OVERLAP = 0.6
"""Share of the shorter statement's content words the other must contain to be on its subject."""
_NAMED_OVERLAP = 0.3
"""The share enough for two statements that name the same thing (compared value by value)."""


_NO_SUBJECT = frozenset(
    "today now nowadays currently presently still stand stands exist exists remain remains "
    "survive survives".split()
)
"""Words of a statement that say when or that a thing is, not what it is about ("Twelve
windmills stand in Brayford today": windmills in Brayford)."""


@dataclass(frozen=True)
class Claim:
    """What a statement is about, the values it states and rejects, and whether it is negated."""

    text: str
    about: frozenset[str]
    values: tuple[Value, ...]
    negated: bool
    correction: bool
    rejected: tuple[Value, ...] = ()
    denials: int = 0
    """How many negations ("not", "never") it holds."""
    flipped: tuple[str, ...] = ()
    """What its words that state another's negation deny ("shut" denies "open")."""
    corrects: bool = False
    """A correction that states the right value and names no wrong one ("Page 14 should
    read: ... 62 metres"): a claim, and one that upholds itself against another value."""


@lru_cache(maxsize=4096)
def claim_of(text: str) -> Claim:
    """``text`` read as a claim (a contrasted clause's values are rejected, not stated; so are
    an errata line's printed ones, "for 41 arches read 31 arches")."""
    kept, contrasted = _errata(text) or _reported_error(text) or split_contrast(text)
    rejected = tuple(values_in(contrasted)) if contrasted else ()
    if not rejected:
        kept = text
    values = tuple(values_in(kept))
    skip = value_words(values)
    about: set[str] = set()
    flipped: list[str] = []
    for word in keywords(kept):
        if word in skip or word.isdigit() or NEGATION.fullmatch(word) or word in _NO_SUBJECT:
            continue
        if word in OPPOSITES:
            flipped.append(stem(OPPOSITES[word]))
        about.add(stem(normal_word(word)))
    denials = len(NEGATION.findall(kept))
    negated = (denials + len(flipped)) % 2 == 1
    replaces = bool(values) and REPLACES.search(kept) is not None
    replaces = replaces and all(_reference(kept, v) for v in values)  # "Bylaw 12 is amended"
    corrects = _states_its_correction(kept, values)
    reports = REJECTS.search(kept) or UPHOLDS.search(kept) or retires_itself(kept)
    correction = not corrects and bool(reports or replaces)
    rejected = tuple(_elliptic(value, values) for value in rejected)
    return Claim(
        text,
        frozenset(about),
        values,
        negated,
        correction,
        rejected,
        denials,
        tuple(flipped),
        corrects,
    )


def _reported_error(text: str) -> tuple[str, str] | None:
    """``text`` without the one clause that reports a value of another as an error ("48 metres;
    the county guide is wrong to give 52 metres"), and that clause, when the rest states a value
    of the same kind; None otherwise."""
    clauses = _CLAUSES.split(text)
    wrong = [clause for clause in clauses if REJECTS.search(clause) and values_in(clause)]
    if len(clauses) < 2 or len(wrong) != 1 or UPHOLDS.search(text):
        return None  # none, or a correction that says what it upholds ("should read")
    kept = "; ".join(clause for clause in clauses if clause is not wrong[0])
    stated = {(value.kind, value.key) for value in values_in(kept)}
    return (kept, wrong[0]) if stated & {(v.kind, v.key) for v in values_in(wrong[0])} else None


_CLAUSES = re.compile(r";|,\s*(?=(?:but|while|whereas|although)\b)|(?<=[.!?])\s+")
"""Where one clause of a sentence (or one sentence) ends and the next begins."""


def without_rejected(text: str) -> str:
    """``text`` with the value it rejects cut out and marked by an ellipsis ("for 41 arches
    read 31 arches": "… 31 arches"; "changed from 300 seats to 360 seats": "changed … to 360
    seats"), or, rejected at its end ("is 33 metres long, not 330."), cut out, as it is stated
    as a finding; ``text`` when it rejects none."""
    errata = _errata(text, gap="… ")
    return errata[0] if errata else _REJECTED_AT_END.sub("", text)


_REJECTED_AT_END = re.compile(
    r",\s+not\s+[£$€¥]?\s?\d[\d,]*(?:\.\d+)?(?:\s+[^\W\d]+)?(?=[.!?]?\s*$)"
)
"""A figure rejected at a statement's end: ", not 330" of "... is 33 metres long, not 330.",
", not £85" of "... the price is now £64, not £85."."""


def _errata(text: str, gap: str = "") -> tuple[str, str] | None:
    """``text`` without an errata's "for X read" (or a change's "from X"; put as ``gap``), and
    X, when X and Y are values of one kind ("for 1887 read 1878"); None otherwise ("for details
    read the FAQ")."""
    errata = split_errata(text, gap)
    if errata is None:
        return None
    kept, wrong, right = errata
    printed = {(value.kind, value.key) for value in values_in(wrong)}
    return (kept, wrong) if printed & {(v.kind, v.key) for v in values_in(right)} else None


_CORRECTED = re.compile(
    rf"\b(?:should read|corrected to|amended to)\b|{UPDATE_OPENING}|{WRONG_CLAUSE}",
    re.IGNORECASE,
)
"""What a correction that states its right value says before it: "Page 14 should read:",
"Update, June 2023: after the rebuild, ...", "The span given in the survey is wrong: ..."."""


def _states_its_correction(text: str, values: tuple[Value, ...]) -> bool:
    """Whether ``text`` is a correction that states the right value and names no wrong one
    ("Page 14 should read: the bridge has a span of 62 metres."): every value before its
    "should read" names a text, and a value follows it."""
    upheld = _CORRECTED.search(text)
    if upheld is None or REJECTS.search(text[: upheld.start()] + text[upheld.end() :]):
        return False
    before = text[: upheld.start()]
    after = values_in(text[upheld.end() :])
    named_before = [v for v in values if any(word in before for word in v.words)]
    return bool(after) and all(_reference(before, v) for v in named_before)


def _elliptic(value: Value, stated: tuple[Value, ...]) -> Value:
    """A figure rejected beside a stated one takes its unit ("45 cars rather than the 60")."""
    if value.kind != "count" or any(o.kind == "count" and o.key == value.key for o in stated):
        return value
    for other in stated:
        if other.kind in ("quantity", "money") and other.unit:
            figure = " ".join(value.words)
            text = f"{other.unit} {figure}" if other.kind == "money" else f"{figure} {other.unit}"
            return next(iter(values_in(text)), value)
        if other.kind == "count" and other.key:
            return Value("count", other.key, value.number, label=value.label, words=value.words)
    return value


def same_subject(first: str, second: str, overlap: float = DEFAULT_OVERLAP) -> bool:
    """Whether the two statements share at least ``overlap`` of the shorter one's content words."""
    words_a, words_b = claim_of(first).about, claim_of(second).about
    if not words_a or not words_b:
        return False
    return len(words_a & words_b) / min(len(words_a), len(words_b)) >= overlap


_KEYED = ("quantity", "count", "date", "time", "ordinal")


_REFERENCE = (
    r"\b(?i:page|p|pp|volume|vol|issue|section|chapter|part|article|clause|item|rule|no|number|"
    r"edition|bylaw|by-law|order|amendment|regulation|schedule|appendix|annex|table|figure|"
    r"footnote|note)\.?\s+"
)
"""What a number that names a text comes after: "Bylaw 12", "volume 9", "page 14"."""


def _reference(text: str, value: Value) -> bool:
    """Whether ``value`` names a text in ``text`` ("Bylaw 12", "volume 9"), not a value."""
    return value.kind == "count" and all(
        re.search(_REFERENCE + re.escape(word) + r"\b", text) for word in value.words
    )


def _groups(values: tuple[Value, ...]) -> dict[tuple[str, str], list[Value]]:
    grouped: dict[tuple[str, str], list[Value]] = {}
    for value in values:
        key = value.key if value.kind in _KEYED else ""
        grouped.setdefault((value.kind, key), []).append(value)
    return grouped


def _differing(
    first: Claim, second: Claim, *, beside: bool = False
) -> tuple[str, list[Value], list[Value]] | None:
    """The first kind of value both claims state with no value in common, and those values;
    dates last (two statements made at different times, "As of 2018, ..." and "From 2022,
    ...", differ in what else they state before their dates).

    Values are compared pairwise when the words beside them share a stem (``beside``), or,
    without ``beside``, when either side states one value of the kind or has no such words.
    """
    groups_b = _groups(_counted_alike(second, first.values))
    groups_a = sorted(
        _groups(_counted_alike(first, second.values)).items(),
        key=lambda group: group[0][0] == "date",
    )
    for key, values_a in groups_a:
        values_b = groups_b.get(key)
        if not values_b:
            continue
        single = len(values_a) == 1 and len(values_b) == 1 and not beside
        pairs = [
            (a, b)
            for a in values_a
            for b in values_b
            if single or a.around & b.around or (not beside and not (a.around and b.around))
        ]
        if pairs and not any(values_agree(a, b) for a, b in pairs):
            return key[0], values_a, values_b
    return None


def _counted_alike(claim: Claim, others: tuple[Value, ...]) -> tuple[Value, ...]:
    """The claim's values with a count of one thing read as a count of what ``others`` count,
    when a verb of that thing stands right before it ("seats 260 people" against "320 seats":
    one number of seats; not "Platform 3, for ...": no thing counted); other values as they
    are."""
    keys = {value.key for value in others if value.kind == "count" and value.key}
    out = []
    for value in claim.values:
        verbs = (
            {key for key in keys if _verb_before(claim.text, stem(key), value)}
            if value.kind == "count" and value.key and value.key not in keys and value.words
            else set()
        )
        out.append(replace(value, key=verbs.pop()) if len(verbs) == 1 else value)
    return tuple(out)


def _verb_before(text: str, verb: str, value: Value) -> bool:
    """Whether a word of the stem ``verb`` stands right before ``value`` in ``text``."""
    figure = re.escape(value.words[0])
    return re.search(rf"\b{re.escape(verb)}\w*\s+{figure}\b", text, re.IGNORECASE) is not None


_KIND_NAMES = {
    "quantity": "figures",
    "count": "numbers",
    "date": "dates",
    "time": "times",
    "money": "amounts",
}


def disagreement(first: str, second: str, overlap: float = DEFAULT_OVERLAP) -> str | None:
    """Why the two statements disagree about the same subject, or ``None`` when they do not.

    A statement that adds a value the other lacks (a detail) does not disagree with it; a
    correction (:func:`correction_of`) is not a claim and disagrees with nothing. Two
    statements that share a name but too few other words are compared value by value.
    """
    a, b = claim_of(first), claim_of(second)
    if a.correction or b.correction:
        return None
    names = differing_names(first, second)
    if names is not None:
        return f"different names ({names[0]}, {names[1]})"
    if not same_subject(first, second, overlap):
        return _beside_names(a, b) if same_subject(first, second, _NAMED_OVERLAP) else None
    return _values_differ(a, b)


def _described(differing: tuple[str, list[Value], list[Value]]) -> str:
    kind, values_a, values_b = differing
    labels = ", ".join(dict.fromkeys(v.label for v in [*values_a, *values_b]))
    return f"different {_KIND_NAMES.get(kind, kind + 's')} ({labels})"


def _values_differ(a: Claim, b: Claim) -> str | None:
    """How two claims on one subject differ: other names, values, rejected values, polarity,
    other words or figures in the place of a value; None if they do not."""
    for reason in (_other_names, _other_values, _refusal, _polarity, _other_words):
        why = reason(a, b)
        if why is not None:
            return why
    return None


def _other_names(a: Claim, b: Claim) -> str | None:
    names_a, names_b = names_in(a.text) - names_in(b.text), names_in(b.text) - names_in(a.text)
    if names_a and names_b:
        return f"different names ({', '.join(sorted(names_a))}; {', '.join(sorted(names_b))})"
    return None


def _other_values(a: Claim, b: Claim) -> str | None:
    differing = _differing(*_at_one_time(a, b))
    return None if differing is None else _described(differing)


def _at_one_time(a: Claim, b: Claim) -> tuple[Claim, Claim]:
    """The two claims compared at one time: a claim giving values at several dates in clauses
    of their own ("300 members in 2012; by 2020, 400 members") is read, against a claim of one
    date, in the clause of that date alone (:func:`_read_at`)."""
    at_b = _read_at(a, b)
    if at_b is not None:
        return at_b, b
    at_a = _read_at(b, a)
    return (a, at_a) if at_a is not None else (a, b)


def _read_at(series: Claim, other: Claim) -> Claim | None:
    """``series`` with only the values of the one clause stating ``other``'s date, when its
    dates stand in several clauses, ``other`` states one date, and that clause states a value
    of a kind ``other`` states beside its date; else None."""
    dates = [value for value in series.values if value.kind == "date"]
    theirs = [value for value in other.values if value.kind == "date"]
    if len(theirs) != 1 or len({date.clause for date in dates}) < 2:
        return None
    clauses = {date.clause for date in dates if values_agree(date, theirs[0])}
    if len(clauses) != 1:
        return None
    kept = tuple(value for value in series.values if value.clause in clauses)
    stated = set(_groups(tuple(v for v in other.values if v.kind != "date")))
    if not stated & set(_groups(kept)):
        return None
    return replace(series, values=kept)


def _refusal(a: Claim, b: Claim) -> str | None:
    for one, other in ((a, b), (b, a)):
        refused = _refused(one, other)
        if refused is not None:
            return f"one rejects the other's value ({refused.label})"
    return None


def _polarity(a: Claim, b: Claim) -> str | None:
    """One negates what the other states: negations, and words denying a word both share
    ("shut" against "open"; "disabled" counts only where "enabled" is said of both). A question
    states nothing, so it negates nothing ("Is the pier really 600 metres long? *No replies
    yet.*")."""
    if any(_ASKED.search(claim.text) for claim in (a, b)):
        return None
    shared = a.about & b.about

    def negated(claim: Claim) -> bool:
        return (claim.denials + sum(word in shared for word in claim.flipped)) % 2 == 1

    return _NEGATES if negated(a) != negated(b) else None


_ASKED = re.compile(r"\?(?:[\s*_)\]\"'”]|$)")
"""A question mark that ends a question."""
_NEGATES = "one negates what the other states"
_NEGATION_OVERLAP = 0.8
"""The share of words a negation needs to count between statements far apart in meaning."""


def stated_otherwise(statement: str, text: str) -> str | None:
    """Why ``text`` states otherwise than ``statement`` when nothing says the two are close in
    meaning (evidence found for another query): another value of the same attribute, or a
    rejection of its value (:func:`rejects`); a negation only between statements sharing most
    of their words."""
    why = disagreement(statement, text)
    if why == _NEGATES and not same_subject(statement, text, _NEGATION_OVERLAP):
        return None
    if why is None and rejects(text, statement):
        return "it rejects the value"
    return why


def _other_words(a: Claim, b: Claim) -> str | None:
    words = differing_words(a.text, b.text)
    if words is not None:
        return f"different values ({words[0]}; {words[1]})"
    figures = differing_figures(a.text, b.text)
    if figures is not None:
        return f"values that cannot be compared ({figures[0]}; {figures[1]})"
    return None


def _beside_names(a: Claim, b: Claim) -> str | None:
    """Values that differ, each beside the same words, in statements sharing a name."""
    if not names_in(a.text) & names_in(b.text):
        return None
    differing = _differing(a, b, beside=True)
    return None if differing is None else _described(differing)


def _refused(one: Claim, other: Claim) -> Value | None:
    """A value ``other`` states that ``one`` rejects in passing, or None."""
    for value in other.values:
        for rejected in one.rejected:
            same_kind = value.kind == rejected.kind and (
                value.kind not in _KEYED or value.key == rejected.key
            )
            if same_kind and values_agree(value, rejected):
                return value
    return None


def rejects(text: str, statement: str) -> bool:
    """Whether ``text`` rejects a value ``statement`` states, on its subject: in passing
    ("31 m, not 37 m"), or as a correction that names it ("the 40% was a typo") without
    upholding it."""
    claim, stated = claim_of(text), claim_of(statement)
    if not (same_subject(text, statement, 0.3) or names_in(text) & names_in(statement)):
        return False
    if _refused(claim, stated) is not None:
        return True
    if not claim.correction:
        return False
    upheld = UPHOLDS.search(text)
    if upheld is not None and _mentions(claim_of(text[upheld.end() :]).values, stated.values):
        return False
    return _mentions(claim.values, stated.values)


def _mentions(values: tuple[Value, ...], stated: tuple[Value, ...]) -> bool:
    return any(
        v.kind == s.kind and (v.kind not in _KEYED or v.key == s.key) and values_agree(v, s)
        for v in values
        for s in stated
    )


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
    A statement that rejects the other's value in passing ("X, not Y") upholds itself.
    Returns ``first`` or ``second``; None when ``text`` is no correction, is not on their
    subject (unless ``nearby``: it stands beside one of them, so its "it" is theirs), or names
    both values or neither.
    """
    claim = claim_of(text)
    on_subject = same_subject(text, first, 0.3) or same_subject(text, second, 0.3)
    if claim.rejected and on_subject:
        against_first, against_second = rejects(text, first), rejects(text, second)
        if against_first != against_second:
            return second if against_first else first
    if not (claim.correction or claim.corrects) or not (nearby or on_subject):
        return None
    upheld = UPHOLDS.search(text)
    if upheld is not None:
        after = claim_of(text[upheld.end() :]).values
        named = _named(after, first, second)
        if named is not None:
            return named
    named = _named(claim.values, first, second)
    if named is None:
        return None
    return second if named == first else first


def notice_of_error(text: str, first: str, second: str) -> bool:
    """Whether ``text`` reports that another text was wrong, or changed or taken back, on the
    subject of two disagreeing statements without naming either's value or pointing back ("An
    earlier edition wrongly gave the stone of the weir.", "Bylaw 12 is amended as follows."):
    what its own document states there is the corrected value. "This was a misprint" points
    back (at the sentence before it), so it is no such notice."""
    claim = claim_of(text)
    reports = REJECTS.search(text) or REPLACES.search(text)
    if reports is None or claim.rejected or _POINTS_BACK.match(text) is not None:
        return False
    differing = _differing(claim_of(first), claim_of(second))
    if differing is None:
        return False
    _, values_a, values_b = differing
    return not _mentions(claim.values, tuple(values_a) + tuple(values_b))


_POINTS_BACK = re.compile(
    r"\s*(?:this|that|it|these|those|the (?:above|former|latter)|the \w+ above)\b", re.IGNORECASE
)
"""A correction's opening words that point back at what came before it."""


def _named(values: tuple[Value, ...], first: str, second: str) -> str | None:
    """The one statement of the two whose disputed value ``values`` mention, or None."""
    differing = _differing(claim_of(first), claim_of(second))
    if differing is None:
        return None
    _, values_a, values_b = differing
    in_a, in_b = _mentions(values, tuple(values_a)), _mentions(values, tuple(values_b))
    if in_a == in_b:
        return None
    return first if in_a else second
