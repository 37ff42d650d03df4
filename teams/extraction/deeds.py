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

from teams.extraction.indirect_deeds import gerund_past
from teams.extraction.patterns import looks_like_verb
from teams.language.verbs import deed_participle

__all__ = ["achievement_owned", "deed_clauses"]

_DEED = re.compile(
    r"\b(?i:the)\s+(?P<deed>[a-z]+)\s+of\s+(?P<thing>[^,;()]+?)\s+by\s+(?P<agent>[^,;()]+)"
)
_OWNED_DEED = re.compile(
    r"\b(?P<agent>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3})(?:'s|’s)\s+(?P<deed>[a-z]+)"
    r"(?:,\s*in\s+(?P<year>1\d{3}|20\d{2}),)?\s+of\s+(?P<thing>[^,;()]+?)"
    r"(?=\s+(?:in|was|were|is|are|has|had|led|made|won|earned)\b|\s*[,;.]|\s*$)"
)
"""A deed named by a noun its doer owns: "Nesta Prydderch's founding of the choir"."""
_AMONG = re.compile(
    r"^(?:Chief|First|Foremost|Greatest|Proudest)\s+among\s+(?P<owner>his|her|their)\s+"
    r"(?:achievements|works|accomplishments|legacies)\s+(?:was|were|is|are)\s+the\s+"
    r"(?P<deed>[a-z]{2,}?)ing(?:,\s*in\s+(?P<year>1\d{3}|20\d{2}),)?\s+of\s+"
    r"(?P<thing>[^,;]+)(?P<rest>.*)$"
)
"""A deed put first among its doer's achievements: "Chief among her achievements was the
founding, in 1968, of the Teifi Valley Ladies' Choir"."""
_DOER = {"his": "He", "her": "She", "their": "They"}
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
    """Each deed ``sentence`` names with its agent, as a passive sentence of the thing done
    (its doer after "by", or owning the noun: "Ann Roe's founding of the choir")."""
    clauses = []
    for deed in _DEED.finditer(sentence):
        participle = deed_participle(deed["deed"])
        if participle:
            clauses.append(f"{deed['thing']} was {participle} by {_agent(deed['agent'])}.")
    for owned in _OWNED_DEED.finditer(sentence):
        participle = deed_participle(owned["deed"])
        when = f" in {owned['year']}" if owned["year"] else ""
        if participle:
            clauses.append(f"{owned['thing']} was {participle} by {owned['agent']}{when}.")
    return clauses


def achievement_owned(sentence: str) -> str:
    """``sentence`` with a deed put first among its doer's achievements said as a deed done
    ("Chief among her achievements was the founding, in 1968, of X": "She founded X in
    1968"), so that its "she" is read as whom it stands for; as it is otherwise."""
    found = _AMONG.match(sentence)
    if found is None:
        return sentence
    when = f" in {found['year']}" if found["year"] else ""
    done = f"{_DOER[found['owner']]} {gerund_past(found['deed'])} {found['thing']}{when}"
    return f"{done}{found['rest']}"
