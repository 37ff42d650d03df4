"""Plain-text helpers of the offline research roles: sub-questions, keywords, sentences."""

from __future__ import annotations

import re

__all__ = ["STOPWORDS", "best_sentences", "keywords", "sentences", "split_question"]

STOPWORDS = frozenset(
    """a an and are as at be been but by can could do does did for from how i if in into is it
    its me my of on or our so than that the their them then there these they this those to
    was we were what when where which while who whom why will with would you your about also
    should shall may might must has have had not no yes any all each other such more most
    some very just""".split()
)

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-']*|\d+(?:\.\d+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`*\[(])")
_BLOCK_START = re.compile(r"#|[-*+] |\d+[.)] |\|")
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


def _blocks(text: str) -> list[tuple[int, str]]:
    """Lines grouped into blocks (paragraphs, list items, headings) with their first line.

    Prose only: fenced code and table rows are left out, as they hold no sentence to cite.
    """
    blocks: list[tuple[int, list[str]]] = []
    fenced = False
    for number, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            blocks.append((number + 1, []))
            continue
        if not stripped or fenced or stripped.startswith("|"):
            blocks.append((number + 1, []))
            continue
        starts_block = _BLOCK_START.match(stripped) is not None
        if starts_block or not blocks or not blocks[-1][1] or blocks[-1][1][0].startswith("#"):
            blocks.append((number, [stripped]))
        else:
            blocks[-1][1].append(stripped)
    return [(start, " ".join(lines)) for start, lines in blocks if lines]


def sentences(text: str) -> list[tuple[int, str]]:
    """Sentences of ``text`` with the 0-based line offset of the block where each starts."""
    return [
        (start, sentence)
        for start, block in _blocks(text)
        for sentence in _SENTENCE_END.split(block)
        if sentence.strip()
    ]


def best_sentences(text: str, query: str, limit: int = 2) -> list[tuple[int, str]]:
    """The ``limit`` sentences of ``text`` sharing most content words with ``query``.

    Returns ``(line offset, sentence)`` pairs in their order in the text; headings and list
    markers are stripped. Falls back to the first sentence when nothing overlaps.
    """
    terms = set(keywords(query))
    scored = []
    for index, (offset, sentence) in enumerate(sentences(text)):
        clean = sentence.lstrip("*->` ").strip()
        if clean.startswith(("#", "|")) or len(clean.split()) < _MIN_PART_WORDS:
            continue
        overlap = len(terms & set(keywords(clean)))
        scored.append((overlap, -index, offset, clean))
    if not scored:
        return []
    top = sorted(scored, reverse=True)[:limit]
    if top[0][0] == 0:
        top = top[:1]
    return [(offset, clean) for _, _, offset, clean in sorted(top, key=lambda t: -t[1])]
