"""Wordings of one sense in technical prose: a phrasal verb and the verb it stands for ("turn
Rich off", "disable Rich"), and the verbs documentation uses for one act ("drop", "remove"), so
a question worded one way meets the sentence worded the other."""

from __future__ import annotations

import re

from teams.language.words import stem

__all__ = ["plain_verbs", "sense"]

_PHRASAL = re.compile(
    r"\b(?:turn(?:s|ed|ing)?\s+((?:[\w`'\".-]+\s+){0,2}?)(off|on)"
    r"|switch(?:es|ed|ing)?\s+((?:[\w`'\".-]+\s+){1,2}?)(on)"
    r"|switch(?:es|ed|ing)?\s+((?:[\w`'\".-]+\s+){0,2}?)(off))\b(?!-)",
    re.I,
)
"""A phrasal "turn (up to two words) off/on" ("turn Rich off", "turning on"), "switch X on"
and "switch off"; not "switch on X", which branches on X."""
_PHRASAL_VERB = {"off": "disable", "on": "enable"}

_GROUPS = (
    "disable deactivate",
    "enable activate",
    "remove delete drop",
    "show display",
    "allow permit",
    "parameter argument",
    "need require",
    "start launch",
    "stop halt terminate",
)
"""Verbs of one act, the first standing for the group."""
_SENSE = {stem(word): stem(group.split()[0]) for group in _GROUPS for word in group.split()}


def plain_verbs(text: str) -> str:
    """``text`` with each phrasal "turn/switch X off/on" as "disable/enable X"."""
    return _PHRASAL.sub(_plain, text)


def _plain(match: re.Match[str]) -> str:
    between, particle = (part for part in match.groups() if part is not None)
    return f"{_PHRASAL_VERB[particle.lower()]} {between}"


def sense(stemmed: str) -> str:
    """The stem standing for ``stemmed``'s sense: ``stem("dropped")`` -> ``stem("remove")``;
    any other stem itself."""
    return _SENSE.get(stemmed, stemmed)
