"""A deed named by a noun, read as a passive: "the founding of X by Y" says that X was founded by
Y, wherever the phrase stands in its sentence.

"After the founding of the Rye choir by Ann Roe in 1890, the hall got an organ." states that
the Rye choir was founded by Ann Roe in 1890. The noun is one whose verb
:func:`~teams.language.verbs.deed_participle` knows ("building", "construction", "design");
the agent ends before the next comma or the verb of the clause it stands in ("by Ann Roe led
to ...": Ann Roe).

Example:
    >>> deed_clauses("After the founding of the Rye choir by Ann Roe in 1890, it grew.")
    ['the Rye choir was founded by Ann Roe in 1890.']
"""

from __future__ import annotations

import re

from teams.extraction.patterns import looks_like_verb
from teams.language.verbs import deed_participle

__all__ = ["deed_clauses"]

_DEED = re.compile(
    r"\b(?i:the)\s+(?P<deed>[a-z]+)\s+of\s+(?P<thing>[^,;()]+?)\s+by\s+(?P<agent>[^,;()]+)"
)
_AUXILIARIES = frozenset("is are was were has have had will would can could".split())


def _agent(text: str) -> str:
    """``text`` up to the verb of the clause the deed stands in, if any."""
    words = text.rstrip(".!?").split()
    for index, word in enumerate(words[1:], 1):
        following = words[index + 1] if index + 1 < len(words) else ""
        if word in _AUXILIARIES or (word.islower() and looks_like_verb(word, following)):
            return " ".join(words[:index])
    return " ".join(words)


def deed_clauses(sentence: str) -> list[str]:
    """Each deed ``sentence`` names with its agent, as a passive sentence of the thing done."""
    clauses = []
    for deed in _DEED.finditer(sentence):
        participle = deed_participle(deed["deed"])
        if participle:
            clauses.append(f"{deed['thing']} was {participle} by {_agent(deed['agent'])}.")
    return clauses
