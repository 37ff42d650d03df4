"""Wordings of one sense in technical prose: a phrasal verb and the verb it stands for ("turn
Rich off", "disable Rich"), the ways of saying "by default" ("out of the box", "unless told
otherwise"), "introduced" ("first became available") and "prevent" ("guard against"), and the
verbs documentation uses for one act ("drop", "remove"), so a question worded one way meets the
sentence worded the other."""

from __future__ import annotations

import re

from teams.language.words import stem

__all__ = ["MAKING", "deed_sense", "deed_wording", "plain_wording", "sense"]

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
    "need require requirement mandatory compulsory",
    "start launch begin initial",
    "delay wait",
    "stop halt terminate",
    "risky dangerous unsafe insecure vulnerable",
    "prevent avert forestall",
    "minimum oldest lowest earliest",
    "maximum max longest highest largest biggest greatest cap",
    "replace override supersede",
    "forward relay",
    "folder directory",
    "handy practical convenient",
    "merge combine",
    "last final",
    "location place",
    "recommend advise",
    "store keep put",
    "parallel concurrent concurrently simultaneous simultaneously",
    "silent quiet",
    "stable stabilize stabilise",
)
"""Verbs of one act (and adjectives of one quality), the first standing for the group."""


def _standing_for(groups: tuple[str, ...]) -> dict[str, str]:
    """Each word's stem -> the stem of its group's first word."""
    return {stem(word): stem(group.split()[0]) for group in groups for word in group.split()}


_SENSE = _standing_for(_GROUPS)


_OBJECT = r"(?: (?:it|that|this|them|anything))?"
_LEFT = r"(?:alone|unset|untouched|untuned|unchanged|as it is)"
_SETTINGS = (
    r"(?:config(?:uration)?(?: configuration)?|settings|options|profile)(?: files?)?(?: at all)?"
)
"""What a run without any of runs on its defaults: "with no config file at all"."""
_BY_DEFAULT = re.compile(
    r"\b(?:out of the box"
    r"|unless (?:(?:you are |it is )?(?:told|configured|set|specified|instructed) otherwise"
    r"|(?:you|i|we|one) (?:change|configure|set|specify|override)"
    + _OBJECT
    + r"|(?:you|i|we|one) ask(?: (?:it|for it))?(?: to)?|asked(?: to)?)"
    r"|(?:if|when|and|but) (?:(?:[\w`-]+ ){1,3}(?:is|are) )?left "
    + _LEFT
    + r"|(?:if|when) (?:i|you|we|one) leave (?:[\w`-]+ ){1,5}"
    + _LEFT
    + r"|(?:if|when) (?:i|you|we|one) (?:don't|do not|never) "
    r"(?:configure|set|change|pass|specify|name|give|choose|pick|provide|supply|tell|override)"
    r"|(?:if|when) (?:i|you|we|one|(?:a|an|the|my|your|our|its) [\w-]+) "
    r"(?:have not|haven't|has not|hasn't|does not|doesn't|did not|didn't) "
    r"(?:configured|set|changed|passed|specified|named|given|chosen|picked|provided|supplied|"
    r"overridden)"
    + _OBJECT
    + r"|without (?:configuring|setting|changing|passing|specifying|saying|stating|choosing|"
    r"giving|providing|supplying|overriding)"
    + _OBJECT
    + r"|without being (?:told|asked|instructed|configured)(?: to)?"
    r"|(?:if|when) (?:i|you|we|one) (?:set|configure|change|specify|pass|give) (?:nothing|none)"
    r"|(?:if|when) (?:nothing|none) (?:is|are|was|has been) (?:set|configured|specified|given)"
    + r"|(?:with|having|using) no (?:[\w-]+ ){0,2}?"
    + _SETTINGS
    + r"|without (?:any |a )?(?:[\w-]+ ){0,2}?"
    + _SETTINGS
    + r")\b",
    re.I,
)
"""Ways of saying "by default": "out of the box", "unless told otherwise", "if left alone",
"if I leave that setting alone", "switched on and left untuned", "if you never configure it",
"if I don't name one", "when I have not configured one", "when a project has not configured
one", "unless you ask it to", "without
setting anything", "without saying what", "without being told to", "if I set nothing", "when
nothing is configured", "with no config file at all", "without any settings"."""
_NOT_GIVEN = re.compile(
    r"\b(?:if|when) ([^\s,?]+) (?:is|are) not (?:given|set|passed|specified|configured)\b", re.I
)
"""A default stated by what is not given: "when -r is not given"."""


_INTRODUCED = re.compile(
    r"\b(?:first (?:became|become|becomes) available|first appeared|"
    r"(?:was|were) first (?:added|shipped|offered|supported)"
    r"|first (?:ship|ships|shipped|offer|offers|offered|provide|provides|provided)"
    r"|(?:come|comes|came|coming)\s+in(?=\s*[?,.;]|\s*$))\b",
    re.I,
)
"""Ways of saying a thing was introduced: "first became available", "was first added", "did
X first ship", "did the option come in"."""
_TAKEN_OUT = re.compile(r"\b(?:take|takes|taking|taken|took)\s+out\b", re.I)
"""The phrasal "take out" of a thing removed ("was X taken out altogether")."""
_NO_LONGER_USABLE = re.compile(
    r"\bno\s+longer\s+(?:be\s+)?(?:used|usable|supported|installable|works?|runs?)\s+"
    r"(?:on|with|under|in)\b|\bstop(?:s|ped)?\s+being\s+supported\b",
    re.I,
)
"""A platform left behind: "could no longer be used on Python 3.4", "did Python 3.9 stop being
supported" (its support dropped)."""
_CARRY_ON = re.compile(r"\bcarr(?:y|ies|ied|ying)\s+on\b", re.I)
"""The phrasal "carry on" of a thing that goes on ("if someone carries on"): "continue"."""
_TAKE_PART = re.compile(r"\b(?:take|takes|taking|took|taken)\s+part\b", re.I)
"""The phrasal "take part": "participate"."""
_AT_THE_SAME_TIME = re.compile(r"\bat\s+the\s+same\s+time\b", re.I)
"""Work done together: "run several sessions at the same time" (in parallel)."""
_GAINED = re.compile(
    r"\b(?:gain(?:s|ed|ing)?|got|gets?)\s+(?:the\s+)?(?:ability|support|option)\s+(?:to|for)\b"
    r"|\badd(?:s|ed|ing)?\s+support\s+(?:for|of)\b|\bbec(?:ame|omes?)\s+able\s+to\b",
    re.I,
)
"""Ways of saying a capability was introduced: "gained the ability to", "added support for"."""
_KEPT_FROM = re.compile(
    r"\b(?:stop|keep|prevent)(?:s|ped|ping|t)?\s+((?:[\w`'\".-]+\s+){1,3}?)from\b", re.I
)
"""A thing kept from happening: "stops tox from loading X" (disable tox loading X)."""
_PASSED_ON = re.compile(r"\bpass(?:es|ed|ing)?\s+(?:(it|them|this|these)\s+)?on\b", re.I)
"""A thing handed further: "passed on to X" (forwarded to X)."""
_SET_TO = re.compile(
    r"\bset(?:s|ting)?\s+((?:[\w`'\".-]+\s+){1,3}?)to\s+[`'\"]?(false|off|no|true|on|yes)\b",
    re.I,
)
"""A switch set by value: "setting the `slim` setting to false" (disable), "set X to True"."""
_SET_VERB = {"false": "disable", "off": "disable", "no": "disable"}
_FLOOR = re.compile(
    r"(?<![\w.])(v?\d+(?:\.\d+)*)\+|(?<![\w.])(v?\d+(?:\.\d+)*)\s+(?:or|and)\s+"
    r"(?:later|newer|higher|above|greater)\b"
    r"|>=\s*(v?\d+(?:\.\d+)*)",
    re.I,
)
"""A version given as a floor: "3.10+", "3.10 or later", "3.10 and newer", ">=3.10"."""
_CEILING = re.compile(
    r"(?:(?<![<=-])<(?!=)\s*|&lt;\s*|\b(?:older|earlier|lower|less)\s+than\s+|\bbelow\s+)"
    r"(v?\d+(?:\.\d+)*)\b",
    re.IGNORECASE,
)
"""A version given as a ceiling it stays under: "< 4", "older than 4", "below 4"."""
_GUARDED = re.compile(r"\b(?:guard|protect|safeguard|shield)(?:s|ed|ing)?\s+against\b", re.I)
"""Ways of saying "prevent": "guard against", "protect against"."""


_SHORT_FORMS = {
    "stdout": "standard output",
    "stderr": "standard error",
    "stdin": "standard input",
    "env var": "environment variable",
    "env vars": "environment variables",
    "config": "configuration",
    "async": "asynchronous",
    "virtualenvs": "virtual environments",
    "repo": "repository",
    "repos": "repositories",
    "dir": "directory",
    "dirs": "directories",
}
"""Short forms of technical prose and what they stand for."""
_SHORT_FORM = re.compile(
    r"\b(?:" + "|".join(sorted(_SHORT_FORMS, key=len, reverse=True)) + r")\b", re.I
)


def plain_wording(text: str) -> str:
    """``text`` with a short form followed by what it stands for ("stdout standard output"),
    each phrasal "turn/switch X off/on" as "disable/enable X", each way of saying "by default"
    as "by default" ("when -r is not given" as "by default, without -r"), "first became
    available" as "was introduced" ("gained the ability to" and "added support for" also as
    "introduced"), "guard against" as "prevent", "take out" as "removed", "no longer used on"
    and "stop being supported" also as "removed support for", "at the same time" as "in
    parallel", "carry on" as "continue", "take part" as "participate", "set X to false" and
    "stop X from" also as "disable X", "pass on" as "forward", and a version given as a floor
    ("3.10+", "3.10 or later") as "3.10 minimum", one given as a ceiling ("< 4", "older than
    4") as "below 4"."""
    text = _SHORT_FORM.sub(lambda short: f"{short[0]} {_SHORT_FORMS[short[0].lower()]}", text)
    text = _BY_DEFAULT.sub("by default", text)
    text = _INTRODUCED.sub("was introduced", text)
    text = _GAINED.sub(r"introduced \g<0>", text)
    text = _GUARDED.sub("prevent", text)
    text = _TAKEN_OUT.sub("removed", text)
    text = _NO_LONGER_USABLE.sub(r"\g<0> removed support for", text)
    text = _AT_THE_SAME_TIME.sub("in parallel", text)
    text = _TAKE_PART.sub("participate", _CARRY_ON.sub("continue", text))
    text = _SET_TO.sub(_set_to, text)
    text = _KEPT_FROM.sub(r"\g<0> disable \1", text)
    text = _PASSED_ON.sub(lambda found: f"forward {found.group(1) or ''}", text)
    text = _CEILING.sub(r"below \1", _FLOOR.sub(_floor, text))
    text = _NOT_GIVEN.sub(r"by default, without \1", text)
    return _PHRASAL.sub(_plain, text)


def _set_to(match: re.Match[str]) -> str:
    return f"{match.group(0)} {_SET_VERB.get(match.group(2).lower(), 'enable')} {match.group(1)}"


def _floor(match: re.Match[str]) -> str:
    return f" {next(group for group in match.groups() if group)} minimum"


def _plain(match: re.Match[str]) -> str:
    between, particle = (part for part in match.groups() if part is not None)
    return f"{_PHRASAL_VERB[particle.lower()]} {between}"


def sense(stemmed: str) -> str:
    """The stem standing for ``stemmed``'s sense: ``stem("dropped")`` -> ``stem("remove")``;
    any other stem itself."""
    return _SENSE.get(stemmed, stemmed)


_DEEDS = (
    "found establish founder",
    "build construct erect builder",
    "make maker create creator develop developer",
    "write author writer compose composer",
    "invent inventor",
    "design designer architect",
    "photograph photographer",
)
"""Verbs of one deed of making (a question asks "established" of "founded") and the nouns of
their doers ("maker", "architect"), the first standing for the group."""
_DEED_SENSE = _standing_for(_DEEDS)
MAKING = frozenset(_DEED_SENSE.values())
"""The stem of every deed of making: what a question asking who "made" a thing may be
answered by when nothing says "made" (an author "makes" a podcast)."""
_PHRASAL_DEED = re.compile(
    r"\b(?:(set)|(put))(?:s|ting)?\s+up\b|\b(c[ao]me|comes|coming)\s+up\s+with\b|"
    r"\b(puts?|putting)\s+together\b|\b(?:t[ao]ok|takes?|taking)\s+"
    r"(?=(?:the|this|that|a)\s+(?:photo(?:graph)?|picture|snapshot|image)s?\b)",
    re.I,
)
"""A phrasal verb of making: "set up" (establish), "put up" (build), "came up with"
(conceive), "put together" (compile), "took" a photograph or an image (photograph)."""


def deed_wording(text: str) -> str:
    """``text`` with "set up" as "establish", "put up" as "build", "came up with" as
    "conceive", "put together" as "compiled" and "took" a photograph as "photographed"."""
    return _PHRASAL_DEED.sub(_deed_verb, text)


def _deed_verb(found: re.Match[str]) -> str:
    verbs = ("establish", "build", "conceive", "compiled")
    return next(
        (verb for verb, group in zip(verbs, found.groups(), strict=True) if group), "photographed "
    )


def deed_sense(stemmed: str) -> str:
    """The stem standing for a verb of making's deed, or its doer's noun: ``stem("establish")``
    -> ``stem("found")``, ``stem("maker")`` -> ``stem("make")``; any other stem itself."""
    return _DEED_SENSE.get(stemmed, stemmed)
