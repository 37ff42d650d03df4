"""Plain-text helpers of the offline research roles: sub-questions, keywords, best sentences."""

from __future__ import annotations

import re

from framework.memory import prose_sentences

__all__ = ["STOPWORDS", "best_sentences", "keywords", "split_question"]

STOPWORDS = frozenset(
    """a an and are as at be been but by can could do does did for from how i if in into is it
    its me my of on or our so than that the their them then there these they this those to
    was we were what when where which while who whom why will with would you your about also
    should shall may might must has have had not no yes any all each other such more most
    some very just""".split()
)

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-']*|\d+(?:\.\d+)?")
_PARTS = re.compile(r"\?|;|\.\s|\band then\b|\band also\b|,\s*and\s+", re.IGNORECASE)
_MIN_PART_WORDS = 3


def keywords(text: str) -> list[str]:
    """Content words of ``text``, lower-cased, in order, without stopwords or repeats."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word not in STOPWORDS and len(word) > 1:
            seen.setdefault(word, None)
    return list(seen)


def split_question(question: str, limit: int = 4) -> list[str]:
    """Split a question into up to ``limit`` sub-questions of at least three words.

    Splits on question marks, semicolons, sentence ends and coordinated clauses ("..., and
    ..."), then on a plain " and " joining two clauses that each have a verb-like length.
    """
    parts = [p.strip(" ,.") for p in _PARTS.split(question) if p and p.strip(" ,.")]
    if len(parts) == 1:
        halves = [h.strip(" ,.") for h in re.split(r"\band\b", parts[0], maxsplit=1)]
        if len(halves) == 2 and all(len(h.split()) >= _MIN_PART_WORDS for h in halves):
            parts = halves
    subs = [p for p in parts if len(p.split()) >= _MIN_PART_WORDS]
    unique = list(dict.fromkeys(subs))
    return unique[:limit] if len(unique) > 1 else []


def best_sentences(text: str, query: str, limit: int = 2) -> list[tuple[int, str]]:
    """The ``limit`` sentences of ``text`` sharing most content words with ``query``.

    Returns ``(line offset, sentence)`` pairs in their order in the text: the 0-based line
    each sentence starts on, and the sentence as written (see
    :func:`framework.memory.prose_sentences`). Falls back to the first sentence when nothing
    overlaps.
    """
    terms = set(keywords(query))
    scored = [
        (len(terms & set(keywords(sentence))), -index, offset, sentence)
        for index, (offset, sentence) in enumerate(prose_sentences(text, first_line=0))
        if len(sentence.split()) >= _MIN_PART_WORDS
    ]
    if not scored:
        return []
    top = sorted(scored, reverse=True)[:limit]
    if top[0][0] == 0:
        top = top[:1]
    return [(offset, sentence) for _, _, offset, sentence in sorted(top, key=lambda t: -t[1])]
