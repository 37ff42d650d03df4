"""Questions: a question split into sub-questions, the topic its parts share, what kind of
answer it asks for, and whether a text asks at all."""

from __future__ import annotations

import re
from collections.abc import Sequence

from teams.language.senses import plain_wording
from teams.language.words import keywords

__all__ = [
    "answer_kind",
    "asked_thing",
    "asks_one_value",
    "asks_when",
    "avoided",
    "chained_parts",
    "is_question",
    "platforms",
    "pointers",
    "premise",
    "premised_parts",
    "quoted_terms",
    "shared_words",
    "split_question",
    "which_one",
]

_PARTS = re.compile(r"\?|;|\.\s|\band then\b|\band also\b|,\s*and\s+", re.IGNORECASE)
_MIN_PART_WORDS = 3


def split_question(question: str, limit: int = 4) -> list[str]:
    """Split a question into up to ``limit`` sub-questions of at least three words.

    Splits on question marks, semicolons, sentence ends and coordinated clauses ("..., and
    ..."), then on a plain " and " joining two clauses that each have a verb-like length, the
    first a question of its own, and a list of predicates after one subject ("How does a team
    plan, fan out work") into one sub-question each; a question about a list of things asks
    about each (see :func:`_one_per_thing`).
    """
    things = _one_per_thing(question)
    if things:
        return things[:limit]
    parts = [p.strip(" ,.") for p in _PARTS.split(question) if p.strip(" ,.")]
    if len(parts) == 1:
        parts = _halves(parts[0])
    parts = [
        half for at, part in enumerate(parts) for half in (_if_so(part, parts[0]) if at else [part])
    ]
    lead = _lead(parts[0]) if parts else ""
    parts = (
        [parts[0], *(_with_subject(part, lead, parts[0]) for part in parts[1:])] if parts else []
    )
    parts = [listed for part in parts for listed in _listed(part, lead)]
    subs = [p for p in parts if len(p.split()) >= _MIN_PART_WORDS]
    unique = list(dict.fromkeys(subs))
    return unique[:limit] if len(unique) > 1 else []


def _halves(part: str) -> list[str]:
    """``part`` split at a plain " and " joining two clauses of a verb-like length, the first
    a question of its own; ``[part]`` when it does not."""
    halves = [h.strip(" ,.") for h in re.split(r"\band\b", part, maxsplit=1)]
    if len(halves) != 2:
        return [part]
    one = _in_subordinate(*halves) or _names_joined(*halves)
    halves[1] = _with_subject(halves[1], _lead(halves[0]), halves[0])
    if (
        all(len(h.split()) >= _MIN_PART_WORDS for h in (_last_clause(halves[0]), halves[1]))
        and _asking(halves[0])
        and not one
    ):
        return halves
    return [part]


def _if_so(part: str, first: str) -> list[str]:
    """A later ``part`` without the condition it opens with ("if so, ...", "if not, ..."); one
    asked only if ``first`` is answered yes ("Can Arrow turn a phrase back into a date, and if
    so, which method does it") asks of what ``first`` asks: its "it" is that, ``first``
    without its auxiliary ("which method does Arrow turn a phrase back into a date"), and it
    may join two questions with "and" ("... and in which release was it added")."""
    condition = _CONDITION_MET.match(part)
    if condition is None:
        return [part]
    asked = part[condition.end() :]
    if condition.group("met") is None:
        return [asked]
    words = first.split()
    if words and words[0].lower() in _AUXILIARIES:  # "Is there a way to ...": "a way to ..."
        words = words[2:] if words[1:2] == ["there"] else words[1:]
    stated = " ".join(words)
    halves = _halves(asked)
    halves[0] = re.sub(r"\bit\b", lambda _: stated, halves[0], count=1)
    return halves


_CONDITION_MET = re.compile(
    r"^if\s+(?:(?P<met>so|yes|it (?:does|is|can)|there (?:is|are)(?: one)?)|not|"
    r"it (?:does|is|can)(?: not|n't)|there (?:is|are)n't|there (?:is|are) not|none)\b,?\s+(?=\S)",
    re.IGNORECASE,
)
"""What opens a part asked only as the part before is answered ("..., and if so, which method
does it", "If not, what should replace it"): ``met`` when it is answered yes."""


_WHICH_ONE = re.compile(
    r"^\s*(?:is|are)\s+there\s+(?:an?|any|some)\s+(?P<thing>[^?]+?)\s+(?:that|which|who)\s+"
    r"(?P<rest>[^?,]+?)\s*[?,]\s*(?:and\s+)?(?:if\s+so,?\s+)?which\s+(?:one|ones)\s*\??\s*$",
    re.IGNORECASE,
)
"""A question whether there is a thing, then which it is ("Is there a version that ...? Which
one?")."""


def which_one(question: str) -> str:
    """``question`` asked as the "which" it ends with: "Is there a pluggy version that got a
    tag but was never published? Which one?" asks "Which pluggy version got a tag but was never
    published?"; ``question`` itself otherwise."""
    found = _WHICH_ONE.match(question)
    return f"Which {found['thing']} {found['rest']}?" if found else question


def _names_joined(first: str, second: str) -> bool:
    """Whether "and" joins two names written as code ("were RenderGroup and render_group
    renamed"): one subject of two names, not two questions."""
    before, after = first.split()[-1:], second.split()[:1]
    return bool(before and after and _CODE_LIKE.match(before[0]) and _CODE_LIKE.match(after[0]))


_CODE_LIKE = re.compile(r"^[`'\"]*(?:\w+_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)[`'\"]*$")
"""A word written as code: snake_case, camelCase or CapWords with an inner capital."""


def _last_clause(text: str) -> str:
    """The clause of ``text`` that asks, when a phrase or a condition comes before it: of "If I
    start it without a bind, which address", "which address" (shorter than a question of its
    own); ``text`` whole when its last comma parts a list ("pin pyflakes, pycodestyle")."""
    last = text.rsplit(",", 1)[-1]
    return last if last.split()[:1] and last.split()[0].lower() in _QUESTION_WORDS else text


def premise(part: str) -> bool:
    """Whether ``part`` of a question states the asker's own case ("I run several workers with
    the scheduler turned on", "the newest release is 2.21.0") and asks nothing of its own."""
    return bool(_PREMISE.match(part) or _STATED.match(part)) and not _asking(part)


_PREMISE = re.compile(r"^(?:i|we|my|our)\b(?!\s+(?:want|need|would|wonder)\b)", re.IGNORECASE)
"""A statement of the asker's own case ("I run ...", "Our jobs ..."), not a wish that asks
("I want to know ...")."""
_STATED = re.compile(
    r"^(?:the|a|an|this|that|these|those)\b[^,;]*?\b(?:is|are|was|were|has|have|had)\b",
    re.IGNORECASE,
)
"""A statement of how things stand in the asker's case ("the newest release is 2.21.0")."""
_OPENING_WORDS = 3
"""How far into a clause a question word may come ("In which release ...")."""


def _asking(text: str) -> bool:
    """Whether ``text`` is a question of its own: a clause of it opens with an auxiliary or
    holds a question word among its first words; not a phrase set before one ("With X switched
    on and left untuned, what ...", "On Linux, if Hatch cannot tell which shell ...")."""
    clauses = [clause.lower().split() for clause in text.split(",")]
    return any(
        words
        and (words[0] in _AUXILIARIES or not _QUESTION_WORDS.isdisjoint(words[:_OPENING_WORDS]))
        for words in clauses
    )


def _in_subordinate(first: str, second: str) -> bool:
    """Whether the predicate ``second`` (no question of its own) is coordinated inside a
    subordinate clause that ends ``first``: "how long can a worker stay quiet before the
    master kills it" and "starts a fresh one" is one question, not two."""
    if _asking(second):
        return False
    words = [word.strip(",").lower() for word in first.split()]
    asked = next((at for at, word in enumerate(words) if word in _QUESTION_WORDS), len(words))
    return not _SUBORDINATORS.isdisjoint(words[asked + 1 :])


_SUBORDINATORS = frozenset("before after until unless once while whenever because if".split())
_CLAUSE_OPENERS = frozenset({"if", "unless"})
"""Words that open a condition after a comma, not a predicate of a list."""
"""Words that open a subordinate clause after a question's own start."""


_ITEM = re.compile(r"^(?P<items>.+?),?\s+(?:and|or)\s+(?P<last>.+)$")
_ITEM_MAX_WORDS = 3
_THING_QUESTIONS = ("what", "which")


def _one_per_thing(question: str) -> list[str]:
    """A question about a list of things as one question per thing: "Which HTTP versions,
    protocols and event loops does it support" (the auxiliary after the list starts what they
    share), "What do the timeout, pool and proxy settings control" (the words after the last
    thing beyond the others' length); [] for any other question."""
    words = question.strip().rstrip("?").split()
    if "," not in question or not words or words[0].lower() not in _QUESTION_WORDS:
        return []
    at = 1 + (len(words) > 1 and words[1].lower() in _AUXILIARIES)
    before_list = at > 1
    at += at < len(words) and words[at].lower() in _DETERMINERS
    listed = _ITEM.match(" ".join(words[at:]))
    if listed is None:
        return []
    items = [item.strip() for item in listed.group("items").split(",")]
    if len(items) < 2 or any(not 0 < len(item.split()) <= _ITEM_MAX_WORDS for item in items):
        return []
    last = listed.group("last").split()
    tail_at = next((i for i, word in enumerate(last) if word.lower() in _AUXILIARIES), None)
    if tail_at is None:
        if not before_list or words[0].lower() not in _THING_QUESTIONS:
            return []
        size = max(len(item.split()) for item in items[1:])
        tail_at = size if len(last) - size >= 2 else len(last)  # "proxy | settings control"
    if not tail_at:
        return []
    head, tail = " ".join(words[:at]), " ".join(last[tail_at:])
    things = [*items, " ".join(last[:tail_at])]
    return [" ".join(filter(None, (head, thing, tail))) for thing in things]


_QUESTION_WORDS = frozenset("how what why when where which who whom whose".split())
_AUXILIARIES = frozenset(
    "do does did is are was were can could should will would has have had may might must".split()
)
_DETERMINERS = frozenset("a an the this that these those each every our your its their my".split())
_COPULAS = frozenset("is are was were".split())


def _lead(question: str) -> str:
    """The question word, auxiliary and subject a coordinated question starts with: "How does a
    cadre team" of "How does a cadre team plan, fan out work"; "" when there is none.

    The subject runs from the auxiliary to the verb: the last word before the first comma when
    the predicates are listed with commas, else a determiner and one noun, or one word."""
    words = question.split()
    at = next((i for i, w in enumerate(words[:3]) if w.lower() in _AUXILIARIES), None)
    if at is None or at + 1 >= len(words):
        return ""
    before_comma = question.split(",", 1)[0].split()
    if words[at].lower() in _COPULAS and words[0].lower() in ("what", "who", "which"):
        end = len(before_comma)  # "What is Vell stone": the rest is the subject
    elif "," in question and len(before_comma) > at + 2:
        end = len(before_comma) - 1
    else:
        end = at + (3 if words[at + 1].lower() in _DETERMINERS else 2)
        while end < len(words) and words[end - 1][:1].isupper() and words[end][:1].isupper():
            end += 1  # a name goes on: "the Harbour Freight"
    return " ".join(words[: min(end, len(words))])


def _listed(part: str, lead: str) -> list[str]:
    """``part`` split at the commas of a list of predicates after ``lead``, each with it; not
    where a comma opens a clause of its own ("... before it gives up, if I never changed it")."""
    if not lead or not part.startswith(lead) or "," not in part[len(lead) :]:
        return [part]
    predicates = [p.strip() for p in part[len(lead) :].split(",")]
    if not all(predicates) or any(p.split()[0].lower() in _CLAUSE_OPENERS for p in predicates[1:]):
        return [part]
    return [f"{lead} {predicate}" for predicate in predicates]


def _with_subject(part: str, lead: str, asked: str = "") -> str:
    """``part`` as a question that stands alone: a predicate without its subject ("review its
    results") gets the first part's question word, auxiliary and subject; "it" in a question of
    its own ("what is it used for") becomes the first part's subject, or what the first part
    (``asked``) acts on when its subject is a person ("how do I install Black": "Black"); not in
    a part with a subject of its own after its auxiliary ("which port does a URL assume when it
    leaves it out": the URL)."""
    words = part.split()
    if not lead or not words or part.startswith(lead):
        return part
    first = words[0].lower()
    asks = first in _QUESTION_WORDS or first in _AUXILIARIES
    if not asks and not (len(words) > 1 and words[1].lower() in _QUESTION_WORDS):
        return f"{lead} {part}"  # not "in which folder ...", a question of its own
    aux = next((i for i, w in enumerate(words) if w.lower() in _AUXILIARIES), len(words))
    if aux + 1 < len(words) and words[aux + 1].lower() not in {*_PRONOUNS, *_PERSONS}:
        return part  # a subject of its own: "which port does a URL assume when it leaves ..."
    wh = next((i for i, w in enumerate(words[:2]) if w.lower() in _THING_QUESTIONS), None)
    own_thing = wh is not None and wh + 1 < len(words) and words[wh + 1].lower() not in _AUXILIARIES
    subject = _subject(lead, asked, own_thing)
    if not subject:
        return part
    return " ".join(
        _PRONOUNS[word.lower()].format(subject) if word.lower() in _PRONOUNS else word
        for word in words
    )


_PRONOUNS = {"it": "{}", "its": "{}'s"}


def _subject(lead: str, asked: str = "", own_thing: bool = False) -> str:
    """What "it" stands for after a lead: the thing asked about when the question word has a
    noun ("Which port does Uvicorn use" -> "port") and the part asks of no thing of its own
    (``own_thing``: "..., and in which folder does it ..."), else the words after its auxiliary,
    unless they are a person ("I", "we"): then the words of ``asked`` after the lead's verb, or
    ""."""
    words = lead.split()
    at = next((i for i, w in enumerate(words[:3]) if w.lower() in _AUXILIARIES), None)
    if at is None:
        return ""
    if at > 1 and words[0].lower() in _THING_QUESTIONS and not own_thing:
        return " ".join(words[1:at])
    subject = words[at + 1 :]
    if not (len(subject) == 1 and subject[0].lower() in _PERSONS):
        return " ".join(subject)
    acted_on = asked.split()[len(words) + 1 :] if asked.startswith(lead) else []
    if len(acted_on) > 1 and acted_on[0].lower() in _PARTICLES:
        acted_on = acted_on[1:]  # "set up the server": the server
    return " ".join(acted_on).strip(" ,.?")


_PARTICLES = frozenset("up down out off in on over back away".split())
"""The particles of phrasal verbs ("set up", "turn off"): never part of what the verb acts on."""
_PERSONS = frozenset("i you we they one he she".split())
"""Subjects that are the asker or people, never what "it" stands for."""


def chained_parts(parts: Sequence[str]) -> dict[int, str]:
    """The parts of a split question that name what an earlier part asks for only as "it" or
    "that X" ("Which argument of add() sets the context, and in which release was it added?"),
    each (by its index) with that earlier part: the nearest before it that asks (states no case
    of the asker's own), if it asks for a name. "It" in a part with a subject of its own stands
    for that ("which port does a URL assume when it leaves the port out")."""
    chained = {}
    for at, part in enumerate(parts):
        if at and _refers_back(part):
            named = next((p for p in reversed(parts[:at]) if _asking(p) and not premise(p)), "")
            if named and (_asks_name(named) or _names_a_thing(part)):
                chained[at] = named
    return chained


def _refers_back(part: str) -> bool:
    """Whether ``part`` speaks of something an earlier part names: as "that X", "it" (when
    it has no subject of its own, or ends the part: "since which release has Hypercorn
    included it") or "for that" at its end ("... had the option for that")."""
    return bool(
        _THAT_ONE.search(part)
        or (_IT.search(part) and not _own_subject(part))
        or _IT_LAST.search(part)
        or _FOR_THAT.search(part)
    )


def _names_a_thing(part: str) -> bool:
    """Whether ``part`` speaks of a thing that has a name to write (an option, a command, a
    middleware): the answer to the part before it names that thing, however it was asked
    ("How do I stop a step ..., and since which release can that option be set ...")."""
    return not _NAMED_THINGS.isdisjoint(re.findall(r"[a-z]+", part.lower()))


_NAMED_THINGS = frozenset(
    form
    for word in "option setting flag command argument parameter variable method function class "
    "module middleware decorator hook field attribute key image backend plugin extension "
    "directive exception signal header".split()
    for form in (word, f"{word}es" if word.endswith("s") else f"{word}s")
)
"""Kinds of thing a documentation page names in code."""
_FOR_THAT = re.compile(r"\b(?:for|of|with|about|to)\s+(?:that|this)\s*[?.!]*\s*$", re.I)
_IT_LAST = re.compile(r"\bit\s*[?.!]*\s*$", re.I)
"""A part that ends on "it": the thing it was done to, named before."""
_DOES_THAT = re.compile(
    r"\b(?:do|does|did|can|could|will|would)\s+(?:that|this)\s*[?.!]*\s*$", re.I
)
"""A part that asks what does what the asker said before: "Which middleware does that"."""


def premised_parts(parts: Sequence[str]) -> dict[int, str]:
    """The parts of a split question that speak of the thing the asker's case just before them
    names ("My ~/.flake8 seems to be ignored" then "since which release does flake8 no longer
    read it") as "it" or "they", each (by its index) with that case: a statement of the
    asker's own thing ("My ...", "Our ..."), not of the asker ("I run the kiln in a shed",
    whose "it" may be any of what it names); and those that ask what "does that", with the
    case or wish before them ("I want one process to serve two apps" then "which middleware
    does that"). A part chained to an answer is not one."""
    chained = chained_parts(parts)
    return {
        at: parts[at - 1]
        for at, part in enumerate(parts)
        if at
        and at not in chained
        and (
            (_IT.search(part) and premise(parts[at - 1]) and _OWN_THING.match(parts[at - 1]))
            or (_DOES_THAT.search(part) and _CASE_OR_WISH.match(parts[at - 1]))
        )
    }


_OWN_THING = re.compile(r"^\s*(?:my|our)\b", re.IGNORECASE)
"""The asker's case that names a thing of theirs ("My config file ...")."""
_CASE_OR_WISH = re.compile(r"^\s*(?:i|we|my|our)\b", re.IGNORECASE)
"""The asker's case or wish ("I want one process to serve two apps"), which "does that" in
the part after it stands for."""


def asked_thing(question: str) -> str:
    """The noun a "which" or "what" question asks to be named by: "argument" of "Which
    argument of add() lets me ...", "method" of "Which Loguru method does ..."; "" for a
    question of another kind ("What do I pass ...")."""
    words = question.split()
    at = next((i for i, w in enumerate(words[:3]) if w.lower() in ("which", "what")), None)
    if at is None:
        return ""
    thing: list[str] = []
    for word in words[at + 1 :]:
        ends = word.lower() in _AUXILIARIES or word.lower() in _PREPOSITIONS
        if ends or (thing and _VERB_LIKE.match(word)):
            break
        thing.append(word)
    return thing[-1] if thing else ""


_PREPOSITIONS = frozenset("of for in to with on from by at about".split())
_VERB_LIKE = re.compile(r"^(?:[a-z]+[^s\W]s|[a-z]+ed)$")
"""A word that reads as a verb after a noun: "lets", "makes", "added" (not "class")."""


def _asks_name(question: str) -> bool:
    """Whether ``question`` asks for a name ("Which argument ...") or for what to write
    ("What do I pass ..."), one that a later part may speak of as "it"."""
    kind = answer_kind(question)
    if kind == "name" or (not kind and question.lower().startswith("what ")):
        return True
    return asked_thing(question).lower() in _NAMED_THINGS  # "What command ..."


def _own_subject(part: str) -> bool:
    words = part.lower().split()
    aux = next((i for i, w in enumerate(words) if w in _AUXILIARIES), len(words))
    return aux + 1 < len(words) and words[aux + 1] not in {*_PRONOUNS, *_PERSONS, *_DEMONSTRATIVES}


_DEMONSTRATIVES = frozenset("this that these those".split())
_IT = re.compile(r"\b(?:it|they|them)\b", re.I)
_THAT_ONE = re.compile(
    r"\b(?:did|does|do|was|were|is|are|has|have|had|can|could|should|will|would|may|might|"
    r"must|get|gets|got|use|uses|need|needs|of|in|for|with|about|to|from|by|on|since|"
    r"before|after|[a-z]+ed)\s+(?:that|this|these|those)\s+(?!(?:a|an|the|is|are|was|were|it|"
    r"its|i|you|we|they|he|she|my|your|our|their)\b)[a-z][\w-]*",
    re.I,
)
"""A thing named as "that X" after a verb or a preposition ("added that option", "did that
converter"; not "the command that tells")."""


def shared_words(parts: Sequence[str]) -> str:
    """The content words every one of ``parts`` holds, in the first part's order ("" for fewer
    than two parts): the topic of a split question."""
    if len(parts) < 2:
        return ""
    common = set.intersection(*(set(keywords(part)) for part in parts))
    return " ".join(word for word in keywords(parts[0]) if word in common)


_QUANTITY_ASKED = re.compile(
    r"\bhow (?:many|much|long|often|large|big|small|far|old|fast)\b|"
    r"\b(?:what|which) (?:is the )?(?:number|size|limit|default|amount|length|count|value)\b|"
    r"\b(?:what|which) (?:[\w-]+ )?(?:close|exit|status|error|return|response) code\b|"
    r"\b(?:what|which) (?:http|response) status\b|"
    r"\b(?:what|which) (?:maximum|minimum|max|min|largest|smallest) [\w-]+",
    re.I,
)
_PROCEDURE_ASKED = re.compile(
    r"^\s*how (?:do|can|should|would|could) (?:i|you|we|one)\b|^\s*how to\b|\bwhat command\b"
)
_NAME_ASKED = re.compile(
    r"^\s*(?:which|who)\b|^\s*what\s+(?!(?:does|do|did|is|are|was|were|can|could|should|"
    r"will|would|happens|happened|effects?|difference|impact|influence)\b)",
    re.I,
)
"""A question that asks for a name: "which ...", "who ...", "what <noun> ..." (not "what does
X do" or "what effect does X have", which ask for a description)."""
_VERSION_ASKED = re.compile(
    r"\b(?:which|what)\s+(?:(?:is|was|are|were)\s+the\s+)?"
    r"(?:(?!(?:did|does|do|is|was|are|were|has|have|had|can|could|will|would)\b)[\w.-]+\s+){0,3}?"
    r"(?:version|(?:pre-?)?release)s?\b",
    re.I,
)
"""A question that asks for a version ("Which Python version does X need", "in which release
...", "Which APScheduler 4.0 pre-release ...", "What was the first X release ..."): a sentence
that states a version answers it."""
_EDGE_OF = re.compile(
    r"\b(?:oldest|earliest|newest|latest|minimum|lowest|highest)\s+(?:supported\s+)?"
    r"(?!(?:Version|Release)s?\b)[A-Z][\w+-]*[A-Za-z]\b"
)
"""A question for the first or last version of a named thing ("the oldest Python that ...",
"the minimum SQLAlchemy"), in its own capitals."""
_GAIN_ASKED = re.compile(
    r"^\s*what\b.*\b(?:gain(?:s|ed)?|advantages?|benefits?|drawbacks?|disadvantages?|"
    r"downsides?|shortcomings?|costs? of|catch)\b|"
    r"^\s*what\b.*\b(?:allows?|lets?|enables?) (?:you|us|me|one|users?|them)\b|"
    r"^\s*what can (?:you|i|we|one) do\b|"
    r"^\s*what\b.*\b(?:could|can|might|may|would) go wrong\b|"
    r"^\s*what (?:are|is) the (?:risks?|dangers?|pitfalls?)\b|"
    r"^\s*what\b.*\b(?:good|useful|helpful|handy) for\s*\??\s*$|"
    r"^\s*what(?:'s| is| was)? the (?:point|purpose|aim|goal|idea) (?:of|behind)\b|"
    r"^\s*what makes\b.*\b(?:preferable|better|worth|superior|safer|simpler|good|great|ideal|"
    r"suitable|appropriate|attractive|useful|fast|faster)\b|"
    r"\bwhat(?:'s| is| was) the (?:reason|rationale|motivation)\b|"
    r"^\s*(?:in|under) (?:what|which) (?:situations?|cases?|circumstances?|conditions?|"
    r"settings?|contexts?)\b.*\b(?:worth|useful|helpful|better|best|recommended|advisable|"
    r"matters?|important|relevant|practical|handy|convenient)\b"
)
"""A question that asks what something is good for ("What is gained by ...", "What does X let
you do", "What is X good for?", "What is the advantage (or drawback) of ...", "What could go
wrong if ...", "What is the
point of ...", "What makes X preferable to Y", "In what situation is X worth ..."): answered
as a why-question is, by the sentence that says what follows ("This makes them more
consistent ...", "This allows you to ...")."""
_LIST_ASKED = re.compile(
    r"^\s*(?:which|what) (?:two|three|four|five|six|\d+)\b|^\s*what are the (?:two|three|four|"
    r"five|six|\d+)\b|^\s*list\b"
)
"""A question that asks for several things ("which two ...", "list ..."): a lead-in that
introduces a list answers it."""


_DATE_ASKED = re.compile(
    r"(?:(?:on|in|since|by|at|from)\s+)?(?:what|which)\s+(?:date|day|year|month)\b"
)
"""A question asking for a time without "when": "On what date ...", "In which year ..."."""


def answer_kind(query: str) -> str:
    """What kind of answer ``query`` asks for: list, quantity, procedure, reason, time,
    version, name, or "" (of what it asks after a condition it opens with: "When I turn X on,
    which mode is used?" asks a name, not a time)."""
    lowered = _asked_part(query.lower().strip())
    kinds = (
        ("list", _LIST_ASKED.search(lowered)),
        ("procedure", _PROCEDURE_ASKED.search(lowered)),
        ("quantity", _QUANTITY_ASKED.search(lowered)),
        ("reason", _SETTING.sub("", lowered).startswith("why") or _GAIN_ASKED.search(lowered)),
        ("time", lowered.startswith("when") or _DATE_ASKED.match(lowered)),
        ("version", _VERSION_ASKED.search(lowered) or _EDGE_OF.search(query)),
        ("name", _NAME_ASKED.match(lowered)),
    )
    return next((kind for kind, found in kinds if found), "")


_ONE_KINDS = frozenset({"version", "quantity", "name", "time"})
_SEVERAL_ASKED = re.compile(
    r"^\s*(?:which|what)\s+(?:[\w-]+\s+)?(?!(?:does|was|has|is)\b)[\w-]*[^\W_siu]s\b", re.I
)
"""A question whose noun is plural ("Which environment variables ...", "What dependencies
...")."""


def asks_one_value(query: str) -> str:
    """The kind of answer (see :func:`answer_kind`) when ``query`` asks, in one part, for one
    figure, version, name or time ("Which environment variable turns X off?", "On what date
    was 1.0 released?", not "Which environment
    variables ...", nor "Which X and which Y ..."; a statement of the asker's own case before
    it is no part that asks); "" otherwise."""
    kind = answer_kind(query)
    parts = [part for part in split_question(query) if not premise(part)]  # "I run ... ."
    asking = [part for part in parts if _asking(part)] or parts  # not "Right after X, Y failed"
    one = kind in _ONE_KINDS and len(asking) < 2
    return kind if one and not _SEVERAL_ASKED.search(query) else ""


_AVOIDED = re.compile(
    r"\b(?:instead of|rather than|as opposed to)\s+(?P<after>[^,;?()]+)"
    r"|\(\s*not\s+(?P<inside>[^()]+)\)",
    re.IGNORECASE,
)
"""An alternative set aside: "instead of X", "rather than X", "(not X)"."""
_CLAUSE_START = re.compile(
    r"\s+\b(?:when|if|because|since|while|where|which|who|so|that|and|or|but)\b.*$", re.I
)
"""Where the phrase of an alternative ends: the clause after it ("failing when I ...")."""


def avoided(question: str) -> list[str]:
    """The alternatives ``question`` sets aside, as written ("If I install X from its source
    archive instead of a wheel": "a wheel"; "ordinary fields (not computed ones)": "computed
    ones"), each to the end of its phrase ("instead of failing when I ...": "failing")."""
    found = (m.group("after") or m.group("inside") for m in _AVOIDED.finditer(question))
    return [_CLAUSE_START.sub("", phrase).strip() for phrase in found]


def is_question(text: str) -> bool:
    """Whether ``text`` asks: it ends in a question mark or opens with a question word or an
    auxiliary ("Does it ...")."""
    first = text.split(maxsplit=1)[0].lower() if text.strip() else ""
    return text.rstrip().endswith("?") or first in _QUESTION_WORDS or first in _AUXILIARIES


_VERSION = re.compile(
    r"(?<![\w./-])v?(\d+(?:\.\d+)+)(?![\w/])|\b(?:version|release|v)\s?(\d+)\b|"
    r"(?<![\w./-])v?(\d+(?:\.\d+)*)\.x(?![\w/])",
    re.I,
)
"""A version: dotted numbers not inside a name ("0.33.0", "v2.1", not "HTTP/1.1"), a number
called a version ("version 9", "v9"), or a series ("4.x": the releases of 4)."""
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")


def pointers(question: str) -> list[str]:
    """The versions and years ``question`` names, each once, in order: they point to the part of
    a text about that release or time ("What did 0.33.0 remove?" to the release notes under
    "0.33.0"), which may match the question's other words less than a newer part does."""
    found = [m.group(1) or m.group(2) or m.group(3) for m in _VERSION.finditer(question)]
    found += [m.group(1) for m in _YEAR.finditer(question)]
    return list(dict.fromkeys(found))


_QUOTED = re.compile(r"[\"“`]([\w.-]+(?: [\w.-]+){0,2})[\"”`]")
"""A term a question quotes: "aware", `skip-excluded-dirs` (up to three words)."""
_SHORTEST_TERM = 3
"""A quoted term of this many letters or fewer ("`in`") names no section."""


def quoted_terms(question: str) -> list[str]:
    """The terms ``question`` quotes, each as written and capitalised, each once: they may
    name the section about them (a setting's value "aware" under the heading "Aware")."""
    terms = [m.group(1) for m in _QUOTED.finditer(question) if len(m.group(1)) > _SHORTEST_TERM]
    return list(dict.fromkeys(form for t in terms for form in (t, t[:1].upper() + t[1:])))


_WHEN_ASKED = re.compile(
    rf"^\s*when\b|{_VERSION_ASKED.pattern}|\b(?:which|what)\s+(?:[\w-]+\s+)?(?:year|date)\b",
    re.I,
)
"""A question for a time or a version ("When ...", "Which version ...", "In which year ...")."""


_SINCE_ASKED = re.compile(
    r"\b(?:since|first|start(?:s|ed|ing)?|beg[aiu]n|begins|onwards?|introduced|added|oldest|"
    r"earliest|minimum)\b",
    re.I,
)


def asks_since(question: str) -> bool:
    """Whether ``question`` asks from when something holds ("Since which release ...", "When
    did X start ...", "In which version was X added?", "the oldest Python that ..."): a note of
    an addition answers it, a version given as the last of a range ("3.7 and earlier") does
    not."""
    return _SINCE_ASKED.search(question) is not None


_DEFAULT_ASKED = re.compile(r"\bdefaults?\b", re.I)
_LEFT_UNSET = re.compile(
    r"\b(?:if|when)\s+(?:i|you|we|one)\s+(?:set|pass|give|specify|configure|provide|use)\b"
    r"[^,?]{1,60}?\bbut\s+(?:no|not\s+(?:a|an|the|any))\s+[\w`-]",
    re.I,
)
"""A question of what holds when one setting is left out: "if I set X but no Y"."""


def asks_default(question: str) -> bool:
    """Whether ``question`` asks what holds when nothing is configured ("If I don't configure
    anything, what ...", "What is the default ...", "... unless told otherwise"; see
    :func:`~teams.language.senses.plain_wording`): the sentence saying "The default is ..."
    answers it, even after the one that matches the question's words; so does "if I set X
    but no Y"."""
    wording = _AGAINST_DEFAULT.sub(" ", plain_wording(question))
    return bool(_DEFAULT_ASKED.search(wording) or _LEFT_UNSET.search(question))


_AGAINST_DEFAULT = re.compile(
    r"\b(?:than|instead\s+of|besides|unlike|over)\s+(?:the\s+|its\s+)?defaults?\b", re.I
)
"""The default named as what another thing is measured against ("a faster reloader than the
default stat polling"): the question asks for the other thing, not the default."""


def asks_when(question: str) -> bool:
    """Whether ``question`` asks for a time, a version or a release ("In which version was X
    dropped?"): a heading above the sentence that answers may be what answers it."""
    return _WHEN_ASKED.search(_asked_part(question)) is not None


_CONDITION = re.compile(
    r"^\s*(?:when|if|once|after|before|while)\b[^,?]*,\s*(?=(?:which|what|how|who|where|"
    r"when|why|in which|on which|for which)\b)",
    re.I,
)
"""A condition a question opens with, before its question word ("When I turn X on, ...")."""


_SETTING = re.compile(
    r"^\s*(?:in|on|for|with|under|during|within|using)\b[^,?]*,\s*(?=why\b)", re.I
)
"""The setting a why-question opens with ("In the tutorial, why ...")."""


def _asked_part(question: str) -> str:
    """``question`` without the condition it opens with."""
    return _CONDITION.sub("", question)


_PLATFORM = re.compile(
    r"\b(?:(?P<windows>windows|win32)|(?P<linux>linux)|(?P<macos>macos|mac os|os x|osx|mac)"
    r"|(?P<unix>unix(?:-like)?|posix|bsd|freebsd))\b",
    re.I,
)
_PLATFORM_FAMILY = {
    "windows": {"windows"},
    "linux": {"linux", "unix"},
    "macos": {"macos", "unix"},
    "unix": {"unix", "linux", "macos"},
}
"""What a platform named covers: Unix covers Linux and macOS, and each of them is a Unix."""


def platforms(text: str) -> frozenset[str]:
    """The operating systems ``text`` names, each with the family it belongs to ("On Linux or
    macOS": linux, macos, unix); a sentence naming only others is about another platform."""
    named = {found.lastgroup for found in _PLATFORM.finditer(text) if found.lastgroup}
    return frozenset().union(*(_PLATFORM_FAMILY[name] for name in named))
