"""Other names a sentence gives a thing, so a question asked by either name finds what is said
of it.

"The Rell bridge, also known as the Iron bridge, spans the Wyre." names the bridge twice: the
alias is set off by commas, brackets or dashes after a marker ("also known as", "better known
as", "sometimes spelt", "nicknamed", "dubbed", "a.k.a.", "aka",
"formerly", "previously", "originally", each optionally followed by "known as" or
"called"), a maiden name in brackets ("Martha Greaves (née Pollard)": Martha Pollard), or
stated by the sentence itself ("The Rell bridge is also known as the Iron
bridge", "Brackwater Optics was formerly called Tanner Glass"), or a new name given ("In 1952
the mill was renamed the Lark Exchange": the mill's name was its former). Each alias is a
relation both ways ("is also known as"; a former name "was formerly known as", and the former
name "was later known as" the other), and the sentence is read without the set-off alias ("The
Rell bridge spans the Wyre."), so the rest of it is said of the name before it.

Example:
    >>> [(a.name, a.alias, a.former) for a in aliases("Moor Lane (previously Fenton School) won.")]
    [('Moor Lane', 'Fenton School', True)]
    >>> without_aliases("The Rell bridge, also known as the Iron bridge, spans the Wyre.")
    'The Rell bridge spans the Wyre.'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from teams.extraction.clauses import antecedent
from teams.extraction.patterns import Reading, whole_noun_phrases

__all__ = ["Alias", "alias_readings", "aliases", "without_aliases"]

_FORMER = r"formerly|previously|originally"
_MARKER = (
    rf"(?P<marker>(?:also|better|more\s+commonly|commonly|popularly|locally)\s+known\s+as"
    rf"|(?:also|sometimes|often|occasionally|commonly)\s+(?:called|spelt|spelled)|nicknamed"
    rf"|dubbed|a\.k\.a\.?|aka|(?:{_FORMER})"
    r"(?:\s+(?:known\s+as|called|named))?)"
)
_SET_OFF = re.compile(
    rf"(?P<open>,|\s\(|\s?[—–])\s*{_MARKER}\s+(?P<alias>[^,;()—–]+?)"
    r"(?P<namer>\s+by\s+(?:the\s+|its\s+|local\s+|some\s+)?[a-z][^,;()—–]*?)?\s*"
    r"(?P<close>,|\)|[—–]|(?=[.;!?]?$))",
    re.IGNORECASE,
)
"""An alias set off after a name by commas, brackets or dashes: ", also known as X,", " (formerly
X)", " — better known as X — "; who gives it, in lower case, is not part of it (", dubbed the
Iron Harp by the townspeople,")."""
_STATED = re.compile(
    rf"^(?P<name>.+?)\s+(?:is|are|was|were)\s+(?:(?:also|{_FORMER}|sometimes|locally|commonly)"
    r"\s+)?(?P<verb>known\s+as|called|named|spelt|spelled)\s+(?P<alias>[^,;()]+?)\s*[.;!?]?$",
    re.IGNORECASE,
)
"""An alias that is the sentence's own statement: "X is also known as Y"."""
_RENAMED = re.compile(
    r"^(?:(?:In|By|On|From|After|Later|Then)\b[^,]{0,30}?,?\s+)?(?P<name>[A-Z].+?)\s+"
    r"(?:was|were|has\s+been|had\s+been|is)\s+(?:later\s+|then\s+|since\s+)?renamed\s+"
    r"(?:as\s+|to\s+)?(?P<alias>[^,;()]+?)\s*[.;!?]?$"
)
"""A new name given: "In 1952 the Quenby mill was renamed the Lark Exchange" (the mill's name
before is its former one)."""
_MAIDEN = re.compile(
    r"\b(?P<given>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*?)\s+(?P<family>[A-Z][\w'’-]*)"
    r"(?P<set_off>\s*\((?:née|nee|born)\s+(?P<maiden>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)\))"
)
"""A family name before the maiden name in brackets: "Martha Greaves (née Pollard)", or the
whole name given at birth ("Tobias Venn (born Tobias Vennicombe)")."""
_MAX_WORDS = 5
_CONFIDENCE = 0.9


@dataclass(frozen=True)
class Alias:
    """Another name of ``name``; ``former`` when it is a name it had before."""

    name: str
    alias: str
    former: bool


def _one_name(text: str) -> str:
    """The one name ``text`` is ("the Iron bridge": Iron bridge), or "": a noun phrase of a
    few words, one of them capitalised (not "a weaving shed")."""
    phrases = whole_noun_phrases(text)
    words = phrases[0].split() if len(phrases) == 1 else []
    ok = 0 < len(words) <= _MAX_WORDS and any(word[:1].isupper() for word in words)
    return phrases[0] if ok else ""


def _former(marker: str) -> bool:
    return re.match(_FORMER, marker, re.IGNORECASE) is not None


def aliases(sentence: str) -> list[Alias]:
    """The aliases ``sentence`` gives, set off after a name or stated as its relation."""
    found = []
    for match in _SET_OFF.finditer(sentence):
        name = _one_name(antecedent(sentence[: match.start()]))
        alias = _one_name(match.group("alias"))
        if name and alias:
            found.append(Alias(name, alias, _former(match.group("marker"))))
    for match in _MAIDEN.finditer(sentence):  # "Martha Greaves (née Pollard)": Martha Pollard
        name, maiden = f"{match['given']} {match['family']}", match["maiden"]
        alias = maiden if " " in maiden else f"{match['given']} {maiden}"
        found.append(Alias(name, alias, former=False))
    renamed = _RENAMED.match(sentence)
    if renamed is not None and not found:  # the new name, formerly the one before
        new, old = _one_name(renamed.group("alias")), _one_name(renamed.group("name"))
        if new and old:
            found.append(Alias(new, old, former=True))
    stated = _STATED.match(sentence)
    if stated is not None and not found:
        name, alias = _one_name(stated.group("name")), _one_name(stated.group("alias"))
        said = stated.group(0)[len(stated.group("name")) : stated.start("verb")]
        if name and alias:
            found.append(Alias(name, alias, re.search(_FORMER, said, re.IGNORECASE) is not None))
    return found


def without_aliases(sentence: str) -> str:
    """``sentence`` without the aliases set off in it (a stated alias stays)."""

    def kept(match: re.Match[str]) -> str:
        named = antecedent(sentence[: match.start()]) and _one_name(match.group("alias"))
        return "" if named else match.group(0)

    sentence = _MAIDEN.sub(lambda match: f"{match['given']} {match['family']}", sentence)
    return _SET_OFF.sub(kept, sentence)


def alias_readings(found: Alias) -> list[Reading]:
    """An alias as relations both ways."""
    if found.former:
        return [
            Reading(found.name, "was formerly known as", found.alias, _CONFIDENCE),
            Reading(found.alias, "was later known as", found.name, _CONFIDENCE),
        ]
    return [
        Reading(found.name, "is also known as", found.alias, _CONFIDENCE),
        Reading(found.alias, "is also known as", found.name, _CONFIDENCE),
    ]
