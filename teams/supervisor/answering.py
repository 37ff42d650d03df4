"""The offline answer: the relations that answer the question, as whole cited sentences.

What the question asks about (its focus) is its content words less the names of the entities it
names. A relation answers when its predicate, object or evidence sentence holds a focus word;
the relations that hold the most win, with the other items of their list (same subject and
predicate). A relation of a rival of the thing asked about (the "north pier" for a question of
the "south pier") does not answer when the graph holds relations of that thing itself. A
relation whose object is what the question asks for (a name for "who", a date for "when", a
place for "where", a figure for "how many") wins ties, and then one whose own predicate or
object holds a focus word over one whose quoted sentence alone holds it (a buyer of the mill
"whose architect had been Y" is not its architect). A "Who <verb> ...?" question is answered
by a relation that says the deed was done (a noun made from the verb says it too: "Original
Translation" for "translated") over one that only shares other words with the question, and
never by one that shares only the name of the thing asked about ("X's maintainer is Y" does
not say who wrote X); who drew or recorded a thing, when nothing says so, is its maker. A chain
of two relations from a named entity (its object's own relations) answers a question about that
object ("what does the press X founded publish?"). A question with no focus ("Who is X?", "What
does X do?") is answered by what the graph says X is, else by everything it holds with X as
subject. When nothing answers, the answer says so, and what the graph does hold on the entities
named.

Each relation becomes a sentence built from the triple, its names as the evidence writes them
("The Harrow bridge was designed by Ada Marsh"), with the evidence quoted when it says more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from teams.language.senses import MAKING, deed_sense, deed_wording
from teams.language.values import CATEGORIES, values_in
from teams.language.verbs import IRREGULAR, lemma
from teams.language.words import keywords, stem
from teams.supervisor.state import FoundRelation

__all__ = ["Chain", "answering_chains", "focus_of", "focus_words", "relation_sentence"]

_QUESTION_WORDS = frozenset(
    "who whom whose what which when where why how many much does do did is are was were has "
    "have had can could will would should".split()
)
_ASKS = {
    "who": "name",
    "whom": "name",
    "when": "date",
    "where": "place",
    "many": "figure",
    "much": "figure",
    "long": "figure",
    "tall": "figure",
    "high": "figure",
}
_MEASURES = {
    "long": "length",
    "tall": "height",
    "high": "height",
    "wide": "width",
    "deep": "depth",
    "old": "age",
    "far": "distance",
    "heavy": "weight",
    "big": "size",
    "large": "size",
}
"""The noun of what "how <adjective>" asks ("How long is the trail?" asks its length)."""
_HOW_MEASURE = re.compile(r"\bhow (\w+)", re.IGNORECASE)
_PLACE_PREPOSITIONS = ("in", "near", "at", "on", "from", "under", "beside", "across")
_DEFINING = ("is", "is a")


Chain = tuple[FoundRelation, ...]
"""One relation, or two where the second starts at the first's object."""


@dataclass(frozen=True)
class _Scored:
    chain: Chain
    matched: int
    fits: bool
    own: bool
    """Whether the last relation's own words (predicate, object) hold a focus word, not only
    the sentence it is quoted from."""
    named: bool
    """Whether the chain names a thing the question names, as named ("Skerry pier", not
    "Skerry breakwater")."""


_DERIVED = re.compile(
    r"^(?P<verb>[a-z]{2,}?(?:at|it|ut|ct|pt))(?:ion|or)s?$|^(?P<base>[a-z]{4,})ments?$"
)
"""A noun of a deed or of its doer made from a verb: "translation" and "translator" (translate),
"development" (develop)."""


def _root(word: str) -> str:
    """A word's stem, from its lemma: "wrote" and "written" meet at "writ"; a noun made from a
    verb (:data:`_DERIVED`) at the verb's: "translation", "translator" and "translated"."""
    derived = _DERIVED.match(word.lower())
    return stem(derived["verb"] or derived["base"]) if derived else stem(lemma(word))


def _stems(text: str) -> set[str]:
    """The stems of ``text``'s content words; a noun in "-ation" also at the word before it,
    as its verb may have no "-ate" ("documentation" meets "documenter" at "document")."""
    words = keywords(text)
    whole = {stem(word[: -len(found[1])]) for word in words if (found := _ATION.search(word))}
    return {_root(word) for word in words} | whole


_ATION = re.compile(r"(?<=[a-z]{5})(ations?)$")


def focus_of(question: str, names: Iterable[str]) -> set[str]:
    """The stems of what ``question`` asks about: its content words (an irregular form also as
    a word of its own, a verb of making as its deed's: "set up" and "establish" as "found"),
    less the names in it, and the measure a "how long/old/tall ..." asks
    for ("length")."""
    named = set().union(*(_stems(name) for name in names))
    question = deed_wording(question)  # "set up" asks "establish"
    # a word that is an irregular form may be a verb of its own: "found" (to found), "ground"
    own = {stem(word) for word in keywords(question) if lemma(word) != word}
    words = (_stems(question) | own) - named
    focus = {deed_sense(word) for word in words if word not in _QUESTION_WORDS}
    measured = _HOW_MEASURE.search(question)
    if measured and measured.group(1).lower() in _MEASURES:
        focus.add(_root(_MEASURES[measured.group(1).lower()]))
    return focus


def focus_words(question: str, names: Iterable[str]) -> list[str]:
    """The words of ``question`` that :func:`focus_of` keeps, as written."""
    focus = focus_of(question, names)
    return [word for word in keywords(deed_wording(question)) if deed_sense(_root(word)) in focus]


def _asked(question: str) -> str:
    """What kind of thing the question asks for: name, date, place, figure, or ""."""
    for word in re.findall(r"[a-z]+", question.lower())[:3]:
        if word in _ASKS:
            return _ASKS[word]
    return ""


def _fits(relation: FoundRelation, asked: str) -> bool:
    """Whether the relation's object is the kind of thing asked for."""
    thing = relation["object"]
    if asked == "name":
        return any(word[:1].isupper() for word in thing.split())
    if asked == "date":
        return any(value.kind == "date" for value in values_in(thing))
    if asked == "place":
        return relation["predicate"].split()[-1] in _PLACE_PREPOSITIONS
    if asked == "figure":
        return any(value.kind in ("count", "quantity") for value in values_in(thing))
    return False


def _words(chain: Chain) -> set[str]:
    """The stems a chain holds (its first subject's too: a field's line, "author: Ada Hart",
    need not name what it is said of), and the categories of its objects' values ("orange":
    colour)."""
    found: set[str] = _stems(chain[0]["subject"]) if chain else set()
    for relation in chain:
        evidence = _KIN_PHRASE.sub(" ", relation["evidence"])  # words of another person
        said = f"{relation['predicate']} {relation['object']} {evidence}"
        held = _stems(said) | _stems(deed_wording(said))  # "set up" also as "establish"
        found |= held | {deed_sense(word) for word in held}  # "founded" meets "established"
        kinds = {CATEGORIES.get(word.lower(), "") for word in relation["object"].split()} - {""}
        found |= {_root(kind) for kind in kinds} | ({"color"} if "colour" in kinds else set())
    return found


def _own_words(relation: FoundRelation) -> set[str]:
    """The stems of a relation's predicate and object, each also as its deed's."""
    said = f"{relation['predicate']} {relation['object']}"
    held = _stems(said) | _stems(deed_wording(said))
    return held | {deed_sense(word) for word in held}


_NAMED_THING = re.compile(r"(?<=\s)((?:[A-Z][\w'-]*\s+)+)([a-z]+)\b")
"""A thing the question names by a capitalised word and a common noun ("the Birk bridge")."""


_POSSESSIVE = re.compile(r"['’]s?(?=\s|$)")
"""A possessive ending: "Ferrow's" names Ferrow."""


def _named_things(question: str) -> list[tuple[set[str], str]]:
    """The stems of each thing's distinctive words and of its noun: ({"birk"}, "bridg")."""
    return [
        (_stems(_POSSESSIVE.sub("", found.group(1).lower())), _root(found.group(2)))
        for found in _NAMED_THING.finditer(question)
    ]


def _about(chain: Chain, things: list[tuple[set[str], str]]) -> bool:
    """Whether the chain may be about the things the question names: not when it names
    another of the same kind and neither its names nor its evidence hold the distinctive
    word (a relation of the Ardle bridge does not answer a question about the Birk bridge;
    "the trust" may be the Hollin trust)."""
    names = [_stems(name) for r in chain for name in (r["subject"], r["object"])]
    held = set().union(*names, *(_stems(r["evidence"]) for r in chain))
    return all(
        distinct <= held or not any(noun in name and name - {noun} for name in names)
        for distinct, noun in things
    )


_FOR = re.compile(r"\bfor\b", re.IGNORECASE)
"""A question that asks for whom or for what ("Who was the house built for?")."""
_DONE_FOR = re.compile(rf"^(?:[a-z]+(?:ed|en)|{'|'.join(sorted(IRREGULAR))})\s+for$")
"""A deed's predicate that names whom it was done for ("built for", "designed for"), not its
doer ("design for" of "Lena Fisk's design for the library" names the designer)."""
_PART_ASKED = re.compile(r"\b([a-z][\w'-]*\s+[a-z][\w'-]*)\s+of\s+(?:the\s+)?[A-Z]")
"""A part of a named thing the question asks about: "the west wing of the Halden infirmary"."""


def _of_other_parts(chains: list[Chain], question: str) -> list[Chain]:
    """``chains`` less those about another part of the kind a question asks about: "Ruth Acre
    designed the east wing" does not say who designed the west wing."""
    parts = [found.group(1).casefold() for found in _PART_ASKED.finditer(question)]
    return [
        chain
        for chain in chains
        if not any(
            _rival(name.casefold().partition(" of ")[0], part)
            for r in chain
            for name in _ends(r)
            for part in parts
        )
    ]


def _rival(name: str, named: str) -> bool:
    """Whether ``name`` is another thing of the kind ``named`` is: the same last word (its
    noun, see :func:`_one_noun`), and neither name holds the other ("Saltney north pier" for
    "Saltney south pier", "Lynn footbridge" for "Lynn packhorse bridge"; not "trust" for
    "Hollin trust")."""
    one, other = name.casefold().split(), named.casefold().split()
    return (
        one != other
        and len(one) > 1
        and len(other) > 1
        and _one_noun(one[-1], other[-1])
        and not (set(one) <= set(other) or set(other) <= set(one))
    )


_SHORTEST_NOUN = 4


def _one_noun(one: str, other: str) -> bool:
    """Whether two nouns name one kind of thing: the same, or one the end of the other
    ("footbridge" and "bridge", "boathouse" and "house"; not "way" and "railway")."""
    short, long = sorted((one, other), key=len)
    return short == long or (len(short) >= _SHORTEST_NOUN and long.endswith(short))


def _of_rivals(chains: list[Chain], names: Sequence[str]) -> list[Chain]:
    """``chains`` less those that name a rival of a thing the question names
    (:func:`_rival`), when another chain names that thing itself; a name a relation links to
    that thing (an alias: "the Rell bridge is also known as the Iron bridge") is no rival."""
    pairs = [(r["subject"].casefold(), r["object"].casefold()) for c in chains for r in c]
    present = {name.casefold() for name in names} & {n for pair in pairs for n in pair}
    linked = present | {b if a in present else a for a, b in pairs if {a, b} & present}
    return [
        chain
        for chain in chains
        if not any(
            _rival(n.casefold(), named) and n.casefold() not in linked
            for r in chain
            for n in (r["subject"], r["object"])
            for named in present
        )
    ]


def _ends(relation: FoundRelation) -> tuple[str, str]:
    """A relation's subject and object."""
    return relation["subject"], relation["object"]


def _chains(relations: Sequence[FoundRelation], paths: Sequence[Chain]) -> list[Chain]:
    """Every relation alone and every two-step path, each once, in order."""
    seen: dict[tuple[tuple[str, str, str], ...], Chain] = {}
    for chain in [*((relation,) for relation in relations), *paths]:
        key = tuple((r["subject"], r["predicate"], r["object"]) for r in chain)
        seen.setdefault(key, chain)
    return list(seen.values())


def answering_chains(
    question: str,
    names: Sequence[str],
    relations: Sequence[FoundRelation],
    paths: Sequence[Chain] = (),
) -> list[Chain]:
    """The relations (or two-step chains) that answer ``question``, best first; [] if none.

    Args:
        question: The question.
        names: The names of the entities the question names.
        relations: Every relation the lookups found.
        paths: Two-step chains from a named entity through its object.
    """
    focus, asked = focus_of(question, names), _asked(question)
    things = _named_things(question)
    chains = [chain for chain in _chains(relations, paths) if _about(chain, things)]
    chains = _of_other_parts(_of_rivals(chains, names), question)
    if not _FOR.search(question):  # "built for Margery Tull" does not say who built it
        chains = [chain for chain in chains if not _DONE_FOR.match(chain[-1]["predicate"])]
    named = {name.casefold() for name in names}
    if not focus:
        alone: list[Chain] = [c for c in chains if len(c) == 1]
        own = [c for c in alone if c[0]["subject"].casefold() in named] or alone
        return [c for c in own if c[0]["predicate"] in _DEFINING] or own
    deeds = {_deed_asked(deed_wording(question))} - {""}
    scored = [s for s in _scored(chains, focus, asked, named) if _beyond(s.chain, focus, deeds)]
    if not scored and (_MAKE in focus or deeds & _CREATING):  # "Who drew the map?": its maker
        scored = _scored(chains, focus | MAKING, asked, named)
        deeds = set(MAKING)
        scored = [s for s in scored if _beyond(s.chain, focus | deeds, deeds)]
    scored = [s for s in scored if _does(s.chain, deeds)] or scored
    if not scored:
        return []
    best = max((s.matched, s.fits, s.own, s.named) for s in scored)
    winners = [s.chain for s in scored if (s.matched, s.fits, s.own, s.named) == best]
    lists = {(c[-1]["subject"], c[-1]["predicate"]) for c in winners}
    more = [
        s.chain
        for s in scored
        if len(s.chain) == len(winners[0])
        and (s.chain[-1]["subject"], s.chain[-1]["predicate"]) in lists
        and s.chain not in winners
    ]
    return [*winners, *more]


_MAKE = deed_sense(stem("make"))
"""The deed a question asking who "made" a thing asks for."""
_WHO_DID = re.compile(r"^\s*who\s+(?:(?:has|had|have)\s+)?(?P<verb>[a-z]+)\b", re.IGNORECASE)
_NO_DEED = frozenset("is are was were did does do has had have can could will would may".split())


def _deed_asked(question: str) -> str:
    """The deed a "Who <verb> ...?" question asks who did, as its sense's stem ("Who
    translated ...?": "translat"); "" for a question whose verb is an auxiliary ("Who was in
    charge of ...?") or that asks no "who"."""
    found = _WHO_DID.match(question)
    verb = found["verb"].lower() if found else ""
    return "" if not verb or verb in _NO_DEED else deed_sense(_root(verb))


def _beyond(chain: Chain, focus: set[str], deeds: set[str]) -> bool:
    """Whether ``chain`` answers more than the name of the thing asked about: it says one of
    ``deeds`` was done, or it holds a word of ``focus`` outside its subject ("X's maintainer is
    Y" does not say who wrote X, though it names X)."""
    subject = _stems(chain[0]["subject"])
    return not deeds or _does(chain, deeds) or bool(focus & (_words(chain) - subject))


def _does(chain: Chain, deeds: set[str]) -> bool:
    """Whether ``chain`` says one of ``deeds`` was done (in a compound of its evidence too:
    "the Nora Voss-designed library")."""
    evidence = " ".join(relation["evidence"] for relation in chain).replace("-", " ")
    held = _stems(evidence)
    return bool(deeds & (_words(chain) | held | {deed_sense(word) for word in held}))


_CREATING = frozenset(
    _root(verb) for verb in "draw paint sketch carve sculpt record film shoot engrave".split()
)
"""Deeds whose doer made the thing they are done to: the maker of a map drew it, the creator
of a GPS track recorded it."""


def _scored(chains: Sequence[Chain], focus: set[str], asked: str, named: set[str]) -> list[_Scored]:
    """The chains that hold a word of ``focus`` (the last relation of a two-step one too),
    each with how well it answers; none of kin of what is asked."""
    scored = []
    for chain in chains:
        if _kin_of_the_asked(chain[-1], focus):
            continue
        matched = len(focus & _words(chain))
        if matched and (len(chain) == 1 or len(focus & _words(chain[-1:])) > 0):
            holds = bool(focus & _own_words(chain[-1]))
            names_it = bool(named & {n.casefold() for r in chain for n in _ends(r)})
            scored.append(_Scored(chain, matched, _fits(chain[-1], asked), holds, names_it))
    return scored


_KIN = frozenset(
    "daughter son wife husband widow widower child brother sister father mother nephew niece "
    "grandson granddaughter cousin heir friend".split()
)
"""Words of a role that relates a person to another person, not to a thing."""
_KIN_PHRASE = re.compile(
    rf"\b(?:the|a|an|his|her|their)\s+(?:{'|'.join(sorted(_KIN))})\s+of\s+[^,.;]+", re.IGNORECASE
)
"""A phrase that names a relative of someone ("the daughter of the library's architect")."""
_OWNED_ROLE = re.compile(r"^'s\s+(?P<head>[\w'-]+)\s+is$")
_ROLE_HEAD = re.compile(r"^(?:the\s+|a\s+|an\s+)?(?P<head>[\w'-]+)\s+of\s+|'s\s+(?P<last>[\w'-]+)$")


def _kin_of_the_asked(relation: FoundRelation, focus: set[str]) -> bool:
    """Whether ``relation`` makes its subject a relative of the one a question asks about, not
    that one: "Martha Hale is the daughter of the library's architect" does not say who
    designed the library."""
    owned = _OWNED_ROLE.match(relation["predicate"])  # "the library's architect" 's daughter is
    if owned is not None:
        head = owned["head"]
    elif relation["predicate"] in _DEFINING:
        found = _ROLE_HEAD.search(relation["object"].lower())
        head = (found["head"] or found["last"]) if found else ""
    else:
        return False
    return head in _KIN and deed_sense(_root(head)) not in focus


def _surface(name: str, evidence: str) -> str:
    """``name`` as the evidence writes it: with its article and plural ("the sea charts"); as
    read where the evidence writes it in capitals ("ERECTED BY THOMAS WRAY")."""
    words = [re.escape(word) for word in name.split()]
    if not words:
        return name
    pattern = r"\b(?:(?:the|a|an)\s+)?" + r"\s+".join(words) + r"(?:e?s)?\b"
    found = re.search(pattern, evidence, re.IGNORECASE)
    shouted = found is not None and found.group(0).isupper() and not name.isupper()
    return found.group(0) if found and not shouted else name  # not an inscription's capitals


def _auxiliary(verb: str, evidence: str) -> str:
    """The "is"/"was" (or "got") the evidence puts before a passive ``verb`` ("is quarried",
    "got built"), or ""."""
    between = r"(?:\w+\s+){0,2}"  # "is quarried", "was in fact made"
    auxiliary = r"\b(is|are|was|were|got|gets)\s+"
    found = re.search(rf"{auxiliary}{between}{re.escape(verb)}\b", evidence, re.I)
    return found.group(1).lower() if found else ""


def _passive_auxiliary(predicate: str, relation: FoundRelation) -> str:
    """For a past participle and its preposition ("built in", "located in") read from evidence
    that holds no clause with it (a table row, a "**Built:** 1874" line): "is" for a standing
    state ("located in", not before a date), else "was" (a deed: "designed by", "conceived by"
    read from "the brainchild of");
    "" for any other predicate ("Tull built the mill", "Tull sold it to Ann")."""
    words = predicate.split()
    verb = words[0]
    participle = verb.endswith("ed") or (lemma(verb) != verb and not verb.endswith("s"))
    if len(words) < 2 or not participle or words[1] not in _PASSIVE_PREPOSITIONS:
        return ""
    dated = any(value.kind == "date" for value in values_in(relation["object"]))
    tense = "is" if verb.lower() in _STATES and not dated else "was"
    if re.search(rf"(?:[,:.>]\s*|^)\b{re.escape(verb)}\b", relation["evidence"], re.I | re.M):
        return tense  # set off: "The Lowick lock, built by Anna Pell", "> ERECTED BY ..."
    if re.search(rf"\b{re.escape(verb)}\b(?!\s*[:*|])", relation["evidence"], re.IGNORECASE):
        return ""  # the evidence says it in a clause of its own
    return tense  # "**Architect:** Y" and "the brainchild of Y": a deed


_STATES = frozenset(
    ("located", "situated", "based", "housed", "held", "kept", "owned", "named", "called")
)
"""Participles of a standing state ("is located in"); any other names a deed, done once."""
_PASSIVE_PREPOSITIONS = frozenset((*_PLACE_PREPOSITIONS, "by", "to", "for", "as", "up", "with"))


def relation_sentence(relation: FoundRelation, *, opening: bool = True) -> str:
    """The relation as a whole sentence, its names as its evidence writes them, no full stop
    (and a lower-case first letter when it does not open a sentence)."""
    evidence = relation["evidence"]
    subject = _surface(relation["subject"], evidence)
    thing = _surface(relation["object"], evidence)
    predicate = relation["predicate"]
    if predicate.split()[-1] in ("a", "an", "the"):  # "is a" + "a small country"
        thing = re.sub(r"^(?:a|an|the)\s+", "", thing, flags=re.IGNORECASE)
    if predicate not in _DEFINING:
        verb = predicate.split()[0]
        auxiliary = _auxiliary(verb, evidence) or _passive_auxiliary(predicate, relation)
        predicate = f"{auxiliary} {predicate}".strip()
    text = f"{subject} {predicate} {thing}".replace(" 's ", "'s ")  # "the museum's founder is"
    if not opening:
        return text[:1].lower() + text[1:] if re.match(r"(?:The|A|An)\b", text) else text
    return f"{text[:1].upper()}{text[1:]}"
