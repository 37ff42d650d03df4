"""Plain-text helpers of the offline research roles: sub-questions, keywords, best sentences."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from framework.memory import LIST_MARKER, prose_sentences

__all__ = [
    "STOPWORDS",
    "Scored",
    "best_sentences",
    "keywords",
    "ranked_sentences",
    "scored_sentences",
    "shared_words",
    "singular",
    "split_question",
    "stem",
    "term_weights",
]

STOPWORDS = frozenset(
    """a an and are as at be been but by can could do does did for from how i if in into is it
    its me my of on or our so than that the their them then there these they this those to
    was we were what when where which while who whom why will with would you your about also
    should shall may might must has have had not no yes any all each other such more most
    some very just""".split()
)

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-']*|\d+(?:\.\d+)?")
_PARTS = re.compile(r"\?|;|\.\s|\band then\b|\band also\b|,\s*and\s+", re.IGNORECASE)
_MIN_PART_WORDS = 3


def keywords(text: str) -> list[str]:
    """Content words of ``text``, lower-cased, in order, without stopwords or repeats."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word not in STOPWORDS and len(word) > 1:
            seen.setdefault(word, None)
    return list(seen)


def split_question(question: str, limit: int = 4) -> list[str]:
    """Split a question into up to ``limit`` sub-questions of at least three words.

    Splits on question marks, semicolons, sentence ends and coordinated clauses ("..., and
    ..."), then on a plain " and " joining two clauses that each have a verb-like length, and
    a list of predicates after one subject ("How does a team plan, fan out work") into one
    sub-question each; a question about a list of things asks about each (see
    :func:`_one_per_thing`).
    """
    things = _one_per_thing(question)
    if things:
        return things[:limit]
    parts = [p.strip(" ,.") for p in _PARTS.split(question) if p and p.strip(" ,.")]
    if len(parts) == 1:
        halves = [h.strip(" ,.") for h in re.split(r"\band\b", parts[0], maxsplit=1)]
        if len(halves) == 2:
            halves[1] = _with_subject(halves[1], _lead(halves[0]))
        if len(halves) == 2 and all(len(h.split()) >= _MIN_PART_WORDS for h in halves):
            parts = halves
    lead = _lead(parts[0]) if parts else ""
    parts = [parts[0], *(_with_subject(part, lead) for part in parts[1:])] if parts else []
    parts = [listed for part in parts for listed in _listed(part, lead)]
    subs = [p for p in parts if len(p.split()) >= _MIN_PART_WORDS]
    unique = list(dict.fromkeys(subs))
    return unique[:limit] if len(unique) > 1 else []


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
    return " ".join(words[: min(end, len(words))])


def _listed(part: str, lead: str) -> list[str]:
    """``part`` split at the commas of a list of predicates after ``lead``, each with it."""
    if not lead or not part.startswith(lead) or "," not in part[len(lead) :]:
        return [part]
    predicates = [p.strip() for p in part[len(lead) :].split(",")]
    if not all(predicates):
        return [part]
    return [f"{lead} {predicate}" for predicate in predicates]


def _with_subject(part: str, lead: str) -> str:
    """``part`` as a question that stands alone: a predicate without its subject ("review its
    results") gets the first part's question word, auxiliary and subject; "it" in a question of
    its own ("what is it used for") becomes the first part's subject."""
    words = part.split()
    if not lead or not words or part.startswith(lead):
        return part
    first = words[0].lower()
    if first not in _QUESTION_WORDS and first not in _AUXILIARIES:
        return f"{lead} {part}"
    subject = _subject(lead)
    if not subject:
        return part
    return " ".join(
        _PRONOUNS[word.lower()].format(subject) if word.lower() in _PRONOUNS else word
        for word in words
    )


_PRONOUNS = {"it": "{}", "its": "{}'s"}


def _subject(lead: str) -> str:
    """What "it" stands for after a lead: the thing asked about when the question word has a
    noun ("Which port does Uvicorn use" -> "port"), else the words after its auxiliary."""
    words = lead.split()
    at = next((i for i, w in enumerate(words[:3]) if w.lower() in _AUXILIARIES), None)
    if at is None:
        return ""
    if at > 1 and words[0].lower() in ("which", "what"):
        return " ".join(words[1:at])
    return " ".join(words[at + 1 :])


_PRONOUN = re.compile(
    r"^(?:[^,]{1,40},\s*)?(?:it|its|this|that|these|those|they|their|he|she|his|her)\b", re.I
)
"""A sentence whose subject is a pronoun, after an opening phrase or not ("By default, it ...")."""
_STATEMENT_PRONOUN = re.compile(
    r"^(?:this|that) (?:is|was|means|meant|happens|lets|allows)\b", re.I
)
"""A pronoun standing for the whole statement before ("This is because ...", "This means ...")."""
_CONSEQUENCE = re.compile(
    r"^(?:(?:this|that) (?:means|is why|allows|lets)|therefore|thus|hence|as a result|so)\b", re.I
)
"""A sentence that draws a consequence of the one before: the one before is its cause."""
_COPULA_COMPLEMENT = re.compile(r"\b(?:is|are|was|were)\s+(.+)$", re.I)
_NUMBER = re.compile(
    r"\b\d+(?:[.,]\d+)?\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|twenty|thirty|forty|fifty|hundred|thousand|million|dozen|single|once|twice)\b",
    re.I,
)
_REASON = re.compile(
    r"\b(?:because|since|so that|due to|in order to|as a result|so as to|reason|why|"
    r"to (?:avoid|prevent|ensure|allow|keep|make sure)|otherwise|recommended|useful|benefits?|"
    r"advantages?|resilien\w*|(?:avoid|prevent|ensure|allow|help)s?)\b",
    re.I,
)
_TIME = re.compile(
    r"\b(?:before|after|when|whenever|until|once|while|during|every time|if|unless|"
    r"as soon as|\d{4})\b",
    re.I,
)
_NAME = re.compile(r"`[^`]+`|\"[^\"]{1,40}\"|\b[A-Z][\w.-]*[A-Z0-9_][\w.-]*\b|\b[a-z]+_[a-z_]+\b")
"""A name a sentence gives: a code span, a quoted string, a word with inner capitals or
digits, a snake_case word."""
_QUANTITY_ASKED = re.compile(
    r"\bhow (?:many|much|long|often|large|big|small|far|old|fast)\b|"
    r"\b(?:what|which) (?:is the )?(?:number|size|limit|default|amount|length|count|value)\b",
    re.I,
)
_PROCEDURE_ASKED = re.compile(
    r"^\s*how (?:do|can|should|would|could) (?:i|you|we|one)\b|^\s*how to\b|\bwhat command\b"
)
_NAME_ASKED = re.compile(
    r"^\s*(?:which|who)\b|^\s*what\s+(?!(?:does|do|did|is|are|was|were|can|could|should|"
    r"will|would|happens|happened)\b)",
    re.I,
)
"""A question that asks for a name: "which ...", "who ...", "what <noun> ..." (not "what does
X do", which asks for a description)."""
_SUFFIXES = ("ies", "ied", "ing", "es", "ed", "s", "ly")
_CONTEXT_WEIGHT = 0.3
_KIND_BONUS = 1.5
_EXACT_BONUS = 0.01
_MIN_SCORE_FOR_KIND = 1


_LIST_ASKED = re.compile(
    r"^\s*(?:which|what) (?:two|three|four|five|six|\d+)\b|^\s*what are the (?:two|three|four|"
    r"five|six|\d+)\b|^\s*list\b"
)
"""A question that asks for several things ("which two ...", "list ..."): a lead-in that
introduces a list answers it."""


def _asked(query: str) -> str:
    """What kind of answer ``query`` asks for: list, quantity, procedure, reason, time, name,
    or ""."""
    lowered = query.lower().strip()
    kinds = (
        ("list", _LIST_ASKED.search(lowered)),
        ("procedure", _PROCEDURE_ASKED.search(lowered)),
        ("quantity", _QUANTITY_ASKED.search(lowered)),
        ("reason", lowered.startswith("why")),
        ("time", lowered.startswith("when")),
        ("name", _NAME_ASKED.match(lowered)),
    )
    return next((kind for kind, found in kinds if found), "")


def _gives(kind: str, sentence: str, query_words: set[str]) -> bool:
    """Whether ``sentence`` holds what a question of ``kind`` asks for, beyond the question's
    own words."""
    if kind == "quantity":
        return any(m.group(0).lower() not in query_words for m in _NUMBER.finditer(sentence))
    if kind == "name":
        names = (m.group(0).strip("`").lower() for m in _NAME.finditer(sentence))
        return any(name and name not in query_words for name in names)
    marker = _MARKERS.get(kind)
    return marker is not None and marker.search(sentence) is not None


_MARKERS = {
    "reason": _REASON,
    "time": _TIME,
    "procedure": re.compile(r"`[^`]+`"),
}
"""What a sentence holds that answers a question of a kind: a reason, a time, a command."""
_INTRODUCES = re.compile(r"(?::|\.\.\.|\u2026)$")
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})")
_PROMPT = re.compile(r"^(?:\$|>>>)\s*")


def _with_command(lines: Sequence[str], offset: int, sentence: str) -> str:
    """``sentence`` with the first command of the code block it introduces ("install the
    optional dependencies..." then ``$ pip install ...``), for a question that asks how."""
    if not _INTRODUCES.search(sentence):
        return sentence
    at = offset
    while at < len(lines) and lines[at].strip():  # the end of the sentence's paragraph
        at += 1
    while at < len(lines) and not lines[at].strip():
        at += 1
    if at >= len(lines) or not _FENCE.match(lines[at]):
        return sentence
    for line in lines[at + 1 :]:
        if _FENCE.match(line):
            break
        command = _PROMPT.sub("", line.strip())
        if command and not command.startswith("#"):
            return f"{sentence} `{command}`"
    return sentence


def singular(noun: str) -> str:
    """A regular plural noun made singular: ``arches``, ``entries``, ``databases``, ``books``;
    ``class`` and short words stay."""
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith(("sses", "shes", "ches", "xes", "zes")):
        return noun[:-2]
    if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3:
        return noun[:-1]
    return noun


def stem(word: str) -> str:
    """A crude stem, enough to match ``specify``/``specifies``, ``connection``/``connections``,
    and a doer with its deed: ``planner``/``planned``/``plan``, ``reviewers``/``review``."""
    for suffix in _SUFFIXES:
        if suffix == "ly" and word.endswith("ply"):  # "supply", "apply": no adverbs
            continue
        if suffix == "es" and not word.endswith(_SIBILANT_PLURALS):  # "notes": "s" only
            continue
        if suffix == "s" and word.endswith("ss"):  # "process", "class"
            break
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    else:
        return _undoer(word) if len(word) >= _AGENT_LENGTH else word
    return _undoubled(_undoer(word) if len(word) >= _AGENT_LENGTH else word)


_AGENT_LENGTH = 6
_SIBILANT_PLURALS = ("sses", "shes", "ches", "xes", "zes")
_DOUBLED = re.compile(r"([bdgmnprt])\1$")


def _undoer(word: str) -> str:
    """``planner`` -> ``plan``: an agent noun's "-er" cut (and its doubled consonant)."""
    return _undoubled(word[:-2]) if word.endswith("er") else word


def _undoubled(word: str) -> str:
    return word[:-1] if _DOUBLED.search(word) else word


def _stems(text: str, *, parts: bool = False) -> set[str]:
    """The stems of the content words of ``text`` (and, with ``parts``, of the parts of its
    hyphenated, snake_case and joined-up words: a sentence's "planner-workers-reviewer" holds
    "planner", its "raise_server_exceptions" holds "server", its "ConnectError" holds
    "error")."""
    words = keywords(text)
    if parts:
        words += [part for word in words if "-" in word for part in word.split("-")]
        words += [part for word in words if "_" in word for part in word.split("_")]
        words += [part.lower() for part in _JOINED.findall(text)]
    return {stem(word) for word in words if word and word not in STOPWORDS}


_JOINED = re.compile(r"(?<=[a-z])[A-Z][a-z]{2,}")
"""The second and later parts of a joined-up name ("Error" of "ConnectError")."""


def _sentences(text: str) -> list[tuple[int, str]]:
    """The prose sentences of ``text`` of at least three words, and every list item."""
    lines = text.split("\n")
    return [
        (offset, sentence)
        for offset, sentence in prose_sentences(text, first_line=0)
        if len(sentence.split()) >= _MIN_PART_WORDS or LIST_MARKER.match(lines[offset])
    ]


def term_weights(texts: Sequence[str], query: str, topic: str = "") -> dict[str, float]:
    """How much each of the query's words counts: more the rarer it is among the sentences of
    ``texts`` (a word every sentence holds, such as the product's name, counts least), and
    less when it is a word of ``topic`` (what every part of a split question shares: "cadre
    team" of "How does a cadre team plan", "... fan out work")."""
    words = [_stems(sentence, parts=True) for text in texts for _, sentence in _sentences(text)]
    shared = _stems(topic)
    return {
        term: (1.0 + math.log((len(words) + 1) / (1 + sum(term in w for w in words))))
        * (_TOPIC_WEIGHT if term in shared else 1.0)
        for term in _stems(query)
    }


_TOPIC_WEIGHT = 0.3


def shared_words(parts: Sequence[str]) -> str:
    """The content words every one of ``parts`` holds, in the first part's order ("" for fewer
    than two parts): the topic of a split question."""
    if len(parts) < 2:
        return ""
    common = set.intersection(*(set(keywords(part)) for part in parts))
    return " ".join(word for word in keywords(parts[0]) if word in common)


@dataclass(frozen=True)
class _Listing:
    """How the sentences of a text hang together: each list item's lead-in, each lead-in's
    follower, and the lead-ins that introduce a list."""

    leads: dict[int, int]
    """Sentence index -> the index of the lead-in it continues (an item of its list, or the
    first sentence after a lead-in that introduces no list)."""
    lists: frozenset[int]
    """The lead-ins whose list follows them."""


_LEAD_IN = re.compile(r"(?::|\.\.\.|\u2026|\bas follows[.:]?|\bthe following[.:]?)$", re.I)


def _listing(text: str, sentences: Sequence[tuple[int, str]]) -> _Listing:
    """Which sentences continue a lead-in: the items of a list after a sentence ending in a
    colon ("There are two event hooks:") or a one-sentence paragraph right before it (sentences
    indented under an item keep the list open); and the sentence of the paragraph right after
    a lead-in that introduces no list ("... as follows:")."""
    lines = text.split("\n")
    leads: dict[int, int] = {}
    lists: set[int] = set()
    lead, in_list = -1, False
    for index, (offset, _) in enumerate(sentences):
        line = lines[offset] if offset < len(lines) else ""
        if LIST_MARKER.match(line):
            if lead >= 0 and (in_list or _introduces(lines, sentences[lead], offset)):
                leads[index], in_list = lead, True
                lists.add(lead)
            continue
        if in_list and line[:1] in (" ", "\t"):  # a paragraph of the item above
            continue
        introduced = lead >= 0 and not in_list and _LEAD_IN.search(sentences[lead][1])
        if introduced and _next_paragraph(lines, sentences[lead][0]) == offset:
            leads[index] = lead
        lead, in_list = index, False
    return _Listing(leads, frozenset(lists))


def _introduces(lines: Sequence[str], lead: tuple[int, str], item: int) -> bool:
    """Whether sentence ``lead`` introduces the list whose first item is on line ``item``: it
    ends in a colon, or it is a paragraph of its own right before the list."""
    offset, sentence = lead
    alone = offset == 0 or not lines[offset - 1].strip()
    return bool(_LEAD_IN.search(sentence)) or (alone and _next_paragraph(lines, offset) == item)


def _next_paragraph(lines: Sequence[str], offset: int) -> int:
    """The line the paragraph after the one holding line ``offset`` starts on."""
    at = offset
    while at < len(lines) and lines[at].strip():
        at += 1
    while at < len(lines) and not lines[at].strip():
        at += 1
    return at


_HEAD_WORDS = 10
_ITEM_HEAD = re.compile(r" [-\u2013\u2014] |: ")
"""What ends an item's name: a dash between spaces or a colon ("`scope` - A dictionary",
"**Command Line**: Use ...")."""


def _with_items(sentences: Sequence[tuple[int, str]], listing: _Listing) -> list[str]:
    """The text of each sentence, each lead-in of a list followed by the heads of its items
    ("The order ... is: From an environment variable; From the `.env` file; ..."): what the
    list says is what the lead-in answers. An item's head is its name, or its first ten
    words."""
    items: dict[int, list[str]] = {}
    for index, lead in listing.leads.items():
        if lead in listing.lists:
            head = _ITEM_HEAD.split(sentences[index][1], maxsplit=1)[0].split()[:_HEAD_WORDS]
            items.setdefault(lead, []).append(" ".join(head).rstrip(".;,"))
    return [
        f"{sentence} {'; '.join(items[index])}." if index in items else sentence
        for index, (_, sentence) in enumerate(sentences)
    ]


_CROWDED_WORDS = 25


def _crowding(words: int) -> float:
    """How much a sentence of many content words has its matches discounted: one that holds
    25 or fewer counts in full, one of 50 at two thirds (a long sentence matches many
    questions a little)."""
    return 1.0 + 0.5 * max(0.0, words / _CROWDED_WORDS - 1.0)


_RESTATED = 0.5
"""What a sentence that says nothing beyond a question's words keeps of its score (a
restatement of the question, a title in a sentence's place); a statement searched for (a
claim being checked) is matched in full."""
_LEADING = 0.9
"""What a lead-in that introduces no list keeps of its score: the sentence after it, which
holds its words too, says what it announces."""
_SUBJECT_WORDS = 6


@dataclass(frozen=True)
class Scored:
    """A sentence of a text scored against a query (see :func:`best_sentences`)."""

    score: float
    offset: int
    """The 0-based line the sentence starts on."""
    sentence: str
    """The sentence as written; a lead-in of a list is followed by its items' heads."""
    hits: frozenset[str]
    """The query's stems it holds: its own, its pronoun's or its lead-in's."""
    cause: bool = False
    """Whether it draws a consequence of the sentence before ("This means ..."), its cause."""
    pronoun: bool = False
    """Whether its subject is a pronoun for what came before."""
    borrowed: bool = False
    """Whether some of its hits are the words of what its pronoun stands for, not its own."""
    lead_in: int | None = None
    """For an item of a list, the index of the lead-in that quotes the list."""


def ranked_sentences(
    text: str, query: str, heading: str = "", weights: Mapping[str, float] | None = None
) -> list[Scored]:
    """Every sentence of ``text`` scored against ``query``, in text order; see
    :func:`best_sentences` for the score. ``weights`` are the query's words' weights
    (:func:`term_weights` over the texts searched together; by default over ``text``
    alone)."""
    kind = _asked(query)
    sentences = _sentences(text)
    if kind == "procedure":
        lines = text.split("\n")
        sentences = [(offset, _with_command(lines, offset, s)) for offset, s in sentences]
    words = [_stems(sentence, parts=True) for _, sentence in sentences]
    weight = dict(weights) if weights is not None else term_weights([text], query)
    terms = set(weight)
    exact = set(keywords(query))
    around = _stems(heading)
    listing = _listing(text, sentences)
    listed = _with_items(sentences, listing)
    asks = _is_question(query)  # a statement searched for (a claim checked) is no question
    scored = []
    for index, (offset, sentence) in enumerate(sentences):
        lead = listing.leads.get(index)
        own = set(words[index]) | (words[lead] if lead is not None else set())
        pronoun = _PRONOUN.match(sentence) is not None
        if index and _STATEMENT_PRONOUN.match(sentence):  # "This is because ...": all before
            antecedent = words[index - 1]
        elif pronoun:  # "It is quarried near ...": it is the subject before
            antecedent = _subject_stems(sentences[index - 1][1] if index else heading)
        else:
            antecedent = set()
        borrowed = bool(terms & antecedent - own)
        own |= antecedent
        context = around | (words[index - 1] if index else set())
        context |= words[index + 1] if index + 1 < len(words) else set()
        hits = terms & own
        score = sum(weight[term] for term in hits) / _crowding(len(own))
        score += _EXACT_BONUS * len(exact & set(keywords(sentence)))  # the word as asked
        score += _CONTEXT_WEIGHT * sum(weight[term] for term in terms & (context - own))
        gives = index in listing.lists if kind == "list" else _gives(kind, listed[index], terms)
        if len(hits) >= _MIN_SCORE_FOR_KIND and gives:
            score += _KIND_BONUS
        said = _stems(listed[index], parts=True) if index in listing.lists else words[index]
        if asks and not said - terms:
            score *= _RESTATED
        if index in listing.leads.values() and index not in listing.lists:
            score *= _LEADING
        cause = bool(index and _CONSEQUENCE.match(sentence))
        scored.append(
            Scored(
                score,
                offset,
                listed[index],
                frozenset(hits),
                cause,
                pronoun,
                borrowed,
                lead if lead in listing.lists else None,
            )
        )
    return scored


def _is_question(text: str) -> bool:
    """Whether ``text`` asks: it ends in a question mark or opens with a question word or an
    auxiliary ("Does it ...")."""
    first = text.split(maxsplit=1)[0].lower() if text.strip() else ""
    return text.rstrip().endswith("?") or first in _QUESTION_WORDS or first in _AUXILIARIES


def _subject_stems(sentence: str) -> set[str]:
    """The stems of what a pronoun after ``sentence`` may stand for: its first words, and what
    follows its "is" ("The first server is the Daphne webserver. It ...")."""
    stems = _stems(" ".join(sentence.split()[:_SUBJECT_WORDS]))
    complement = _COPULA_COMPLEMENT.search(sentence)
    if complement:
        stems |= _stems(" ".join(complement.group(1).split()[:_SUBJECT_WORDS]))
    return stems


def scored_sentences(
    text: str, query: str, heading: str = "", weights: Mapping[str, float] | None = None
) -> list[tuple[float, int, str]]:
    """Every sentence of ``text`` with how well it answers ``query``, in text order:
    ``(score, line offset, sentence)`` (see :func:`ranked_sentences`)."""
    ranked = ranked_sentences(text, query, heading, weights)
    return [(item.score, item.offset, item.sentence) for item in ranked]


def best_sentences(
    text: str, query: str, limit: int = 2, heading: str = ""
) -> list[tuple[int, str]]:
    """The ``limit`` sentences of ``text`` that answer ``query`` best.

    A sentence scores the query's content words it holds (crudely stemmed, each weighted by how
    rare it is among the text's sentences, discounted in a sentence of more than 25 content
    words), a leading pronoun counting as the subject it stands for (the previous sentence's
    first words, or the heading); its neighbours and the heading add a little (``0.3`` of a word
    they hold that it does not); a word in the very form the query has it adds ``0.01`` (breaks
    ties with a stem match); and a sentence that holds what the question asks for (a number for
    "how many", a reason for "why", a time for "when", a name for "which", the lead-in of a list
    for "which two", a command for "how do I": a sentence that introduces a code block carries
    its first command) gains 1.5. A short list item competes as any sentence does, holding the
    words of its lead-in ("There are two event hooks:"), and so does the sentence after a
    lead-in that introduces no list ("... as follows:"; the lead-in keeps 0.9 of its score); a
    sentence that says nothing beyond the question's words keeps half.
    Ties go to the earlier sentence.

    Returns ``(line offset, sentence)`` pairs in their order in the text: the 0-based line
    each sentence starts on, and the sentence as written (see
    :func:`framework.memory.prose_sentences`). Falls back to the first sentence when nothing
    overlaps.
    """
    ranked = [
        (score, -index, offset, sentence)
        for index, (score, offset, sentence) in enumerate(scored_sentences(text, query, heading))
    ]
    if not ranked:
        return []
    top = sorted(ranked, reverse=True)[:limit]
    if top[0][0] == 0:
        top = top[:1]
    return [(offset, sentence) for _, _, offset, sentence in sorted(top, key=lambda t: -t[1])]
