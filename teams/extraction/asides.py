"""Asides taken out of a sentence: a participle set off after its noun, a second subject set off
by "along with", an alternative the sentence denies, a "(role: Name)" label after a thing, and
names after "namely" put in place of what they name; and a negative inversion ("Not until 1890
did X build Y") put in plain order.

"The ketch Morwen, built by Amos Grell in 1851, sank in 1903." and "The Orme lighthouse
(designed by Silas Pyne, 1862) still stands." each state two relations: the main clause about
the noun, and the participle, read as a passive of the same noun ("The ketch Morwen was built by
Amos Grell in 1851"). An alternative named only to be denied ("Jon Hale, not his brother, built
the bridge", "won not by Harrow but by Ebb", "went to Vera Holt instead of Otto Brand",
"designed X without help from her partner, Guy Feld", "The dial, long attributed to Ivo Hart,
was made by Ann Roe") is taken out, so the clause reads as the affirmation it is rather than as
a negation, and the denied name is never read as a party to the relation.

An aside between a passive verb and its "by" is taken out, so the agent meets its verb.

Example:
    >>> participle_asides("The ketch Morwen, built by Amos Grell in 1851, sank in 1903.")
    ['The ketch Morwen sank in 1903.', 'The ketch Morwen was built by Amos Grell in 1851.']
    >>> without_denied("Jon Hale, not his brother Emrys Hale, built the Tarn footbridge.")
    'Jon Hale built the Tarn footbridge.'
"""

from __future__ import annotations

import re

from teams.extraction.attributes import attribute_readings
from teams.extraction.patterns import PARTICIPLE as _PARTICIPLE
from teams.extraction.patterns import Reading
from teams.language.verbs import past_tense

__all__ = [
    "agent_joined",
    "agent_named",
    "bracket_labels",
    "joined_subjects",
    "namely",
    "participle_asides",
    "uninverted",
    "without_citations",
    "without_denied",
    "without_label",
]

_PREPOSITION = r"(?:by|in|at|on|from|for|with|under|near)"
_PARTICLE = r"(?:(?:up|down|out|over|back)\s+)?"
"""The particle of a phrasal participle ("put up in 1820 by ...")."""
_NOUN = r"(?P<noun>(?:The|A|An|[A-Z][\w'’-]*)(?:\s+[\w'’-]+){0,5}?)"
_ASIDES = (
    re.compile(
        rf"^{_NOUN},\s+(?P<aside>{_PARTICIPLE}\s+{_PARTICLE}{_PREPOSITION}\s+[^,;()]+?),\s+"
        r"(?P<rest>[a-z].*)$"
    ),
    re.compile(
        rf"^{_NOUN}\s+\((?P<aside>{_PARTICIPLE}\s+{_PARTICLE}{_PREPOSITION}\s+[^;()]+?)\)\s*(?P<rest>.*)$"
    ),
    re.compile(
        rf"^{_NOUN},\s+(?P<aside>{_PARTICIPLE}\s+{_PARTICLE}{_PREPOSITION}\s+[^,;]+?)"
        r"(?P<rest>)\s*[.!?]?$"
    ),
    re.compile(
        rf"^{_NOUN}\s*(?P<dash>—|–|--)\s*(?P<aside>{_PARTICIPLE}\s+{_PARTICLE}{_PREPOSITION}\s+"
        r"[^—–;]+?)\s*(?P=dash)\s*(?P<rest>[a-z].*)$"
    ),
)
"""A participle (phrasal or not) and its preposition after the sentence's opening noun, set
off by commas or dashes with the main clause going on in lower case, or by brackets; or a noun
and its participle alone, as a caption writes them ("The Ormsby tower, designed by Lena Pike
(1911).")."""
_CLOCK = r"(?:\d{1,2}:)?\d{1,2}:\d{2}"
_LABEL = re.compile(
    r"^(?:(?:(?:Figure|Fig\.|Plate|Image|Photo|Map)\s+\d+[a-z]?\s*[:.]|(?:1\d{3}|20\d{2})\s*:"
    rf"|{_CLOCK}\s*[-–—])\s+|{_CLOCK}\s+How\s+(?=(?:[A-Z][\w'-]*\s+){{1,4}}[a-z]))(?=[A-Z])"
)
"""A label before a caption, a timeline entry or a chapter: "Figure 2: ", "1834: ", "10:30 - ",
a chapter's time and the "How" of its title ("14:40 How Ada Holm built the weir": Ada Holm
built it)."""
_DENIED = (
    re.compile(r",\s+(?:and\s+)?not\s+(?!only\b|just\b|even\b)[^,;]+,(?=\s)"),
    re.compile(r",\s+(?:[a-z]+\s+)?(?:attributed|credited|ascribed)\s+to\s+[^,;]+,(?=\s)"),
    re.compile(
        r"\bnot\s+(?:(?P<prep>by|to|in|at|from|for|with)\s+|(?=(?:the|a|an)\s|[A-Z]))"
        r"[^,;]+?,?\s+but\s+(?(prep)(?P=prep)\s+)"
    ),
    re.compile(r"\s+(?:instead of|rather than)\s+[^;]*?(?=\s*(?:;|[.!?]?$))"),
    re.compile(
        r"\s+(?:without|with\s+no)\s+(?:any\s+)?(?:the\s+)?(?:help|aid|assistance|input)\s+"
        r"(?:from|of)\s+[^;]*?(?=\s*(?:;|[.!?]?$))"
    ),
    re.compile(
        r"^It\s+(?:was|is|had\s+been)\s+not\s+(?!until\b|till\b|only\b|just\b|long\b)"
        r"[^;]+?\s+(?:who|that|which)\s+[^;]+(?:;\s*|$)"
    ),
    re.compile(
        r"^[A-Z][^,;]*?\s+(?:had|has|have|played|took|bore)\s+"
        r"(?:nothing\s+(?:at\s+all\s+)?to\s+do\s+with|no\s+(?:part|hand|role|share)\s+in)\s+"
        r"(?=[a-z])"
    ),
)
"""An alternative named to be denied: ", not his brother," or an attribution the sentence goes
on to correct (", long attributed to A, was in fact made by B") between commas; "not by A but
by B" (its preposition stays); "instead of A", "rather than A" or "without help from A" to the
end of its clause; a negative cleft ("It was not A who built X;") to its semicolon; a part
denied ("A had nothing to do with building X, which ..."), up to the thing, which the rest may
say more of."""


_ALONG_WITH = re.compile(
    rf"^{_NOUN},\s+(?:along|together)\s+with\s+(?P<other>[^,;()]+?),\s+(?P<rest>[a-z].*)$"
)
"""A second subject set off by "along with" or "together with" before the verb."""
_NAMED_LAST = re.compile(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*$")
"""The name that ends a phrase describing who it is ("her cousin Ivo Dane")."""


def joined_subjects(sentence: str) -> str:
    """``sentence`` with a subject set off by "along with" joined to the first by "and" ("Ann
    Roe, together with Tom Hart, founded the club.": "Ann Roe and Tom Hart founded ...")."""
    found = _ALONG_WITH.match(sentence)
    if found is None:
        return sentence
    named = _NAMED_LAST.search(found["other"])  # "her cousin Ivo Dane": Ivo Dane
    other = named.group() if named and found["other"][:1].islower() else found["other"]
    return f"{found['noun']} and {other} {found['rest']}"


_AGENT_AFTER_ASIDE = re.compile(
    rf"(?P<passive>(?:\b(?:is|are|was|were|been|being)\s+|(?<=[—–])\s*){_PARTICIPLE})\s*,\s*"
    r"(?!\s|(?:and|but|or|then|which|who|when)\b)[^,\d]+?,\s*(?=by\s)"
)
"""A passive's verb (or a participle opening an aside set off by a dash), an aside set off by
commas that is no clause of its own and holds no date, then its "by" ("was designed, after a
long dispute over its site, by"; "—designed, I am proud to say, by")."""


_DESCRIBED_AGENT = re.compile(
    r"\bby\s+(?:a|an|the|his|her|their|its)\s+[a-z][^,;A-Z]*[A-Z][^,;]*?,\s+"
    r"(?P<named>(?:the\s+)?(?:[a-z]+\s+)?"
    r"(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){1,3}))(?=\s*(?:[,.;!?]|$))"
)
"""An agent described first and named in an apposition after it ("by a pupil of Tobias
Wray's, the young Lena Holt"): the name is the agent, not whom the description names (one
that names nobody, "by his son, Amos Rook", is read as it is)."""


def agent_joined(sentence: str) -> str:
    """``sentence`` with an aside between a passive verb and its "by" taken out ("X was
    designed, after a long dispute, by Y.": "X was designed by Y."), and an agent described
    before its name given by the name alone (:func:`agent_named`)."""
    return agent_named(_AGENT_AFTER_ASIDE.sub(r"\g<passive> ", sentence, count=1))


def agent_named(sentence: str, gap: str = "") -> str:
    """``sentence`` with an agent described before its name given by the name alone ("by a
    pupil of Z's, the young Y": "by Y"); with ``gap`` (an elision mark, for a quotation),
    the description put as the gap ("by … the young Y"), so whom it names is not quoted."""
    return _DESCRIBED_AGENT.sub(
        lambda found: f"by{gap}{found['named']}" if gap else f"by {found['name']}",
        sentence,
        count=1,
    )


_CITATION = re.compile(
    r"\s*\((?:see\s+)?[A-Z][\w'’-]+(?:\s+(?:and|&)\s+[A-Z][\w'’-]+|\s+et\s+al\.?)?,?\s+"
    r"\d{4}[a-z]?(?:,\s*(?:pp?\.|page|pages)\s*\d+(?:\s*[–-]\s*\d+)?)?\)"
)
"""An author-year citation in brackets: "(Greenhalgh 1952, p. 41)", "(Hart and Lee 1990)"."""


def without_citations(sentence: str, gap: str) -> str:
    """``sentence`` with each author-year citation in brackets put as ``gap`` (an elision
    mark): the author cited is the source of the claim, not a party to it."""
    return _CITATION.sub(gap.rstrip(), sentence)


def without_label(sentence: str) -> str:
    """``sentence`` without a figure's or a timeline entry's label ("1834: Clara Moss designs
    the Birk bridge.": "Clara Moss designs the Birk bridge.")."""
    return _LABEL.sub("", sentence, count=1)


def participle_asides(sentence: str) -> list[str]:
    """The main clause without its participle aside, then the aside as a passive sentence of
    its noun; ``[sentence]`` when it has none."""
    for pattern in _ASIDES:
        found = pattern.match(sentence)
        if found is not None:
            noun, aside, rest = found.group("noun", "aside", "rest")
            return [f"{noun} {rest}".rstrip(), f"{noun} was {aside.rstrip('.')}."]
    return [sentence]


def without_denied(sentence: str, gap: str = " ") -> str:
    """``sentence`` without an alternative it names only to deny, each put as ``gap`` (an
    elision mark for a quotation); a quotation ends where its last words are cut."""
    for pattern in _DENIED:
        sentence = pattern.sub(lambda found: _kept(found, gap), sentence)
    sentence = re.sub(r"\s+([.!?]?)$", r"\1", re.sub(r"\s{2,}", " ", sentence))
    mark = gap.strip()
    sentence = sentence if mark else sentence.lstrip()  # a denial that opened it
    return re.sub(rf"\s*{re.escape(mark)}[.!?]?$", "", sentence) if mark else sentence


def _kept(found: re.Match[str], gap: str) -> str:
    """What stands for a denied alternative: ``gap``, then the preposition of "not by A but by
    B"."""
    prep = found.groupdict().get("prep")
    return f"{gap}{prep} " if prep else gap


_BRACKET_LABEL = re.compile(
    r"(?P<thing>\b(?:[Tt]he\s+|[Aa]n?\s+)?(?:[A-Z][\w'’-]*\s+)+[a-z][\w'’-]*)\s+"
    r"\((?P<role>[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*)?):\s*"
    r"(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*)\)"
)
"""A role and a name labelled in brackets after a thing: "The Kell chapel (architect: Sam
Orr)"."""
_LABEL_CONFIDENCE = 0.7


def bracket_labels(sentence: str) -> tuple[str, list[Reading]]:
    """``sentence`` without the "(role: Name)" labels after its things, and what each label
    says, as the same label on a line of its own would ("architect: Sam Orr": the Kell chapel
    was designed by Sam Orr), else that the thing's role is the name."""
    readings = []
    for found in _BRACKET_LABEL.finditer(sentence):
        thing = re.sub(r"^(?:[Tt]he|[Aa]n?)\s+", "", found["thing"])
        said = attribute_readings(thing, found["role"], found["name"])
        role = f"'s {found['role']} is"
        readings += said or [Reading(thing, role, found["name"], _LABEL_CONFIDENCE)]
    return _BRACKET_LABEL.sub(lambda found: found["thing"], sentence), readings


_NAMES = (
    r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*(?:(?:,\s+|\s+and\s+)[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)*"
)
_NAMELY_SUBJECT = re.compile(
    rf"^(?P<role>[A-Z][^,;]*?),\s+(?:namely|viz\.?|that is)\s+(?P<names>{_NAMES}),\s+"
    r"(?P<rest>[a-z].*)$"
)
"""Who a subject is, after "namely": "Two masons, namely Abel Roe and Tom Vance, carved ..."."""
_NAMELY_HELD = re.compile(
    r"^(?P<owner>.+?)\s+(?:has|had|have)\s+(?:(?:a|an|one|the|its|their)\s+)?"
    r"(?:[a-z]+\s+)?(?P<role>[a-z]+),\s+(?:namely|viz\.?)\s+"
    rf"(?P<names>{_NAMES})(?=\s*(?:[,;.!?]|$))"
)
"""A role a thing has and who fills it, after "namely": "The Tarn lock had a single engineer,
namely Ivo Bell"."""


def namely(sentence: str) -> str:
    """``sentence`` with the names after "namely" in place of what they name: "Two masons,
    namely A and B, carved X" as "A and B carved X"; "X had a single engineer, namely Y" as
    "X's engineer was Y."; the sentence as it is otherwise."""
    if found := _NAMELY_HELD.match(sentence):
        owner = re.sub(r"^(?:The|A|An)\s+", "", found["owner"])
        return f"{owner}'s {found['role']} was {found['names']}{sentence[found.end() :]}"
    if found := _NAMELY_SUBJECT.match(sentence):
        return f"{found['names']} {found['rest']}"
    return sentence


_INVERTED = re.compile(
    r"^(?:Not\s+until|Only\s+(?:after|when|once|in|then|later)|Not\s+only)\b(?P<when>[^,]*?),?\s+"
    r"(?:did|does|do)\s+(?P<subject>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)\s+(?P<verb>[a-z]+)\b"
    r"(?P<rest>.*)$"
)
"""A negative inversion that states its deed: "Not until 1890 did Ada Royle build the tower",
"Only in 1890 did ...", "Not only did ..."."""


def uninverted(sentence: str) -> str:
    """``sentence`` in plain order when a fronted "Not until ...", "Only after ..." or "Not
    only" inverts it ("Not until 1890 did Ada Royle build the Vane tower, ...": "Ada Royle
    built the Vane tower, ..."), or a fronted place puts its subject after "stands"
    (:data:`_PLACE_INVERTED`); the sentence as it is otherwise."""
    placed = _PLACE_INVERTED.match(sentence)
    if placed is not None:
        return f"{placed['subject'][:1].upper()}{placed['subject'][1:]}"
    found = _INVERTED.match(sentence)
    if found is None:
        return sentence
    return f"{found['subject']} {past_tense(found['verb'])}{found['rest']}"


_PLACE_INVERTED = re.compile(
    r"^(?:Over|Above|Below|Beside|Across|Along|Beyond|Behind|Near|Opposite|Upon|On|At|In)\b"
    r"[^,]{1,60},\s*(?:[^,]{1,60},\s*)?(?:stands|stood|lies|lay|rises|rose|sits|sat)\s+"
    r"(?P<subject>(?:the\s+)?[A-Z][\w'’-]*(?:\s+[\w'’-]+){0,4},\s+[a-z]+ed\s+by\b.+)$"
)
"""A fronted place with the subject after its verb of standing, described by a participle
("Over the Tarrow, a mile below the weir, stands the Quenell footbridge, designed by Iris
Bancroft ..."): read from the subject on ("The Quenell footbridge, designed by ...")."""
