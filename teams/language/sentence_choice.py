"""Sentence choice: how well each sentence of a text answers a query, and the best ones
(:func:`best_sentences` says how a sentence scores)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from functools import lru_cache

from teams.language._sentences import (
    Listing,
    listing_of,
    sentences_of,
    with_command,
    with_items,
)
from teams.language.questions import (
    answer_kind,
    asks_default,
    asks_since,
    avoided,
    is_question,
    pointers,
)
from teams.language.senses import plain_wording, sense
from teams.language.values import full_dates
from teams.language.words import STOPWORDS, joined_codes, keywords, stem

__all__ = [
    "Scored",
    "another_version",
    "best_sentences",
    "foreign_versions",
    "given",
    "gives",
    "gives_reason",
    "named_in_code",
    "product_versions",
    "products_asked",
    "ranked_sentences",
    "scored_sentences",
    "term_weights",
]

_LEAD = r"^[*_`(\"']*(?:(?:and|but|so|yet|also|still)\s+[*_`\"']*)?"
"""What may open a sentence before its subject without changing it: emphasis, an opening
parenthesis, a conjunction ("But **it works great ...**", "(This is also ...)")."""
_PRONOUN = re.compile(
    rf"{_LEAD}(?:[^,]{{1,40}},\s*)?(?:it|its|this|that|these|those|they|their|he|she|his|her)\b",
    re.I,
)
"""A sentence whose subject is a pronoun, after an opening phrase or not ("By default, it ...")."""
_STATEMENT_PRONOUN = re.compile(
    rf"{_LEAD}(?:this|that) (?:is|was|means|meant|happens|lets|allows)\b", re.I
)
"""A pronoun standing for the whole statement before ("This is because ...", "This means ...")."""
_CONSEQUENCE = re.compile(
    r"^(?:(?:this|that|such)(?: \w+)? (?:means|meant|is why|allows|lets|implies|leads to|"
    r"results in|has the (?:implication|effect|consequence))|therefore|thus|hence|"
    r"as a result|consequently|so|for (?:this|that|these|those|the same) reasons?)\b",
    re.I,
)
"""A sentence that draws a consequence of the one before, which is its cause ("This means
...", "This decision has the implication that ...", "For that reason, ...")."""
_POINTING = re.compile(
    rf"{_LEAD}(?:(?:if|when|whenever|since|because|as|although|though|while|unless|once|after|"
    r"before|until|whereas)\b[^,;:]{1,100},\s*|[^,]{1,40},\s*)?(?:this|that|these|those) "
    r"([a-z]\w+)",
    re.I,
)
"""A "this X" subject: the X it points back to ("This constraint is intentional ..."), after
an opening phrase or a subordinate clause ("Since the change ... could break ..., this fix
...": a pronoun there may stand for the clause's own subject, "this X" stands for X)."""
_POINTING_INSIDE = re.compile(r"^(?:[\w'`-]+\s+){1,3}?(?:this|these) ([a-z]\w+)\b", re.I)
"""A "this X" early in a sentence, after its first words ("You can fix this issue by ...")."""
_BARE_NOTE = re.compile(r"^(?:Added|Changed|Deprecated|Removed) in \S+:$")
"""A version note standing alone above the text it is about ("Changed in 2.9:")."""
_SUBJECTLESS = re.compile(
    r"^[A-Z][a-z]+[^s\W]s "
    r"(?:(?:a|an|the|some|any|all|each|every|its|their|one|no)\b|[A-Z`\[*]|\w+-\w"
    r"|to\s+(?:(?:a|an|the)\b|`))"
)
"""A sentence that opens with its verb, its subject left to the heading above ("Takes some
data and returns ...", "Captures Python-level writes ...", "Maps to the ``timeouts.command``
setting.")."""
_CHAIN = 2
"""How many sentences back a pronoun's chain of antecedents is followed."""
_NAMED_REACH = 4
"""How many sentences back a "this X" is followed to a sentence that names X other than as
"this X" ("... toggle the `explicit-preview-rules` setting ... [an example, two sentences] ...
this setting has no effect"): the name says which one it stands for."""
_SHARED_PREFIX = 6
"""How many first letters a "this X" shares with an earlier word it names ("constraint",
"constrained")."""
_COPULA_COMPLEMENT = re.compile(r"\b(?:is|are|was|were)\s+(.+)$", re.I)
_NUMBER = re.compile(
    r"\b\d{1,3}(?:,\d{3}){2,}\b|\b\d+(?:[.,]\d+)?(?=(?:ms|s|min|h|d|[kmgt]i?b|k|x|px)?\b)|"
    r"\b(?:one(?!\s+(?:or\s+more|of|another|by\s+one|at\s+a\s+time)\b)|two|three|four|five|six|"
    r"seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|"
    r"dozen|single|once|twice)\b",
    re.I,
)
"""A figure: "1,000,000" whole, "200" of "200ms" (its unit written on), a number in words (not
the "one" of "one or more", "one of", "one another")."""
_REASON = re.compile(
    r"\b(?:because|since|so that|due to|in order to|as a result|so as to|reason|why|"
    r"to (?:avoid|prevent|ensure|allow|keep|make sure)|otherwise|recommended|useful|benefits?|"
    r"advantages?|resilien\w*|(?:avoid|prevent|ensure|allow|help)s?|"
    r"(?<=, )so(?!\s+(?:that|as|far|on|long)\b)|"
    r"would\s+(?:cause|create|break|lead to|result in|conflict|fail))\b",
    re.I,
)
_TIME = re.compile(
    r"\b(?:before|after|when|whenever|until|once|while|during|every time|if|unless|"
    r"as soon as|\d{4})\b",
    re.I,
)
_NAME = re.compile(
    r"`[^`]+`|\"[^\"]{1,40}\"|\b[A-Z][\w.-]*[A-Z0-9_][\w.-]*\b|\b[a-z]+_[a-z_]+\b"
    r"|^[a-z][\w.-]*(?=:\s)"
)
"""A name a sentence gives: a code span, a quoted string, a word with inner capitals or
digits, a snake_case word, the term a definition opens with ("crosshair: Generates ...")."""
_CONTEXT_WEIGHT = 0.3
_KIND_BONUS = 1.5
_EXACT_BONUS = 0.01
_MIN_SCORE_FOR_KIND = 1


def _only_ceilings(sentence: str, query_words: set[str]) -> bool:
    """Whether every version ``sentence`` gives is the last of a range ("3.7 and earlier"): it
    tells until when, not since when (for a question that :func:`asks_since`)."""
    values = _values("version", sentence, query_words)
    return bool(values) and values <= _ceilings(sentence)


def _ceilings(sentence: str) -> set[str]:
    """The versions ``sentence`` gives as the last of a range (see :data:`_CEILING`)."""
    return {(found.group(1) or found.group(2)).lower() for found in _CEILING.finditer(sentence)}


def _tells_no_start(sentence: str, listed: str, kind: str, terms: set[str], bonus: bool) -> bool:
    """For a question of since when, whether ``sentence`` tells of no start: it says a thing
    went on as it was (:data:`_KEPT`), or, not answering the question's kind otherwise, gives
    versions only as ceilings (``listed`` is the sentence with its list's items)."""
    ceiling = not bonus and kind == "version" and _only_ceilings(listed, terms)
    return ceiling or _KEPT.search(sentence) is not None


def _gives(
    kind: str,
    sentence: str,
    query_words: set[str],
    since: bool = False,
    products: frozenset[str] = frozenset(),
) -> bool:
    """Whether ``sentence`` holds what a question of ``kind`` asks for, beyond the question's
    own words (for a question that asks ``since`` when, a version not only as a ceiling; for
    one that names ``products``, a version not of another product)."""
    if kind in _VALUES:
        values = _values(kind, sentence, query_words, products)
        if kind == "version" and since and _only_ceilings(sentence, query_words):
            return False  # "3.7 and earlier" began nothing
        return bool(values)
    marker = _MARKERS.get(kind)
    found = marker.finditer(sentence) if marker is not None else ()
    return any(stem(m.group(0).lower()) not in query_words for m in found)  # "help pages"


_CEILING = re.compile(
    r"(?<![\w./])(v?\d+(?:\.\d+)+)\s+(?:and|or)\s+(?:earlier|older|below|lower|before)\b"
    r"|\b(?:up (?:through|to|until)|through|until|prior to)\s+(?:[A-Z][\w+-]*\s+)?"
    r"(v?\d+(?:\.\d+)+)(?![\w/])",
    re.I,
)
"""A version given as the last of a range ("3.7 and earlier", "2.1 or older", "up through
SQLAlchemy 1.3")."""
_KEPT = re.compile(r"\b(?:kept|remains?|remained|stays?|stayed|unchanged|continues? to)\b", re.I)
"""A sentence saying a thing went on as it was ("Default version kept at 2.4"): for a question
of since when, it tells of no start."""
_MARKERS = {
    "reason": _REASON,
    "time": _TIME,
    "procedure": re.compile(r"`[^`]+`"),
}
"""What a sentence holds that answers a question of a kind: a reason, a time, a command."""
_VALUES = {
    "quantity": _NUMBER,
    "name": _NAME,
    "version": re.compile(
        r"(?<![\w./])(?>v?\d+(?:\.\d+)+(?:(?:a|b|rc|alpha|beta|dev|post)\.?\d*)?)(?![\w/])"
    ),
}
"""The values a sentence gives that answer a question of a kind: a figure, a name, a version
("3.10", "v2.1", a pre-release "4.0.0a2" whole; not "HTTP/1.1")."""


_TRACKER_NUMBER = re.compile(
    r":(?:bug|issue|feature|support|pr|release|ref|doc)s?:`[^`]*`|#\d+\b|\b(?:PR|issue|bug)\s+#?\d+\b",
    re.IGNORECASE,
)
"""A number that names an issue, a pull request or a release, no quantity (":bug:`349 major`",
"#1040", "PR 1222")."""
_DIFFERENCE = re.compile(
    r"(?:\s*[\w%]+){0,2}?\s+(?:higher|lower|more|less|longer|shorter|greater|fewer|bigger|"
    r"smaller|faster|slower|earlier|later|above|below)\s+than\b",
    re.I,
)
"""What follows a figure given as a difference from another ("10 seconds higher than the
`dequeue_timeout`"): no value of the thing itself."""


def _values(
    kind: str, sentence: str, query_words: set[str], products: frozenset[str] = frozenset()
) -> set[str]:
    if kind == "time":  # a day: "2021-02-26", "26 February 2021", "(2021-02-26)"
        return set(full_dates(sentence))
    if kind == "quantity":
        sentence = _TRACKER_NUMBER.sub(" ", sentence)  # ":bug:`349 major`" counts nothing
    found = (
        m.group(0).strip("`").lower()
        for m in _VALUES[kind].finditer(sentence)
        if kind != "quantity" or not _DIFFERENCE.match(sentence, m.end())
    )
    values = {value for value in found if value and value not in query_words}
    if kind == "version" and products:
        values -= _versions_of_others(sentence, products | query_words)
    return values


_NAMED_VERSION = re.compile(r"\b([A-Z][\w+-]*)\s+(v?\d+(?:\.\d+)+)(?![\w/])")
"""A version written after the name of what it is a version of ("OpenSSL 3.0", "Python 3.12")."""
_NOT_NAMES = frozenset(
    "version versions release releases v since in from before after until added changed "
    "deprecated removed new the a an and or to of at by as with".split()
)
"""Capitalised words before a version that name no product ("Version 2.0", "Since 1.4")."""
_LIBRARY = re.compile(
    r"\bthe\s+(?!(?:standard|same|main|whole|new|old|core|bare|base|top|own|on-disk|built-in|"
    r"third-party|external|internal|default|entire|parent|root)\s)([a-z][\w.-]*(?<!ed))\s+"
    r"(?:library|package|module)\b"
)
"""A library named in lower case ("the packaging library"; not "the standard library")."""
_PRODUCT = re.compile(r"(?<=[\w,;] )[A-Z][\w+-]*[A-Za-z]\b")
"""A capitalised word inside a question, not its first: a name ("oldest Python", "TLS")."""


@lru_cache(maxsize=1024)
def question_products(query: str) -> frozenset[str]:
    """The names a question gives of things with versions, lowercased ("Python" in "What is
    the oldest Python that ...", "packaging" in "the packaging library")."""
    found = (word.lower() for word in [*_PRODUCT.findall(query), *_LIBRARY.findall(query)])
    return frozenset(word for word in found if word not in _NOT_NAMES)


def _off_question(sentence: str, adds: bool, asks: bool, query: str) -> float:
    """What a sentence keeps of its score when it answers nothing of the question itself: a
    question the text asks, or one that only repeats the question's words (unless it ``adds``
    something, or its heading gives the value asked: "3.7.0" above "Dropped support for Python
    3.4"); one that gives a product named in the question another version (see
    :func:`_another_version`)."""
    keep = _RESTATED if asks and (not adds or sentence.rstrip().endswith("?")) else 1.0
    return keep * _SET_ASIDE if another_version(sentence, query) else keep


def another_version(sentence: str, query: str) -> bool:
    """Whether ``sentence`` gives a product ``query`` names another version than the query's
    (see :func:`_another_version`): "drops Python 3.7" for a question of Python 3.9."""
    asked = _named_versions(query)
    return bool(asked) and _another_version(sentence, asked)


def product_versions(text: str) -> list[tuple[str, str]]:
    """The versions ``text`` writes after a product's name, with the name ("Python 3.4":
    ("Python", "3.4"))."""
    return [pair for pair in _NAMED_VERSION.findall(text) if pair[0].lower() not in _NOT_NAMES]


@lru_cache(maxsize=1024)
def _named_versions(text: str) -> dict[str, str]:
    """The versions ``text`` writes after a product's name, in one form, by the name
    lowercased ("Python 3.4": {"python": "3.4"})."""
    return {name.lower(): _one_form(version) for name, version in product_versions(text)}


def _another_version(sentence: str, asked: Mapping[str, str]) -> bool:
    """Whether ``sentence`` gives a product named in the question another version than the
    question's, and never the question's: after the product's name ("Python 3.3" when Python
    3.4 is asked about; "Python 2", a major version alone), or alone in the same series
    ("running nox itself in 3.7" when Python 3.9 is asked about; not "2024.10.09", a release of
    another kind)."""
    versions = {_one_form(found.group(0)) for found in _VALUES["version"].finditer(sentence)}
    if any(version in versions for version in asked.values()):
        return False
    given = _named_versions(sentence)
    series = {version.split(".")[0] for version in asked.values()}
    others = set(given.values()) - {v for n, v in given.items() if n in asked}
    alone = {
        version
        for version in versions - others
        if version.split(".")[0] in series
        and not any(version.startswith(f"{one}.") for one in asked.values())  # 4.0.0a2 of 4.0
    }
    majors = (  # "Support for Python 2 will be dropped", not "Python 3" for 3.9
        name.lower()
        for name, major in _MAJOR_NAMED.findall(sentence)
        if name.lower() in asked and not asked[name.lower()].startswith(f"{major}.")
    )
    return any(name in asked for name in given) or bool(alone) or any(majors)


_MAJOR_NAMED = re.compile(r"\b([A-Z][\w+-]*)\s+v?(\d{1,2})(?![\w.]|\.\d)")
"""A product's major version alone after its name: "Python 2"."""


_RELEASE_ASKED_OF = re.compile(
    r"\b([A-Z][\w+-]*)\s+(?:v?\d[\w.]*\s+)?(?:version|(?:pre-?)?release)s?\b"
)
"""The product whose release a question asks for ("the first APScheduler release",
"Which Sphinx version")."""


@lru_cache(maxsize=1024)
def foreign_versions(query: str) -> frozenset[str]:
    """The versions ``query`` gives of another product than the one whose release it asks for
    ("3.4" of "Python 3.4" in "the first APScheduler release that no longer runs on Python
    3.4"): they point to no release of the asked one."""
    asked = products_asked(query)
    return frozenset(
        version for name, version in product_versions(query) if asked and name.lower() not in asked
    )


def products_asked(query: str) -> set[str]:
    """The products, lowercased, whose release ``query`` asks for (see
    :data:`_RELEASE_ASKED_OF`)."""
    return {found.lower() for found in _RELEASE_ASKED_OF.findall(query)} - _NOT_NAMES


def versions_of_others(sentence: str, query: str) -> set[str]:
    """The versions ``sentence`` gives of products ``query`` does not name, when it names one
    ("3.0" of "Python is using OpenSSL 3.0" for "the oldest Python that ...")."""
    products = question_products(query)
    return _versions_of_others(sentence, products | _stems(query)) if products else set()


def _versions_of_others(sentence: str, named: Set[str]) -> set[str]:
    """The versions ``sentence`` writes after the name of a product the question does not name
    ("3.0" of "OpenSSL 3.0" for a question of the oldest Python): not the one asked for."""
    return {
        match.group(2).lower()
        for match in _NAMED_VERSION.finditer(sentence)
        if (name := match.group(1).lower()) not in _NOT_NAMES
        and name not in named
        and stem(name) not in named
    }


def gives(kind: str, sentence: str, query: str) -> bool:
    """Whether ``sentence`` holds what a question of ``kind`` (see
    :func:`~teams.language.questions.answer_kind`) asks for, beyond ``query``'s own words: a
    figure, a version, a name."""
    return _gives(kind, sentence, _stems(query), asks_since(query), question_products(query))


def given(kind: str, sentence: str, query: str) -> set[str]:
    """The figures, names, versions or days (for a question of that ``kind``; a day as an ISO date)
    that ``sentence`` gives beyond the words, versions and years ``query`` names, each in one form
    (lowercased, a word by its stem, a version without its trailing zeros: "1.0" is "1.0.0"); empty
    for another kind. For a question of one product's release that names another's version ("the
    first APScheduler release that no longer runs on Python 3.4"), the other product's versions are
    not given, and that version as a release of the one asked is."""
    if kind not in _VALUES and kind != "time":
        return set()
    foreign = {_one_form(version) for version in foreign_versions(query)}
    named = (_stems(query) | {_one_form(pointer) for pointer in pointers(query)}) - foreign
    found = _values(kind, sentence, set(), question_products(query))
    if foreign:  # the release asked for: not "3.4" of "Python 3.4", and "3.4.0" a rival
        found -= _versions_of_others(sentence, products_asked(query))
    if kind == "version" and asks_since(query):
        found -= _ceilings(sentence) - _ends_before(sentence, query)  # "up through 1.3"
    return {_one_form(value) for value in found} - named


_NO_LONGER = re.compile(r"\b(?:no longer|not|never|stopped|ceased)\b|n't\b", re.I)
"""A question of since when a thing has not been so ("Since which release is X no longer
built in?")."""
_BEFORE = re.compile(
    r"\b(?:prior to|before)\s+(?:[A-Z][\w+-]*\s+)?(v?\d+(?:\.\d+)+)(?![\w/])", re.I
)
"""A version a thing was so before ("Prior to Datasette 0.61 ...")."""


def _ends_before(sentence: str, query: str) -> set[str]:
    """For a question of since when a thing has no longer been so, the versions ``sentence``
    says it was so before ("Prior to Datasette 0.61 hashed URL mode was a core feature"):
    since each, it has not been."""
    if not _NO_LONGER.search(query):
        return set()
    return {found.group(1).lower() for found in _BEFORE.finditer(sentence)}


def named_in_code(sentence: str, query: str) -> str:
    """The name ``sentence`` gives as code (a code span, a reStructuredText substitution:
    "``context``", "|patch|") for what ``query`` asks to be named: the first one written beside
    the noun the question asks for ("the ``context`` argument" for "Which argument ..."), else
    the first that is not the question's own words; "" when there is none. What "it" in a later
    part of the question stands for."""
    asked, nouns = _stems(query), _asked_nouns(query)
    names = [
        (match.group("code") or match.group("ref"), match.start(), match.end())
        for match in _CODE_NAME.finditer(sentence)
    ]
    for name, start, end in names:
        beside = (*sentence[:start].split()[-1:], *sentence[end:].split()[:1])
        if nouns & {stem(word.strip(".,;:()").lower()) for word in beside}:
            return name
    return next((name for name, _, _ in names if not _stems(name) <= asked), "")


def _asked_nouns(query: str) -> set[str]:
    """The stems of the two words after a question's "which" or "what" ("argument" of "Which
    argument of add() ..."), less stopwords."""
    found = _WHICH_WORDS.search(query)
    words = found.group(1).lower().split() if found else []
    return {stem(word) for word in words if word not in STOPWORDS}


_WHICH_WORDS = re.compile(r"\b(?:which|what)\s+((?:[\w-]+\s*){1,2})", re.I)
_CODE_NAME = re.compile(
    r"`+(?P<code>[^`\s][^`]{0,39}|[^`\s./~]{41,80})`+|\|(?P<ref>[\w.()-]{1,40})\|"
)
"""A name written as code: a code span of up to 40 characters, or of up to 80 without a space,
a dot or a slash (an environment variable's long name:
"``PIP_NO_PARTIAL_CLONE_FOR_BROKEN_GIT_SERVER=1``", not a long dotted path to an API's page), a
substitution reference."""


_TRAILING_ZEROS = re.compile(r"^v?(\d+(?:\.\d+)*?)(?:\.0)*$")


def _one_form(value: str) -> str:
    version = _TRAILING_ZEROS.match(value)
    return version.group(1) if version else stem(value)


def gives_reason(sentence: str) -> bool:
    """Whether ``sentence`` says why in words of its own ("because", "so that", "to avoid"); an
    example ("For example, it would avoid ...") gives none."""
    return _REASON.search(sentence) is not None and not _EXAMPLE.match(sentence)


_EXAMPLE = re.compile(r"\W*(?:for (?:example|instance)|e\.g\.|as an example)\b", re.I)
"""A sentence that opens as an example of what was said before it."""


def _stems(text: str, *, parts: bool = False) -> set[str]:
    """The stems of the content words of ``text``: see :func:`_stem_set` (a copy: the caller
    may change it)."""
    return set(_stem_set(text, parts))


@lru_cache(maxsize=32768)
def _stem_set(text: str, parts: bool) -> frozenset[str]:
    """The stems of the content words of ``text`` (and, with ``parts``, of the parts of its
    hyphenated, snake_case and joined-up words: a sentence's "planner-workers-reviewer" holds
    "planner", its "raise_server_exceptions" holds "server", its "ConnectError" holds
    "error"). A word stands for its sense: "turn X off" and "disable X" meet. A word made with a
    prefix stands for its root too ("per-user" holds "user"), one of a kind for what makes it
    ("thread-based" holds "thread"), and a code of letters and a number is one word with its
    hyphen or without ("utf-8" holds "utf8")."""
    words = keywords(plain_wording(text))
    words += [
        root
        for word in words
        for prefix, _, root in [word.partition("-")]
        if root and prefix in _PREFIXES
    ]
    words += [
        head
        for word in words
        for head, _, tail in [word.rpartition("-")]
        if head and tail in _KIND_TAILS
    ]
    words += joined_codes(words)
    if parts:
        words += [part for word in words if "-" in word for part in word.split("-")]
        words += [part for word in words if "_" in word for part in word.split("_")]
        words += [part.lower() for part in _JOINED.findall(text)]
    return frozenset(sense(stem(word)) for word in words if word and word not in STOPWORDS)


def _sentence_words(sentences: Sequence[str], terms: Set[str]) -> list[set[str]]:
    """Each sentence's stems with their parts (see :func:`_stems`), and the hyphenated
    ``terms`` it writes with a space ("right hand side" holds "right-hand")."""
    apart = {
        term: re.compile(r"\b" + r"\s+".join(map(re.escape, term.split("-"))), re.I)
        for term in terms
        if "-" in term
    }
    shown = [_LINK_TARGET.sub("", sentence) for sentence in sentences]
    return [
        _stems(sentence, parts=True)
        | {term for term, spaced in apart.items() if spaced.search(sentence)}
        for sentence in shown
    ]


_LINK_TARGET = re.compile(
    r"(?<=\])\([^()\s]*\)|(?<=\S)\s+<[^<>\s]+>(?=`(?!`))|\bhttps?://[^\s<>()\[\]`]+"
)
"""The target of a link, which the page does not show: Markdown's ``[text](target)``, the
``<target>`` closing a reStructuredText link or role (``:ref:`text <label>```), and a bare
web address ("by @henryiii in https://github.com/wntrblm/nox/pull/847"); its words are no
words of the sentence ("[line length](https://docs.astral.sh/ruff/settings/#format_docstring-
code-line-length)" says nothing of code)."""


_PREFIXES = frozenset(
    "per non pre re co un multi sub self cross anti auto semi post inter intra over under".split()
)
"""Prefixes written with a hyphen before the word they qualify ("per-user", "non-blocking")."""
_KIND_TAILS = frozenset("based driven powered backed style like specific aware only".split())
"""Second parts of a compound that says what kind of thing its first part makes ("thread-based",
"event-driven"): the compound stands for its first part too."""
_JOINED = re.compile(r"(?<=[a-z])[A-Z][a-z]{2,}")
"""The second and later parts of a joined-up name ("Error" of "ConnectError")."""


def term_weights(texts: Sequence[str], query: str, topic: str = "") -> dict[str, float]:
    """How much each of the query's words counts: more the rarer it is among the sentences of
    ``texts`` (a word every sentence holds, such as the product's name, counts least), and
    less when it is a word of ``topic`` (what every part of a split question shares: "cadre
    team" of "How does a cadre team plan", "... fan out work")."""
    terms = _stems(query) - _set_aside(query) - _measure_asked(query)
    words = _sentence_words([s for text in texts for _, s in sentences_of(text)], terms)
    shared = _stems(topic)
    return {
        term: (1.0 + math.log((len(words) + 1) / (1 + sum(term in w for w in words))))
        * (_TOPIC_WEIGHT if term in shared else 1.0)
        for term in terms
    }


_TOPIC_WEIGHT = 0.3


def _set_aside(query: str) -> set[str]:
    """The stems of the alternatives a question sets aside and names nowhere else ("a wheel" of
    "... from its source archive instead of a wheel"): they count for no sentence. A question
    why one thing rather than another is about both: it sets none aside."""
    phrases = [] if answer_kind(query) == "reason" else avoided(query)
    rest = query
    for phrase in phrases:
        rest = rest.replace(phrase, " ")
    return _stems(" ".join(phrases)) - _stems(rest) - _QUANTIFIERS


_QUANTIFIERS = frozenset({"one", "every", "each", "all", "some", "any", "other"})
_HOW_MEASURE = re.compile(
    r"\bhow\s+(long|many|much|often|far|old|big|large|soon|tall|wide|high|deep|frequently)\b",
    re.I,
)
"""The measure a question asks for ("how long", "how many"): words of the question, not of
its topic ("a long-term ban" holds no word of "how long are they blocked?")."""


def _measure_asked(query: str) -> set[str]:
    """The stems of the measure words of ``query``'s "how long", "how many" that it uses
    nowhere else."""
    measures = _HOW_MEASURE.findall(query)
    if not measures:
        return set()
    return _stems(" ".join(measures)) - _stems(_HOW_MEASURE.sub("how", query))


_SET_ASIDE = 0.5
"""What a sentence about an alternative the question sets aside keeps of its score, unless
it draws the contrast itself ("instead", "unlike", "rather than")."""
_CONTRAST = re.compile(r"\b(?:instead|rather|unlike|whereas|opposed|not|than)\b", re.I)


_CROWDED_WORDS = 25


def _crowding(words: int) -> float:
    """How much a sentence of many content words has its matches discounted: one that holds
    25 or fewer counts in full, one of 50 at two thirds (a long sentence matches many
    questions a little)."""
    return 1.0 + 0.5 * max(0.0, words / _CROWDED_WORDS - 1.0)


_RESTATED = 0.5
"""What a sentence that says nothing beyond a question's words, or asks a question itself,
keeps of its score (a restatement of the question, a title in a sentence's place); a statement
searched for (a claim being checked) is matched in full."""
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
    borrowed: frozenset[str] = frozenset()
    """The hits that are the words of what its pronoun stands for, not its own."""
    lead_in: int | None = None
    """For an item of a list, the index of the lead-in that quotes the list."""
    leans: int = 0
    """How many sentences before it it needs to be understood: the chain of what its pronoun,
    "this X" or missing subject stands for ("... sibling task ... It could have been ... This
    decision has the implication ..."), at most two."""
    titled: bool = False
    """Whether that chain goes on to the heading ("`capture="sys"`: Captures ... It is fast")."""


def ranked_sentences(
    text: str, query: str, heading: str = "", weights: Mapping[str, float] | None = None
) -> list[Scored]:
    """Every sentence of ``text`` scored against ``query``, in text order; see
    :func:`best_sentences` for the score. ``weights`` are the query's words' weights
    (:func:`term_weights` over the texts searched together; by default over ``text``
    alone)."""
    kind = answer_kind(query)
    since = asks_since(query)
    sentences = sentences_of(text)
    if kind == "procedure":
        lines = text.split("\n")
        sentences = [(offset, with_command(lines, offset, s)) for offset, s in sentences]
    weight = dict(weights) if weights is not None else term_weights([text], query)
    terms = set(weight)
    words = _sentence_words([sentence for _, sentence in sentences], terms)
    exact = set(keywords(query))
    around = _stems(heading)
    listing = listing_of(text, sentences)
    listed = with_items(  # for a question of a default, a list's item marked so alone
        sentences, listing, defaults := _default_items(sentences, listing, asks_default(query))
    )
    asks = is_question(query)  # a statement searched for (a claim checked) is no question
    pointed = _names_a_pointer(heading, query)
    headed = kind in _VALUES and _gives(kind, heading, terms, since)  # "RQ 2.0": its own
    set_aside = _set_aside(query)
    heads = [_term_of(sentence) for _, sentence in sentences]
    named = {index for index, head in enumerate(heads) if head and head <= terms}
    scored = []
    for index, (offset, sentence) in enumerate(sentences):
        lead = listing.leads.get(index)
        own = set(words[index]) | (words[lead] if lead is not None else set())
        head, titled = _chain(index, sentences, words)
        pronoun = head < index or titled
        antecedent = _stands_for(index, sentence, head, words, around if titled else set())
        borrowed = frozenset(terms & antecedent - own)
        own |= antecedent
        context = around | (words[index - 1] if index else set())
        context |= words[index + 1] if index + 1 < len(words) else set()
        hits = terms & own
        score = sum(weight[term] for term in hits) / _crowding(len(own))
        score += _EXACT_BONUS * len(exact & set(keywords(sentence)))  # the word as asked
        score += _CONTEXT_WEIGHT * sum(weight[term] for term in terms & (context - own))
        gives = (
            index in listing.lists
            if kind == "list"
            else _gives(kind, listed[index], terms, since, question_products(query))
        )
        gives |= kind == "reason" and _causes(index, sentences)  # "... This means ..."
        bonus = len(hits) + pointed >= _MIN_SCORE_FOR_KIND and gives  # "Released" under "3.1"
        score += _KIND_BONUS if bonus else 0.0
        if since and _tells_no_start(sentence, listed[index], kind, terms, bonus):
            score *= _SET_ASIDE  # "In 3.7 and earlier, ...", "... kept at 2.4 until ..."
        said = _stems(listed[index], parts=True) if index in listing.lists else words[index]
        score *= _off_question(sentence, bool(said - terms) or headed, asks, query)
        if index in listing.leads.values() and index not in listing.lists:
            score *= _LEADING
        if set_aside & own and not _CONTRAST.search(sentence):  # "via a wheel" when a
            score *= _SET_ASIDE  # question asks "instead of a wheel"
        if (named and heads[index] and index not in named) or _alternative(
            index, listing, defaults
        ):  # "`help`: ... 191" when `search` is asked about; "`hardlink`, ..." beside
            score *= _ANOTHER_TERM  # "`symlink` (default), ..." when the default is
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
                index - head,
                titled,
            )
        )
    return scored


_TERM = re.compile(r"(?:\*\*|__)?`?(?P<term>[^`*_:]{1,40}?)`?(?:\*\*|__)?\s*:\s")
_TERM_MARKED = re.compile(r"^(?:\*\*|__|`)")
_ANOTHER_TERM = 0.3
"""What an entry of a list of terms keeps of its score when the question names another
entry's term: it is about something else."""


_MARKED_DEFAULT = re.compile(r"\bdefaults?\b", re.I)
"""An item of a list marked as the one that holds unless another is chosen: "`symlink`
(default), create symlinks ..."."""


def _default_items(
    sentences: Sequence[tuple[int, str]], listing: Listing, asked: bool
) -> frozenset[int]:
    """The items of the text's lists marked as the default (:data:`_MARKED_DEFAULT`), where a
    question ``asked`` for a default and a list marks one item alone: a list whose items each
    give their own default ("`max_connections` ... (Default 100)") lists settings, not choices;
    none otherwise."""
    if not asked:
        return frozenset()
    marked: dict[int, list[int]] = {}
    for index, lead in listing.leads.items():
        if lead in listing.lists and _MARKED_DEFAULT.search(sentences[index][1]):
            marked.setdefault(lead, []).append(index)
    return frozenset(items[0] for items in marked.values() if len(items) == 1)


def _alternative(index: int, listing: Listing, defaults: Set[int]) -> bool:
    """Whether sentence ``index`` is an item of a list one of whose other items is marked as
    the default (``defaults``): what holds only when chosen, not by default."""
    lead = listing.leads.get(index)
    return (
        lead in listing.lists
        and index not in defaults
        and any(listing.leads[marked] == lead for marked in defaults)
    )


def _term_of(sentence: str) -> frozenset[str]:
    """The stems of the term a list entry defines ("**`search`**: Display the search modal."
    defines "search"), marked bold or as code before a colon; empty for any other sentence."""
    found = _TERM.match(sentence) if _TERM_MARKED.match(sentence) else None
    return frozenset(_stems(found.group("term"), parts=True)) if found else frozenset()


def _names_a_pointer(heading: str, query: str) -> bool:
    """Whether ``heading`` names a version or year the query points to ("Version 3.1.6" for
    "When did 3.1.6 come out?"; not "Version 3.1.60"): what every sentence under it is about."""
    return any(
        re.search(rf"(?<![\w.]){re.escape(pointer)}(?![\w]|\.\d)", heading)
        for pointer in pointers(query)
    )


def _causes(index: int, sentences: Sequence[tuple[int, str]]) -> bool:
    """Whether the sentence after sentence ``index`` draws a consequence of it: it gives the
    reason for what that one says, whatever its words."""
    return index + 1 < len(sentences) and _CONSEQUENCE.match(sentences[index + 1][1]) is not None


def _chain(
    index: int, sentences: Sequence[tuple[int, str]], words: Sequence[set[str]]
) -> tuple[int, bool]:
    """``(first, titled)``: the first sentence of the chain of antecedents sentence ``index``
    needs to be understood (``index`` itself when it names its own subject), followed at most
    two sentences back, and whether the chain goes on to the heading (a pronoun opening the
    text stands for it)."""
    first = index
    while index - first <= _CHAIN:
        before = _antecedent(first, sentences, words)
        if before is None:
            return first, False
        if before < 0:
            return first, True
        if index - before > (_NAMED_REACH if first == index else _CHAIN):
            break
        first = before
    return first, False


def _stands_for(
    index: int, sentence: str, head: int, words: Sequence[set[str]], heading: set[str]
) -> set[str]:
    """The words of what sentence ``index`` leans on: all of the sentence before for "This is
    because ..."; for a pronoun, "this X" or a missing subject ("It clears ...", "This
    constraint ..."), the sentence ``head`` its chain starts at, with the ``heading``'s words
    when the chain goes on to it; none for a sentence that names its own subject."""
    if index and _STATEMENT_PRONOUN.match(sentence):
        return words[index - 1]
    if head < index:
        return words[head] | heading
    return set()


def _antecedent(
    index: int, sentences: Sequence[tuple[int, str]], words: Sequence[set[str]]
) -> int | None:
    """The sentence the subject of sentence ``index`` stands for: for "this X" (its subject, or
    early in it: "You can fix this issue by ..."), the nearest of the two before that names X
    ("... is constrained. This constraint ..."), else the one before, as for a pronoun or a
    sentence that opens with its verb; -1 for the heading when
    the sentence opens the text; None when it names its own subject. A sentence after a
    question the text asks stands on it: it is the question's answer."""
    sentence = sentences[index][1]
    if index and sentences[index - 1][1].rstrip().endswith("?"):
        return index - 1  # "Why does X not do that? The ideal place ...": it answers it
    pointing = _POINTING.match(sentence) or _POINTING_INSIDE.match(sentence)
    if pointing is None and _PRONOUN.match(sentence) is None and not _SUBJECTLESS.match(sentence):
        return None
    last = index - 1
    while last >= 0 and _BARE_NOTE.match(sentences[last][1]):
        last -= 1  # "Changed in 2.9:" above "This extension ...": a note names no subject
    if last < 0:
        return -1
    if pointing is not None and _STATEMENT_PRONOUN.match(sentence) is None:
        named = stem(pointing.group(1).lower())[:_SHARED_PREFIX]
        for before in range(last, max(-1, index - 1 - _NAMED_REACH), -1):
            near = index - before <= _CHAIN
            if any(word.startswith(named) for word in words[before]) and (
                near or _names_plainly(sentences[before][1], named)
            ):
                return before
    return last


def _names_plainly(sentence: str, named: str) -> bool:
    """Whether ``sentence`` names what a word starting with ``named`` stands for, not only
    as "this X" itself ("There are a few ways to fix this issue:" names no issue)."""
    return any(
        not _POINTER_BEFORE.search(sentence, 0, found.start())
        for found in re.finditer(rf"\b{re.escape(named)}\w*", sentence, re.I)
    )


_POINTER_BEFORE = re.compile(r"\b(?:this|that|these|those)\s+$", re.I)


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
