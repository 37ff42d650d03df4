"""The words an answer quotes as its evidence: no more of the sentence than states it, when
the rest names someone or something else.

A sentence that names a rival ("The same engineer also built the Kell bridge, though its
ironwork came from Walter Ince's foundry") is quoted from its clauses that hold the relation's
names, the cut marked: "The same engineer also built the Kell bridge …". What a sentence says of
everything except a thing is not said of the thing: "Martha Gale built every chapel except the
Holt chapel, which Edwin Lusk built" is quoted from the exception on, "… the Holt chapel, which
Edwin Lusk built."

Example:
    >>> quoted_clauses("Ann Roe built the mill, though Tom Hay cast it.", ["Ann Roe", "mill"])
    'Ann Roe built the mill …'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from framework.memory import normalised
from teams.language.dates import month_of
from teams.language.words import STOPWORDS

__all__ = ["quoted_clauses"]

_CLAUSE_BREAK = re.compile(r"\s*(?:[,;]|\s[—–-]{1,2})\s+")
"""Where one clause of a sentence ends and the next begins: a comma, a semicolon, a dash."""
_CAPITALISED = re.compile(r"(?<![.?!:…]\s)(?<=[\s(])[A-Z][a-z]+(?:['’]s)?\b")
"""A capitalised word that does not open a sentence: a name, or part of one."""
_EXCEPTION = re.compile(
    r"\b(?:except(?:\s+for)?|but\s+not|other\s+than|apart\s+from|save\s+for)\s+(?P<article>(?:the|a|an)\s+)?$",
    re.IGNORECASE,
)
"""The end of what a sentence says of everything but the thing after it."""
_APPOSITION = re.compile(r"^(?:the\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*[.!?]?$")
"""A clause that is only a name: an apposition to the name before it."""
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_MARKS = re.compile(r"['’*`\"“”]")
_CUT = "…"


def _bare(text: str) -> str:
    return _MARKS.sub("", normalised(text))


def _holds(text: str, name: str) -> bool:
    return bool(name.strip()) and _bare(name) in _bare(text)


def _rival(text: str, names: Sequence[str]) -> bool:
    """Whether ``text`` has a capitalised word that is in none of ``names`` and is no month,
    weekday or function word."""
    held = _WEEKDAYS | STOPWORDS | {w.lower() for n in names for w in re.findall(r"[\w’']+", n)}
    words = (re.sub(r"['’]s$", "", word) for word in _CAPITALISED.findall(text))
    return any(word.lower() not in held and month_of(word) is None for word in words)


def _after_exception(text: str, names: Sequence[str]) -> int:
    """Where the first of ``names`` in ``text`` starts, with its article, when what comes
    before it ends in "except" or the like; else 0."""
    starts = [m.start() for n in names if n.strip() and (m := _first(text, n)) is not None]
    if not starts:
        return 0
    lead = text[: min(starts)]
    exception = _EXCEPTION.search(lead)
    if exception is None:
        return 0
    return exception.start("article") if exception["article"] else exception.end()


def _first(text: str, name: str) -> re.Match[str] | None:
    words = r"\s+".join(re.escape(word) for word in name.split())
    return re.search(rf"\b{words}", text, re.IGNORECASE)


def quoted_clauses(sentence: str, names: Sequence[str]) -> str:
    """``sentence``, or only its clauses that hold ``names`` (the cut marked "…") when the
    rest names a rival; from the exception on when the kept clauses open with what is said
    of everything but the first name."""
    breaks = [(m.start(), m.end()) for m in _CLAUSE_BREAK.finditer(sentence)]
    starts = [0, *(end for _, end in breaks)]
    ends = [*(start for start, _ in breaks), len(sentence)]
    holding = [
        i
        for i, (s, e) in enumerate(zip(starts, ends, strict=True))
        if any(_holds(sentence[s:e], name) for name in names)
    ]
    if not holding:
        return sentence
    last = holding[-1]
    if last + 1 < len(starts) and _APPOSITION.match(sentence[starts[last + 1] : ends[last + 1]]):
        last += 1  # "built by his son, Amos Rook": the son's name
    start, end = starts[holding[0]], ends[last]
    start += _after_exception(sentence[start:end], names)
    if not _rival(f"{sentence[:start]} {sentence[end:]}", names):
        return sentence
    text = sentence[start:end].rstrip(" ,;")
    head = f"{_CUT} " if start > 0 else ""
    tail = f" {_CUT}" if sentence[end:].strip(" .") else ""
    return f"{head}{text}{tail}"
