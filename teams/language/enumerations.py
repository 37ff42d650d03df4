"""Lists counted: a sentence or a bulleted list that names the things it is about gets their
count, so "has four galleries" is compared with the galleries a source lists.

Read: "The galleries of the museum are the Map Room, the Coin Room and the Print Room." (the
count goes before its full stop) and a line ending in "are:", "were:" or naming "the following
<things>:" whose bullets or numbered items follow it ("The platforms are:" then "- Platform
1"...; the count goes before the colon). The thing counted is the first plural noun before
"are", "were", "comprise" or "consist of", or the one after "the following". Only a list whose
items are all names, or start with "the", "a" or "an", is counted, and none that says it is
incomplete ("include", "such as", "among", "others", "etc.") or a selection ("main", "key",
"useful", "common"...), or whose lead already states a figure. Lines keep their breaks, so
``path:line`` citations do not move.

Example:
    >>> count_enumerations("The lakes of the estate are Upper Mere, Lower Mere and Black Tarn.")
    'The lakes of the estate are Upper Mere, Lower Mere and Black Tarn (3 lakes).'
"""

from __future__ import annotations

import re

from teams.language._numbers import WORD_NUMBERS
from teams.language.words import STOPWORDS, singular

__all__ = ["count_enumerations"]

_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?](?=\s|$))?")
_LEAD = re.compile(r"\b(?:are|were|comprise[sd]?|consists? of|consisted of)\s+(?!:)")
_INCOMPLETE = re.compile(
    r"\b(?:include[sd]?|including|such as|among|amongst|others|other|etc|e\.g|for example|"
    r"some|several|many|most|main|principal|key|useful|often|common|commonly|notable|popular|"
    r"important|typical|examples?)\b",
    re.IGNORECASE,
)
_FIGURE = re.compile(r"\d|\b(?:" + "|".join(WORD_NUMBERS) + r")\b", re.IGNORECASE)
_ITEM_START = re.compile(r"(?:(?:the|a|an)\s+)?[A-Z0-9]")
_FOLLOWING = re.compile(r"\bthe following ([a-z]{3,}s)\b")
_LEAD_END = re.compile(r"\b(?:are|were)\s*$")
_BULLET = re.compile(r"\s*(?:[-*+]|\d{1,3}[.)])\s+\S")
_LAST = re.compile(r",?\s+(?:and|&)\s+")


def count_enumerations(text: str) -> str:
    """``text`` with the count of each complete list of names after the thing it counts."""
    lines = text.split("\n")
    for at, line in enumerate(lines):
        if line.rstrip().endswith(":"):
            lines[at] = _bulleted(line, lines[at + 1 :])
        else:
            lines[at] = _SENTENCE.sub(_inline, line)
    return "\n".join(lines)


def _bulleted(line: str, following: list[str]) -> str:
    """A lead line ending with a colon, counted by the bullets right after it at one depth."""
    lead = line.rstrip()[:-1]
    named = _FOLLOWING.search(lead)
    if named is not None:
        noun = None if _FIGURE.search(lead) or _INCOMPLETE.search(lead) else named.group(1)
    else:
        verb = _LEAD_END.search(lead)
        noun = _counted(lead[: verb.start()]) if verb is not None else None
    items = _bullets(following)
    if items < 2 or noun is None:
        return line
    return f"{lead} ({items} {noun}):{line[len(line.rstrip()) :]}"


def _bullets(lines: list[str]) -> int:
    """How many bullets or numbered items follow, at the depth of the first (nested ones and
    continuation lines are passed over, blank lines between items too)."""
    items, depth = 0, None
    for line in lines:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if _BULLET.match(line) and depth in (None, indent):
            items, depth = items + 1, indent
        elif depth is None or indent <= depth:
            break
    return items


def _inline(match: re.Match[str]) -> str:
    """A sentence naming the things its subject counts: the count before its end."""
    sentence = match.group()
    lead = _LEAD.search(sentence)
    if lead is None:
        return sentence
    noun = _counted(sentence[: lead.start()])
    body = sentence[lead.end() :]
    end = len(body.rstrip(".!? "))
    items = _items(body[:end])
    if noun is None or items < 2:
        return sentence
    return f"{sentence[: lead.end() + end]} ({items} {noun}){body[end:]}"


def _counted(lead: str) -> str | None:
    """The plural noun a list counts: the first in its lead; None when the lead states a
    figure or says the list is incomplete."""
    if _FIGURE.search(lead) or _INCOMPLETE.search(lead):
        return None
    words: list[str] = re.findall(r"\b[a-z]{3,}\b", lead)
    return next((w for w in words if w not in STOPWORDS and singular(w) != w), None)


def _items(body: str) -> int:
    """How many names a list holds ("A, B and C": 3); 0 when it is no complete list."""
    if _INCOMPLETE.search(body) or ";" in body:
        return 0
    parts = body.split(",")
    last = _LAST.split(parts[-1].strip())
    if len(last) != 2:
        return 0
    names = [part.strip() for part in [*parts[:-1], *last]]
    if not all(_ITEM_START.match(name) and len(name.split()) <= 6 for name in names):
        return 0
    return len(names)
