"""Offline relation extraction: copular, verb and preposition patterns over sentences.

The more explicit the pattern, the higher the confidence: a definition (``X is a Y``) 0.9, a
plain verb (``X uses Y``) 0.8, an apposition (``X, the chief engineer, ...``) 0.8, a passive
with its agent (``X was designed by Y``, ``X was in fact made by Y``; ``X is the work of Y``:
made by Y) or a preposition (``X was demolished in 1962``, ``X was set up in 1974``, ``X was
sold to Y``) 0.7, any other verb right after the subject (``X founded Y``, ``X feed on Y``; a
capitalised word is a name's, not a verb) 0.6, a hedged verb (``X can use Y``) lower, a
preposition between named things (``AES in OCB mode``) 0.55 and between common nouns 0.35. A
list of objects (``X burns A, B and C``) gives one relation per item, and so do subjects
sharing a verb (``A, B and C support X``). A negated clause states nothing (``X does not
support Y``), nor a refused or planned deed (``X declined to build Y``, ``Y was to have been
built by X``), nor one only tried or claimed (``Y failed to build X``, ``Y's attempt to build
X failed``: what the clause says of the attempt is read, not the deed); the clauses beside it
are read, one ending in "instead" does the deed denied before it, and "the viaduct" there is
the "Kellow viaduct" denied. A place after "by" is no agent when a name's "by" follows it
("built by the old ford by Y"). A relaxed pass, for a revision of an empty extraction, also
reads any third-person verb between two noun phrases (0.45).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from teams.extraction.documents import LIST_JOIN
from teams.language.values import values_in
from teams.language.verbs import IRREGULAR, lemma

__all__ = [
    "PARTICIPLE",
    "Reading",
    "heading_readings",
    "infinitive",
    "looks_like_verb",
    "noun_phrases",
    "read_sentence",
    "whole_noun_phrases",
    "with_subject",
]

_VERBS = """uses stores keeps holds contains includes runs calls returns reads writes saves
loads sends receives creates builds wraps checks validates records reports raises emits takes
gives produces needs requires supports provides extends implements replaces answers follows
opens starts stops caps limits encrypts decrypts seals indexes embeds searches finds routes
dispatches merges compiles lists prints shows defines has retries resumes pauses approves
rejects edits marks drops filters counts measures tracks exports imports accepts refuses
becomes enables describes names cites splits joins plans reviews executes invokes passes
""".split()
_PHRASAL = ["depends on", "relies on", "belongs to", "refers to", "points to", "consists of"]
_HEDGES = {
    "can": 0.15,
    "will": 0.1,
    "shall": 0.1,
    "must": 0.1,
    "may": 0.25,
    "might": 0.25,
    "could": 0.25,
    "should": 0.2,
}
_REFUSED = (
    r"(?:refused|refuses|declined|declines|turned\s+down|turns\s+down|rejected|rejects)"
    r"(?:\s+[a-z'’-]+){0,3}?\s+to\s+(?!(?:the|a|an|his|her|its|their|him|them)\b)[a-z]+"
)
"""A refusal of a deed: "declined to build", "turned down the commission to design"."""
_PLANNED = (
    r"(?:is|are|was|were)\s+(?:to\s+have\s+been|(?:meant|supposed|intended|due|planned)"
    r"\s+to\s+(?:be|have))"
)
"""A deed planned, not done: "was to have been designed by", "was meant to be built by"."""
_TRIED = (
    r"(?:failed|fails|tried|tries|attempted|attempts|sought|seeks|offered|offers|promised|"
    r"promises)\s+to\s+(?!(?:the|a|an|his|her|its|their|him|them)\b)[a-z]+"
)
"""A deed tried or offered, not done: "failed to build", "tried to design"."""
_INTENDED = (
    r"(?:'s|’s|\bhis|\bher|\btheir|\bits|\bthe|\ban?)\s+(?:[a-z]+\s+)?"
    r"(?:attempts?|claims?|bids?|efforts?|plans?|proposals?|offers?|hopes?|ambitions?)"
    r"(?:\s+by\s+[^,;]+?)?\s+to"
)
"""A deed only tried, planned or claimed, named by a noun: "Y's attempt to build X", "an offer
by Y to design X", "his claim to have built X"."""
_INTENDED_DEED = re.compile(
    r"(?P<noun>(?:'s|’s)\s+(?:[a-z]+\s+)?(?:attempts?|claims?|bids?|efforts?|plans?|proposals?|"
    r"offers?|hopes?|ambitions?))\s+to\s+[a-z]+\s+[^,;]+?"
    r"(?=\s+(?:was|were|is|are|has|had|failed|fails|collapsed|fell|came|ended|proved)\b)"
)
"""A noun of a deed only tried or claimed, its infinitive, and the main verb after it: "Y's claim
to have built X was disproved"."""
_NEGATIONS = re.compile(
    r"\b(?:not|never|no longer|cannot|can't|doesn't|don't|isn't|aren't|wrongly|falsely|"
    r"mistakenly|erroneously|incorrectly|neither|(?:would|could|might|should)\s+have|"
    r"den(?:y|ies|ied|ying)|"
    rf"{_REFUSED}|{_PLANNED}|{_TRIED}|{_INTENDED})\b"
)
"""Words that deny what their clause says ("is wrongly credited with building X": he did not;
"he would have built X", "declined to build X", "X was to have been built by": the deed did not
happen; "denied having designed X": the doer says it did not)."""
_CLAUSE_JOIN = re.compile(
    r"\s*;\s*|,\s*(?:but|while|whereas|although|though|yet)\s+|\s+but\s+", re.IGNORECASE
)
"""Between two clauses a negation may stand in only one of."""
_PRONOUN_OPENING = re.compile(r"^(?:it|they|he|she)\b", re.IGNORECASE)
_BEFORE_NEGATION = frozenset(
    "does do did is are was were has have had can could will would should may might must".split()
)
_DETERMINERS = frozenset(
    "the a an each every its their this these those our your his her any all some both such "
    "my one another".split()
)
_PRONOUNS = frozenset(
    "it its itself they them themselves this that these those which who we you us he him she "
    "her i there here what something anything everything nothing".split()
)
_FUNCTION_WORDS = frozenset(
    "and or but if so to of in on at by for with from as is are was were be been than then "
    "not no also only just when while where which that who".split()
)
_BOUNDARY = re.compile(
    r"\s*(?:[,;:()]|\s-\s|\s—\s|\b(?:and|or|but|which|that|who|when|where|while|if|because|"
    r"so|to|for|with|from|by|before|after|until|than|as|into|without|through|on|at|per|via|"
    r"unless|whether|once|in|of|such|like|up|including|using|across|between|over|under|within|"
    r"about|during|again|only)\b)",
    re.IGNORECASE,
)
_SUBJECT_BOUNDARY = re.compile(
    r"[,;:()]|\s-\s|\b(?:and|or|but|if|when|while|because|so|that|which|who|whose|where)\b",
    re.IGNORECASE,
)
_MAX_WORDS = 4
_AUXILIARIES = frozenset("is are was were be been being has have had".split())
_EDGE_PUNCTUATION = ".,;:!?\"'()[]"


@dataclass(frozen=True)
class Reading:
    """A relation read from a sentence, with the type the sentence gives its subject."""

    subject: str
    predicate: str
    object: str
    confidence: float
    subject_type: str = ""
    clause: str = ""
    """The clause it was read from, when a negated clause beside it must not be quoted."""


def _forms(verb: str) -> tuple[str, str]:
    """The third-person and plural forms of a verb given in the third person."""
    if verb.endswith("ies"):
        return verb, verb[:-3] + "y"
    if verb.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return verb, verb[:-2]
    return verb, verb[:-1]


def _verb_table() -> dict[str, tuple[str, str]]:
    """Every form of every verb -> its third-person and plural (base) forms."""
    table = {"has": ("has", "have"), "have": ("has", "have")}
    for verb in _VERBS:
        forms = _forms(verb)
        table.update(dict.fromkeys(forms, forms))
    for phrase in _PHRASAL:
        head, rest = phrase.split(" ", 1)
        third, base = (f"{form} {rest}" for form in _forms(head))
        table.update(dict.fromkeys((third, base), (third, base)))
    return table


_VERB_TABLE = _verb_table()
_VERB = re.compile(
    r"\b(?:(?P<hedge>"
    + "|".join(_HEDGES)
    + r")\s+)?(?P<verb>"
    + "|".join(sorted(map(re.escape, _VERB_TABLE), key=len, reverse=True))
    + r")\b",
    re.IGNORECASE,
)
_COORDINATED = re.compile(
    r"^(?:\s*,?\s*(?:(?:and|or)\s+)?(?:"
    + "|".join(sorted(map(re.escape, _VERB_TABLE), key=len, reverse=True))
    + r")\b)+",
    re.IGNORECASE,
)
"""Verbs coordinated after the first (``approves, edits or rejects``): they share its object."""
_COPULA = re.compile(
    r"\b(?P<verb>is|are|was|were|(?:has|have|had|having)\s+been)\s+(?P<rest>.+)$", re.IGNORECASE
)
"""A copula, a perfect "had been" too ("whose architect had been Lydia Cole"), and "having been"
("The Sarn causeway having been built by Griffith Rhys in 1790, ...")."""
_NOT_DONE = (
    r"(?:nearly|hardly|barely|scarcely|possibly|conceivably|allegedly|supposedly|reportedly|"
    r"purportedly|reputedly|wrongly|falsely|mistakenly|erroneously|incorrectly)"
)
_ADVERB = (
    r"(?:(?:only|mainly|first|still|also|now|largely|mostly|often|usually|widely|once|later|"
    r"originally|actually|indeed|in\s+fact|(?:(?:almost|most|very|quite)\s+)?"
    rf"(?!{_NOT_DONE}\b)[a-z]{{3,}}ly)\s+)?"
)
"""An adverb before a participle ("almost certainly designed"), none that says the deed may not
have been done ("nearly destroyed", "possibly designed")."""
_IRREGULAR = sorted(set(IRREGULAR) - {"was", "were", "been", "had", "did", "done", "said"})
PARTICIPLE = rf"(?:[a-z]+(?:ed|en)|(?:re|un|over|up)?(?:{'|'.join(_IRREGULAR)}))"
"""A past participle, for patterns: "designed", "built", "rebuilt"."""
_PASSIVE = re.compile(
    rf"^{_ADVERB}(?P<verb>{PARTICIPLE})\s+"
    rf"(?:(?P<particle>up|down|out|off|over|back|away)\s+)?{_ADVERB}"
    r"(?P<prep>by|in|at|on|of|near|from|for|into|with|under|beside|across|to|between)\s+"
    r"(?P<rest>.+)$",
    re.IGNORECASE,
)
"""A passive and its preposition: "designed by", "set up in", "sold to", "built of"."""
_NAME = r"[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3}"
_ROLE = r"(?:the|a|an)\s+[^,;]+?|[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}\s+of\s+[^,;]+?"
"""A role: "the chief engineer", "a retired sea captain", "curator of the Pym collection"."""
_APPOSITIONS = (
    re.compile(rf"^(?P<name>{_NAME}),\s+(?P<role>{_ROLE}),\s+(?P<rest>.+)$"),
    re.compile(
        rf"^(?P<role>(?:The|A|An|Our|Its|Their|His|Her|My|Your)\s+[^,]+?),\s+"
        rf"(?P<name>(?:the\s+)?{_NAME}(?:\s+[a-z]+)?),\s+(?P<rest>[a-z].+)$"
    ),
    re.compile(
        rf"^(?P<role>(?:The|A|An|Our|Its|Their|His|Her|My|Your)\s+[^,—–]+?)\s+(?P<dash>[—–]|--)\s+"
        rf"(?P<name>(?:the\s+)?{_NAME})\s+(?P=dash)\s+(?P<rest>[a-z].+)$"
    ),
    re.compile(rf"(?<=\s)(?P<name>{_NAME}),\s+(?P<role>{_ROLE})\s*[.!?]?$"),
    re.compile(
        rf"(?<=\s)(?P<role>(?:the|a|an)\s+[^,;]+?|[A-Z][\w'-]*'s\s+[^,;]+?),\s+(?P<name>{_NAME})"
        r"\s*[.!?]?$"
    ),
)
"""A name and its role set off by commas: the name first ("Mara Quill, the city's chief
engineer, approved ..."), the role first ("The club's treasurer, Ivo Brandt, signed ...", or
set off by dashes: "The club's treasurer — Ivo Brandt — signed ..."), or
both ending the sentence, either first ("... by Ivo Brandt, the club's treasurer.", "... by the
club's treasurer, Ivo Brandt.")."""
_MAX_ROLE_WORDS = 8
_PREPOSITIONS = frozenset(
    "on in at to from with into near for about through across over under onto upon".split()
)
_PREPOSITION = re.compile(
    r"(?P<left>(?:[\w.\-/]+\s){0,1}[\w.\-/]+)\s+(?P<prep>of|in)\s+(?:the\s+|a\s+|an\s+)?"
    r"(?P<right>[\w.\-/]+(?:\s[\w.\-/]+)?)"
)
_ANY_VERB = re.compile(r"\b(?P<verb>[a-z]{3,}[^s\W]s)\b")


def _phrase(words: list[str], *, numbers: bool = False) -> str:
    """A noun phrase from words: leading determiners dropped, edge punctuation stripped; one
    opening with a figure only when ``numbers`` (a year, "40 cars")."""
    words = [w.strip(_EDGE_PUNCTUATION) for w in words]
    while words and words[0].lower() in _DETERMINERS:
        words = words[1:]
    words = [w for w in words if w]
    lowered = [w.lower() for w in words]
    cut = next((i for i, w in enumerate(lowered) if i and w in _PRONOUNS), len(words))
    words, lowered = words[:cut], lowered[:cut]  # "the plan she wants": the plan
    while lowered and lowered[-1] in _AUXILIARIES:  # "Ida Crane was (born)": Ida Crane
        words, lowered = words[:-1], lowered[:-1]
    if not words or lowered[0] in _PRONOUNS | _FUNCTION_WORDS:
        return ""
    if words[0][0].isdigit() and not numbers:
        return ""
    if any(_VERB_TABLE.get(w, ("",))[0] == w for w in lowered[:-1]):  # a clause: "builds the"
        return ""
    if all(w in _FUNCTION_WORDS | _DETERMINERS for w in lowered):
        return ""
    return " ".join(words)


_PART_OF = re.compile(
    r"^(?:(?:the|a|an)\s+)?(?P<part>(?:[a-z][\w'-]*\s+){0,2}[a-z][\w'-]*)\s+of\s+"
    r"(?P<whole>(?:(?:the|a|an)\s+)?(?:[A-Z][\w'.-]*\s+){1,3}[a-z][\w'-]*)$",
    re.IGNORECASE,
)
"""A subject that is a part of a named thing: "the west wing of the Halden infirmary"."""


def _subject(left: str) -> str:
    """The noun phrase that ends ``left`` (what comes before the verb): a part of a named
    thing whole ("west wing of the Halden infirmary"), else at most four words."""
    clause = _SUBJECT_BOUNDARY.split(left)[-1]
    if part := _PART_OF.match(clause.strip()):
        whole = part["whole"].split()
        if _phrase(part["part"].split()) and _named(" ".join(whole), clause):
            return _phrase([*part["part"].split(), "of", *whole])
    words = clause.split()
    if not words or len(words) > _MAX_WORDS + 2:
        return ""
    return _phrase(words[-_MAX_WORDS:])


def _object(right: str, *, numbers: bool = False) -> str:
    """The noun phrase that starts ``right`` (what comes after the verb)."""
    head = _BOUNDARY.split(right, maxsplit=1)[0]
    return _phrase(head.split()[:_MAX_WORDS], numbers=numbers)


def _objects(right: str, *, numbers: bool = False) -> list[str]:
    """The noun phrases that start ``right``: each item of a list ("A, B and C"), else one."""
    head = _LIST_BOUNDARY.split(right, maxsplit=1)[0]
    items = [item for item in _LIST_SEPARATOR.split(head) if item.strip()]
    if len(items) > 1:
        phrases = [_phrase(item.split(), numbers=numbers) for item in items]
        places = [item.split()[0].lower() in _PLACING for item in items]  # "above the harbour"
        spans = [_span_of_time(item) for item in items[1:]]  # "the tower, twenty years after"
        short = all(len(i.split()) <= _MAX_WORDS for i in items)
        deeds = any(map(_second_deed, items[1:]))  # "York and opened a bank": a second verb
        if all(phrases) and not any(places) and not any(spans) and short and not deeds:
            return phrases
    first = _object(right, numbers=numbers)
    return [first] if first else []


def _second_deed(item: str) -> bool:
    """Whether a list's item is a second verb and its object ("opened a bank"), not a thing."""
    words = item.lower().split()
    return len(words) > 1 and _participle(words[0]) and words[1] in _DETERMINERS


def _span_of_time(item: str) -> bool:
    """Whether a list's item is a span of time ("twenty years"), which dates the clause."""
    return any(value.key == "duration" for value in values_in(item))


_LIST_BOUNDARY = re.compile(
    r"\s*(?:[;:()]|\s-\s|\s—\s|\b(?:but|which|that|who|when|where|while|if|because|so|to|"
    r"for|with|from|by|before|after|until|than|as|into|without|through|on|at|per|via|unless|"
    r"whether|once|in|of|such|like|up|including|using|across|between|over|under|within|about|"
    r"during|again|only)\b)",
    re.IGNORECASE,
)
_PLACING = frozenset("above below beside behind beyond along around near inside outside".split())
"""Prepositions that open a place after a comma ("on Carn Hill, above the harbour"), not an
item of a list."""
_LIST_SEPARATOR = re.compile(r"\s*,(?!\d)\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)
"""Between the items of a list: a comma (not one inside a figure, "4,980"), "and", "or"."""


def _named(phrase: str, sentence: str) -> bool:
    """Whether a phrase names something: an acronym, a code name, a capital not opening the
    sentence."""
    for word in phrase.split():
        if re.search(r"[A-Z]{2,}|[\d_./]", word):
            return True
        if word[:1].isupper() and not sentence.startswith(word):
            return True
    return False


def _copular(sentence: str) -> list[Reading]:
    match = _COPULA.search(sentence)
    subject = _subject(sentence[: match.start()]) if match else ""
    if match is None or not subject:
        return []
    readings = _copular_objects(subject, match.group("verb").lower(), match.group("rest"))
    owner, _, attribute = subject.partition("'s ")
    if not attribute or not owner or any(r.predicate not in ("is", "is a") for r in readings):
        return readings  # "Y's claim was disproved by Z": not Y's claim is Z
    # "The museum's founder was Henry Coll": the museum's founder is Henry Coll
    return [Reading(owner, f"'s {attribute} is", r.object, r.confidence) for r in readings]


def infinitive(text: str) -> bool:
    """Whether ``text``, after "to", opens an infinitive ("carry coal"), not a noun phrase
    ("the town", "Ruth Kemble"): a lower-case word that is no determiner."""
    following = text.split(maxsplit=1)[0] if text.split() else ""
    return following.isalpha() and following.islower() and following not in _DETERMINERS


_YEARS_BETWEEN = re.compile(r"(?:1\d{3}|20\d{2})\s+and\s+(?:1\d{3}|20\d{2})\b")
"""The span of a passive "between 1650 and 1653", read whole."""
_YEAR_AFTER = re.compile(r"\bin\s+(?P<year>1\d{3}|20\d{2})\b")
"""A year the passive's phrase goes on to date it by."""


_PROGRESSIVE = re.compile(r"^being\s+(?=[a-z]+\s)")
"""A passive in progress ("was being built by Y"): the deed is Y's."""
_PLACE_BEFORE_AGENT = re.compile(r"(?:the|a|an)\s+[a-z][^,;]*?\s+by\s+(?=[A-Z])")
"""A place after "by" ("by the old ford"), then the agent's own "by" and a name."""


def _passive(subject: str, passive: re.Match[str]) -> list[Reading]:
    verb = " ".join(filter(None, passive.group("verb", "particle"))).lower()
    prep, rest = passive["prep"].lower(), _own_part(passive["rest"])
    second = passive["rest"][len(rest) :]
    also = _NEXT_DEED.match(second)  # "... and opened in 1911": the subject was opened too
    deed = second[also.start("word") :] if also else ""
    readings_after = [  # quoted without the first deed's doer: "X … built by Y in 1902."
        replace(r, clause=r.clause or f"{subject}{LIST_JOIN}{deed}")
        for r in (read_sentence(f"{subject} was {deed}") if also else [])
    ]
    if prep == "by" and (place := _PLACE_BEFORE_AGENT.match(rest)):
        rest = rest[place.end() :]  # "built by the old ford by Jane Tilly": by Jane Tilly
    if prep == "to" and infinitive(rest):
        return []  # "was used to carry coal": not a receiver
    span = _YEARS_BETWEEN.match(rest) if prep == "between" else None
    things = [span.group(0)] if span else _objects(rest, numbers=prep != "by")
    readings = [Reading(subject, f"{verb} {prep}", thing, 0.7) for thing in things]
    dated = _YEAR_AFTER.search(rest)
    if dated and dated.group("year") not in things:  # "rebuilt in stone in 1855": in 1855 too
        readings.append(Reading(subject, f"{verb} in", dated.group("year"), 0.7))
    agent = re.search(r"\bby\s+(?P<agent>.+)$", rest)
    if prep != "by" and agent:  # "was painted in 1968 by Lucy Harle": by Lucy Harle too
        agents = _objects(agent.group("agent"))
        readings += [Reading(subject, f"{verb} by", thing, 0.7) for thing in agents]
    return readings + readings_after


_NEXT_DEED = re.compile(r",?\s+and\s+(?:was\s+|were\s+)?(?P<word>[a-z]+)\b")


def _own_part(rest: str) -> str:
    """What follows a passive verb up to a second participle it is coordinated with ("Iris
    Bancroft" of "Iris Bancroft and opened in 1911"): that one's objects and year are not
    the first verb's."""
    for found in _NEXT_DEED.finditer(rest):
        if _participle(found["word"]):
            return rest[: found.start()]
    return rest


_WORK_OF = re.compile(
    r"the\s+(?P<work>work|brainchild|invention|creation)\s+of\s+(?P<maker>.+)$", re.IGNORECASE
)
"""Who made or thought of a thing: "is the work of the sculptor Lena Voss", "was the
brainchild of Agnes Fell"."""
_WORK_DEED = {"work": "made", "brainchild": "conceived", "invention": "invented"}
"""The deed each noun of a work names ("creation": "created")."""


_BY_MAKER = re.compile(r"by\s+(?P<maker>[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|de|van|von))*)")
"""A work said to be by its maker, named in capitals: "The Garrow lion fountain is by Nell
Tasker and dates from 1874." (what follows the name is no maker)."""


def _made_by(rest: str) -> str:
    """``rest`` with "the work of Y" or "by Y" put as the passive "made by Y", "the brainchild
    of Y" as "conceived by Y" (not "the work of ten years")."""
    if by := _BY_MAKER.match(rest):
        return f"made by {by['maker']}"
    work = _WORK_OF.match(rest)
    makers = _objects(work["maker"]) if work else []
    if not work or not makers or values_in(makers[0]):
        return rest
    return f"{_WORK_DEED.get(work['work'].lower(), 'created')} by {work['maker']}"


def _copular_objects(subject: str, verb: str, rest: str) -> list[Reading]:
    passive = _PASSIVE.match(_made_by(_PROGRESSIVE.sub("", rest, count=1)))
    if passive:
        return _passive(subject, passive)
    article = re.match(r"(?:(an?)|the)\s+", rest, re.IGNORECASE)
    thing = _object(rest[article.end() :] if article else rest)
    if not thing and article is not None:
        return []
    if article is None:  # "Workers are functions": a plural noun, read as a kind
        plural = bool(thing) and verb in ("are", "were") and thing.endswith("s")
        if plural:
            return [Reading(subject, "is a", thing, 0.6)]
        bare = _object(rest, numbers=True)  # "The lifeboat is orange", "is 30 metres tall"
        # a value or a name ("is Henry Coll"), not any word ("is rebuilt", "is ready")
        fit = bare and (values_in(bare) or all(word[:1].isupper() for word in bare.split()))
        return [Reading(subject, "is", bare, 0.6)] if fit else []
    if article.group(1):
        return [Reading(subject, "is a", thing, 0.9, subject_type=thing.split()[-1])]
    return [Reading(subject, "is", thing, 0.85)]


def _verbal(sentence: str, pattern: re.Pattern[str], base: float) -> list[Reading]:
    for match in pattern.finditer(sentence):
        before = sentence[: match.start()].split()
        if not before or before[-1].lower() in _DETERMINERS | _FUNCTION_WORDS:
            continue  # "the reviews": a noun, not a verb
        subject = _subject(sentence[: match.start()])
        rest = sentence[match.end() :]
        coordinated = _COORDINATED.match(rest)
        things = _objects(rest[coordinated.end() if coordinated else 0 :], numbers=True)
        if not subject or not things:
            continue
        verb = match.group("verb").lower()
        third, plain = _VERB_TABLE.get(verb, (verb, verb))
        hedge = (match.groupdict().get("hedge") or "").lower()
        predicate = f"{hedge} {plain}" if hedge else third  # "can use", "uses"
        confidence = round(base - _HEDGES.get(hedge, 0.0), 2)
        return [Reading(subject, predicate, thing, confidence) for thing in things]
    return []


def _participle(word: str) -> bool:
    """Whether ``word`` is a past participle ("designed", "built", "rebuilt")."""
    return re.sub(r"^(?:re|un|over|up)", "", word) in _IRREGULAR or (
        word.endswith("ed") and len(word) > 4
    )


def looks_like_verb(word: str, following: str) -> bool:
    """Whether ``word``, right after a subject, reads as its verb: a past or third-person form,
    or any word followed by a preposition ("nest on")."""
    if not word.isalpha() or word in _FUNCTION_WORDS | _DETERMINERS | _PRONOUNS:
        return False
    if _participle(word):
        return True
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return True
    return following in _PREPOSITIONS


_BASES = frozenset(IRREGULAR.values()) | {plain for _, plain in _VERB_TABLE.values()}
_AFTER_PARTICIPLE = _PREPOSITIONS | {"by", "of", "as", "up", "down", "out", "off", "back", "away"}


def with_subject(sentence: str, subject: str) -> str:
    """``sentence`` with ``subject`` put before it when it opens with its predicate, as under a
    heading that names what it is about: a participle and a preposition ("Founded in 1990 by
    Jane Roe.": ``subject`` was founded ...) or a verb in the third person, one the patterns
    know ("Grinds oats.") or one before a determiner or a figure ("Carries a tramway"); ""
    when it does not open so."""
    first, _, rest = sentence.partition(" ")
    word = first.lower()
    following = rest.split(maxsplit=1)[0].lower().strip(_EDGE_PUNCTUATION) if rest else ""
    if not first[:1].isupper() or not word.isalpha() or not following:
        return ""
    if _participle(word) and following in _AFTER_PARTICIPLE:
        return f"{subject} was {word} {rest}"
    known = _forms(word)[1] in _BASES or following in _DETERMINERS or following[:1].isdigit()
    if word.endswith("s") and known:  # "Grinds oats", "Carries a tramway", "Seats 400"
        return f"{subject} {word} {rest}"
    return ""


def _general(sentence: str) -> list[Reading]:
    """Any verb right after the sentence's subject: ``Tamsin Reed founded the Lumen Press``,
    ``Puffins nest on the cliffs`` (predicate ``nest on``); never a word in parentheses."""
    words = sentence.split()
    names = _opening_names(words)
    depth = 0  # inside parentheses: "Ardle bridge (Jonas Reed, 1820)" holds no verb
    for index in range(1, min(max(_MAX_WORDS + 2, len(names) + 1), len(words) - 1)):
        opened = depth > 0 or words[index].startswith("(")
        depth += words[index].count("(") - words[index].count(")")
        if opened:
            continue
        word = words[index].lower().strip(_EDGE_PUNCTUATION)
        following = words[index + 1].lower().strip(_EDGE_PUNCTUATION)
        if words[index - 1].endswith((",", ";", ":")) and index > len(names):
            return []
        if words[index][:1].isupper() or not looks_like_verb(word, following):
            continue  # a capital is a name's ("the Northern Rivers Authority manages")
        listed = whole_noun_phrases(" ".join(words[:index])) if index <= len(names) else []
        subject = listed[-1] if len(listed) > 1 else _phrase(words[:index])
        if not subject:
            return []
        rest = " ".join(words[index + 1 :])
        predicate = word
        if following in _PREPOSITIONS:
            predicate, rest = f"{word} {following}", " ".join(words[index + 2 :])
        things = _objects(rest, numbers=True)
        return [Reading(subject, predicate, thing, 0.6) for thing in things]
    return []


def _opening_names(words: list[str]) -> list[str]:
    """The words of the list of names a sentence opens with ("Pell, Ansty and Croft"), whose
    commas do not end its subject; [] when it opens otherwise."""
    listed = []
    for word in words[:-1]:
        if not (word[:1].isupper() or word in ("and", "or")):
            break
        listed.append(word)
    return listed if any(word.endswith(",") for word in listed) else []


def _content_tail(words: list[str]) -> list[str]:
    """The last words of ``words`` that are neither function words nor determiners."""
    tail: list[str] = []
    for word in reversed(words):
        if word.lower() in _FUNCTION_WORDS | _DETERMINERS | _PRONOUNS:
            break
        tail.insert(0, word)
    return tail


def _prepositions(sentence: str) -> Iterator[Reading]:
    for match in _PREPOSITION.finditer(sentence):
        left = _phrase(_content_tail(match.group("left").split()))
        first, *second = match.group("right").split()
        right = _phrase([first, *second] if _named(first, sentence) else [first])
        if not left or not right or left.lower() in _VERB_TABLE or right.lower() in _VERB_TABLE:
            continue
        named = _named(left, sentence) and _named(right, sentence)
        yield Reading(left, match.group("prep"), right, 0.55 if named else 0.35)


_LEADING_CLAUSE = re.compile(
    r"^(?:(?:[A-Z][a-z]+(?:ed|en)|"
    + "|".join(word.capitalize() for word in _IRREGULAR)
    + r")(?=\s+[a-z\d])|In|On|At|After|Before|During|Since|From|Despite|Although|Once|Like|"
    r"Unlike|Today|Now|Later|Originally)\b[^,;]{0,60},\s+(?=[A-Za-z])"
    r"|^(?:In|On|By|Until|Since)\s+(?:[A-Z][a-z]+\s+)?(?:1\d{3}|20\d{2})\s+(?=[A-Z]|the\s)"
    r"|^(?:[Ii]nstead|[Hh]owever|[Rr]ather(?! than)|[Ii]n fact|[Aa]ctually),?\s+(?=[A-Za-z])"
)
"""A clause that opens a sentence before its subject: "Built in 1890, ", "In 1911, ", or a
year without a comma before a name or "the" ("In 1881 Ann Roe ...", "By 1850 the mill ..."); a
participle only before a word in
lower case or a figure, not a name that ends like one ("Ellen Marsh built ...")."""


def noun_phrases(text: str) -> list[str]:
    """The noun phrases that open ``text``: each item of a list ("A, B and C"), else one."""
    return _objects(text, numbers=True)


def whole_noun_phrases(text: str) -> list[str]:
    """The noun phrases ``text`` consists of ("Amos Tull", "bells, pans and stoves", "the
    Bank of England"); [] when it says more than that (a clause: "run it twice")."""
    items = [item.split() for item in _LIST_SEPARATOR.split(text) if item.strip()]
    phrases = [_phrase(item[: _MAX_WORDS + 1], numbers=True) for item in items]
    whole = all(
        phrase
        and len(item) <= _MAX_WORDS + 1
        and phrase.endswith(item[-1].strip(_EDGE_PUNCTUATION))
        for phrase, item in zip(phrases, items, strict=True)
    )
    return phrases if whole else []


_BESIDE_ITS_ROLE = re.compile(
    r"^(?P<owner>(?:(?:the|a|an)\s+)?[A-Z][^,;]*?)\s+and\s+(?:its|their|his|her)\s+"
    r"(?P<head>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2})$",
    re.IGNORECASE,
)
"""A role given beside its owner: "the Marrow lighthouse and its builder"."""


def _role_readings(name: str, role: str) -> list[Reading]:
    """What an apposition says of ``name``: it is the role ("the city's chief engineer"), and
    a role of something is that thing's ("the treasurer of the club", "the club's treasurer":
    the club's treasurer is ``name``)."""
    words = role.split()
    said = _phrase(words[:_MAX_ROLE_WORDS] if len(words) > _MAX_ROLE_WORDS else words)
    if not said:
        return []
    if beside := _BESIDE_ITS_ROLE.match(role):  # "X and its builder, Y": X's builder is Y
        owner = _phrase(beside["owner"].split())
        return [Reading(owner, f"'s {beside['head']} is", name, 0.8)] if owner else []
    readings = [Reading(name, "is", said, 0.8)]
    head, of, owner = said.partition(" of ")
    if not of:  # "the club's treasurer"
        owner, of, head = said.partition("'s ")
    owners = whole_noun_phrases(owner) if of and len(head.split()) <= _MAX_WORDS - 1 else []
    if len(owners) == 1:
        readings.append(Reading(owners[0], f"'s {head} is", name, 0.8))
    return readings


_HEADING_APPOSITION = re.compile(
    rf"^(?P<name>{_NAME}),\s+(?P<role>(?:the\s+)?[a-z][\w'-]*(?:\s+[a-z][\w'-]*){{0,2}}\s+of\s+"
    r"[^,]+)(?:,\s.*)?$"
)
"""A heading that names someone and their role of something ("Ada Wolfe, maker of the Netley
clock"), a headline's news after it ("..., dies at 88") aside."""


def heading_readings(heading: str) -> list[Reading]:
    """What a heading in apposition says: "Ada Wolfe, maker of the Netley clock" that Ada Wolfe
    is its maker; [] for any other heading."""
    found = _HEADING_APPOSITION.match(heading.strip(" #:.*"))
    name = _phrase(found["name"].split()) if found else ""
    return _role_readings(name, found["role"]) if found and name else []


def _apposition(sentence: str) -> tuple[list[Reading], str]:
    """What the sentence's apposition says, and the sentence without its role ("Mara Quill
    approved ..."); ``([], sentence)`` when it has none."""
    for pattern in _APPOSITIONS:
        found = pattern.search(sentence)
        if found is None:
            continue
        rest = found.groupdict().get("rest")
        if rest is None and re.search(r"\b(?:and|or)\b", found.group("role")):
            continue  # "supports Python, the JVM and Go": a list, not a role
        name = _phrase(found.group("name").split())
        role = _role_readings(name, found.group("role")) if name else []
        if role:
            return role, _without_role(sentence, found)
    return [], sentence


def _without_role(sentence: str, found: re.Match[str]) -> str:
    """The sentence with the name in place of its apposition ("Mara Quill approved ...", "...
    by Ivo Brandt.")."""
    name, rest = found.group("name"), found.groupdict().get("rest")
    if rest:
        return f"{name} {rest}"
    if found.start("role") < found.start("name"):  # "by the club's treasurer, Ivo Brandt."
        return f"{sentence[: found.start('role')]}{name}."
    return f"{sentence[: found.end('name')]}."


_NAME_AND_CLAUSE = re.compile(r"[A-Z][\w'’-]*(?:\s+[a-z][\w'’-]*){3,}\s*$")
"""A name and three words in lower case after it: a clause ("Eli Dunn both drew plans"), not
one of the subjects of a list."""


def _each_subject(sentence: str, main: list[Reading], *, respective: bool = False) -> list[Reading]:
    """The main readings once for each subject that shares their verb ("Quill, Marlin and
    Sedge support X": three); as they are when the subject is one ("A or B" is not both). With
    ``respective`` ("A and B read X and Y respectively"), the subjects and the things pair in
    order, and none when their numbers differ."""
    subject = main[0].subject if main else ""
    at = sentence.find(subject)
    opening = sentence[: at + len(subject)] if subject and at >= 0 else ""
    subjects = [] if re.search(r"\bor\b", opening) else whole_noun_phrases(opening)
    if len(subjects) < 2 or any(_NAME_AND_CLAUSE.search(s) for s in _LIST_SEPARATOR.split(opening)):
        return main
    shared = [reading for reading in main if reading.subject == subject]
    others = [reading for reading in main if reading.subject != subject]
    if respective:  # the numbers differ: which goes with which is not said
        if len(subjects) != len(shared):
            return others
        return [replace(r, subject=one) for one, r in zip(subjects, shared, strict=True)] + others
    return [replace(r, subject=one) for one in subjects for r in shared] + others


_RESPECTIVELY = re.compile(r",?\s+respectively\b", re.IGNORECASE)
"""Subjects and things paired in order: "A and B were designed by X and Y respectively"."""


def _position(sentence: str, phrase: str) -> int:
    at = sentence.find(phrase)
    return at if at >= 0 else len(sentence)


def _subject_before(clause: str, negation: re.Match[str]) -> str:
    """The subject of a negated clause: the noun phrase before its negation and auxiliary
    ("Marlin does not support plugins": Marlin)."""
    words = clause[: negation.start()].split()
    while words and words[-1].lower() in _BEFORE_NEGATION:
        words = words[:-1]
    return _phrase(words[-_MAX_WORDS:]) if words else ""


_PASSIVE_PRONOUN = re.compile(
    rf"^(?:it|they)\s+(?:is|are|was|were|had\s+been|has\s+been)\s+(?P<verb>{PARTICIPLE})\s+by\b",
    re.IGNORECASE,
)
"""A clause opening with a pronoun and a passive: "it was built by ..."."""


def _denied_thing(clause: str, negation: re.Match[str], subject: str) -> tuple[str, str]:
    """What a negated clause's verb is done to, and that verb's participle ("Tom Rook could
    not have built the bridge": ("bridge", "built"); "The chapel was to have been designed
    by Hugh Penn": its ``subject``, "designed"), or ("", "")."""
    words = clause[negation.end() :].split()
    if tried := re.search(r"\bto\s+(?P<verb>[a-z]+)$", negation.group()):
        words = [tried["verb"], *words]  # "failed to build the bridge": its verb in the match
    while words and words[0].lower() in _BEFORE_NEGATION | {"be", "have", "been"}:
        words = words[1:]
    verb = words[0].lower() if words else ""
    thing = _object(" ".join(words[1:])) if verb.isalpha() else ""
    if not thing and _participle(verb) and words[1:2] == ["by"]:
        thing = subject  # a passive: the deed was to be done to the subject
    return (thing, verb) if thing else ("", "")


_INSTEAD = re.compile(
    r"(?P<who>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)+)\s+[a-z]+\b[^;]*?\binstead\b\W*$"
)
"""A clause in which a name does instead what was denied: "Clara Wynn drew the plans
instead"."""


def _done_instead(clause: str, denied: tuple[str, str]) -> str:
    """A clause ending in "instead" as the denied deed done by the name it opens with ("the
    chapel was to have been designed by A, but B drew the plans instead": "B designed
    chapel"), or the clause as it is."""
    found = _INSTEAD.search(clause)
    thing, verb = denied
    return f"{found['who']} {verb} {thing}." if found and thing else clause


def _same_verb(participle: str, verb: str) -> bool:
    """Whether ``participle`` is ``verb``'s, or ``verb`` itself ("built" of "build")."""
    return participle in (verb, f"{verb}ed", f"{verb}d") or lemma(participle) == lemma(verb)


def _named_by_head(thing: str, head: str) -> str:
    """``thing`` up to its word ``head`` when a name comes before it ("Kellow viaduct" for
    "viaduct"), or ""."""
    words = thing.split()
    lowered = [word.lower() for word in words]
    at = lowered.index(head) if head in lowered else 0
    return " ".join(words[: at + 1]) if at and words[at - 1][:1].isupper() else ""


def _pronoun_for(clause: str, subject: str, denied: tuple[str, str]) -> str:
    """``clause`` with its opening pronoun as what it stands for: the thing a denied clause
    before did its verb to, when the pronoun suffers that verb ("X could not have built Y; it
    was built by Z": Y), else the subject before ("he" or "she" only a person's name); an
    opening "the viaduct" as the thing denied before when that is named by the same noun
    ("the Kellow viaduct")."""
    passive = _PASSIVE_PRONOUN.match(clause)
    if passive and denied[0] and _same_verb(passive["verb"].lower(), denied[1]):
        return _PRONOUN_OPENING.sub(denied[0], clause, count=1)
    head = _HEAD_OPENING.match(clause)
    if head and (named := _named_by_head(denied[0], head["head"])):
        return f"{named}{clause[head.end() :]}"  # "the viaduct": the Kellow viaduct
    if _PERSONAL.match(clause) and not all(word[:1].isupper() for word in subject.split()):
        return clause  # "he" is no "Sark chapel"
    return _PRONOUN_OPENING.sub(subject, clause, count=1)


_PERSONAL = re.compile(r"^(?:he|she)\b", re.IGNORECASE)
_HEAD_OPENING = re.compile(r"^[Tt]he\s+(?P<head>[a-z]+)\b")
"""A clause opening with a definite noun alone ("the viaduct"), which may name a thing before
by its head ("the Kellow viaduct")."""


_NEITHER_NOR = re.compile(
    r"^[Nn]either\s+.+?\s+nor\s+(?:[A-Z][\w'’-]*\s+)+(?P<deed>[a-z]+\s+.+?)\.?$"
)
"""A deed denied of two: "Neither A nor B signed the petition" (the deed: "signed the
petition")."""
_DENIED_DEED = re.compile(
    r"\bden(?:y|ies|ied|ying)\s+(?:ever\s+)?having\s+(?P<deed>[a-z]+\s+.+?)\.?$"
)
"""A deed its doer denies: "Silas Brand denied having designed the hall" (the deed: "designed
the hall")."""
_DID_TOO = re.compile(
    r"^(?:only\s+)?(?P<who>(?:[A-Z][\w'’-]*\s+)*[A-Z][\w'’-]*)\s+(?:did|had|has)\.?$"
)
"""A clause that does the deed denied before it: "only Cass Wyn did", "Nora Vane had"."""


def _intended_readings(clause: str, relaxed: bool) -> list[Reading]:
    """What a clause says of a deed only tried or claimed, named by its noun ("Y's claim to
    have built X was disproved by Z": Y's claim was disproved by Z), never the deed; [] when
    its clause has no such noun or is negated besides."""
    found = _INTENDED_DEED.search(clause)
    if found is None:
        return []
    noun, rest = clause[: found.end("noun")], clause[found.end() :]
    if _NEGATIONS.search(f"{noun}{rest}".lower()):
        return []
    quoted = f"{noun} … {rest.strip()}"  # the deed left out of the quotation too
    return [replace(r, clause=quoted) for r in read_sentence(f"{noun}{rest}", relaxed=relaxed)]


def _affirmed(sentence: str, relaxed: bool) -> list[Reading]:
    """The relations a negated sentence states in its clauses that are not negated ("Marlin
    does not support plugins, but it supports themes": themes only); a later clause opening
    with a pronoun or its verb is about the subject before it, a passive pronoun about what
    the denied verb was done to (:func:`_pronoun_for`); "only C did" after "neither A nor B"
    did a deed, or "C had" after "A denied having" done it, does that deed."""
    readings: list[Reading] = []
    subject = ""
    denied = ("", "")
    deed = None
    for written in _CLAUSE_JOIN.split(sentence):
        clause = written
        if subject:
            clause = _pronoun_for(clause, subject, denied)
            first, _, after = clause.partition(" ")
            if looks_like_verb(first.lower(), after.split(" ", 1)[0].lower()):
                clause = f"{subject} {clause}"  # "but supports themes"
        negation = _NEGATIONS.search(clause.lower())
        if negation is not None:
            readings += _intended_readings(clause, relaxed)
            subject = _subject_before(clause, negation) or subject
            denied = _denied_thing(clause, negation, subject)
            deed = _NEITHER_NOR.match(clause) or _DENIED_DEED.search(clause)
            continue
        clause = _done_instead(clause, denied)
        done = _DID_TOO.match(clause)
        if done and deed:  # "Neither A nor B signed X; only C did", "A denied it; C had"
            clause = f"{done['who']} {deed['deed']}"
        found = read_sentence(clause, relaxed=relaxed)
        subject = found[0].subject if found else subject
        readings += [replace(reading, clause=written) for reading in found]
    return readings


_TASK = re.compile(r"^\s*\[(?P<done>[ xX])\]\s+")
"""A task list's box: "[x]" before a task done, "[ ]" before one not done."""
_UNDONE = re.compile(r"^\s*had\s+(?P<who>.+?)\s+not\s+(?P<deed>[a-z]+\b.+?),", re.IGNORECASE)
"""A counterfactual on a deed done: "Had Tobias Fenn not built the sluice in 1804, ..." (he built
it)."""
_REDUCED_PASSIVE = re.compile(
    rf"^(?P<subject>(?:[\w'-]+\s+){{1,6}}?)(?P<rest>{PARTICIPLE}\s+by\s+[A-Z].*)$"
)
"""A passive without its verb, as a list item or a caption writes one: "Footbridge over the
Clough built by Tamsin Ord"."""


_CREDITED = re.compile(
    r"^\s*(?P<deed>(?:Added|Fixed|Implemented|Introduced|Wrote|Rewrote|Removed|Created|Built|"
    r"Designed|Made|Contributed|Ported|Improved)\b[^!]*?)\.?\s*(?:\(?(?:Thanks|Thank\s+you|"
    r"Kudos|Credit)(?:\s+(?:to|goes\s+to))?|\(?by)\s+(?P<who>@[\w-]+|[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+)"
    r"(?:\s+in\s+\S+)?\s*[!.)]*\s*$"
)
"""A change credited to who made it, as changelogs write: "Added the `prune` command. Thanks
@jonas-eke!", "Fixed X by @henryiii in https://...": the one thanked made it."""


def _said_plainly(sentence: str) -> str | None:
    """``sentence`` as a plain clause of who did what, when it says so otherwise: a
    counterfactual on a deed done, a change credited to who made it, a passive without its
    verb; None for any other sentence."""
    if undone := _UNDONE.match(sentence):
        return f"{undone['who']} {undone['deed']}."
    if credited := _CREDITED.match(sentence):
        deed = credited["deed"]
        return f"{credited['who']} {deed[0].lower()}{deed[1:]}."
    if not _COPULA.search(sentence) and (reduced := _REDUCED_PASSIVE.match(sentence)):
        return f"{reduced['subject']}was {reduced['rest']}"
    return None


def read_sentence(sentence: str, *, relaxed: bool = False) -> list[Reading]:
    """The relations one sentence states; none that a negation denies ("X does not support
    Y", "X was never owned by Y"), from any of its clauses, nor a task not done ("[ ] Bird hide
    built by Y"); the deed a counterfactual takes as done ("Had Y not built X, ...": Y built
    X); a passive without its verb ("Footbridge over the Clough built by Tamsin Ord"); a change
    credited to who made it ("Added X. Thanks @Y!": Y added X)."""
    if task := _TASK.match(sentence):
        return [] if task["done"] == " " else read_sentence(sentence[task.end() :], relaxed=relaxed)
    if (plain := _said_plainly(sentence)) is not None:
        return read_sentence(plain, relaxed=relaxed)
    if _NEGATIONS.search(sentence.lower()):
        if _CLAUSE_JOIN.search(sentence):
            return _affirmed(sentence, relaxed)
        return _intended_readings(sentence, relaxed)
    readings, sentence = _apposition(sentence)
    sentence = _LEADING_CLAUSE.sub("", sentence, count=1)  # "Built in 1890, the tower ..."
    sentence, respective = _RESPECTIVELY.subn("", sentence, count=1)
    found = [_copular(sentence), _verbal(sentence, _VERB, 0.8), _general(sentence)]
    main = min(  # the main clause: the reading whose subject comes first ("A reviewer
        # approves the plan while the run is paused": the reviewer), the first pattern on ties
        (readings for readings in found if readings),
        key=lambda readings: _position(sentence, readings[0].subject),
        default=[],
    )
    if not main and relaxed:
        main = _verbal(sentence, _ANY_VERB, 0.45)
    readings.extend(_each_subject(sentence, main, respective=bool(respective)))
    readings.extend(_prepositions(sentence))
    return readings
