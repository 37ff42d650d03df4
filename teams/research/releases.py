"""A changelog's newer entry for a figure it changed again: for a question of one value as it
stands now ("how many iterations does it use by default?"), the best answer found in one
release's entry ("Increase PBKDF2 iterations to 260000") gives way to the newest release of the
same file whose entry gives the same measure another figure ("Increase default work factor for
PBKDF2 to 1,000,000 iterations."), though the question's other words match the older entry
better."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations

from framework.memory import Corpus, Passage, prose_sentences
from teams.language.questions import asks_one_value, asks_when, pointers
from teams.language.sentence_choice import given
from teams.language.superseded import asks_what_was
from teams.language.words import STOPWORDS, keywords, stem

__all__ = [
    "asks_release",
    "entries_naming",
    "entry_release",
    "first_entry",
    "newer_entries",
    "release_of",
]

_RELEASE_HEADING = re.compile(
    r"^\W*(?:(?:version|release|v)\s*)?v?(?P<number>\d+(?:\.\d+)+)(?![\w.])", re.I
)
"""A release entry's heading: "Version 2.0.0", "3.3.0 (2024-10-24)", "v1.10.5"."""
_HOLDERS = 12
"""A pair of the answer's words held by more passages than this finds no entry of it."""
_SHARED = 2
"""How many of the answer's words a newer entry's sentence holds to speak of its measure."""
_CODE_WORD = re.compile(r"[a-z0-9]+(?:[_-][a-z0-9]+)+", re.I)
"""A word of parts joined as code joins them ("overwrite-in-place", "float_to_top")."""
_NAMING_HOLDERS = 8
"""A code word held by more passages than this is a common word ("built-in"), not a name."""


def release_of(heading: str) -> tuple[int, ...] | None:
    """The release a changelog entry's ``heading`` names, as numbers to compare; None for any
    other heading."""
    found = _RELEASE_HEADING.match(heading)
    return tuple(int(part) for part in found["number"].split(".")) if found else None


def entry_release(passage: Passage) -> tuple[int, ...] | None:
    """The release whose changelog entry holds ``passage``: its own heading's ("Version
    2.0.0"), else the nearest heading above it that names one ("5.0.0 -- 2022-07-30" above
    "Features"); None outside a release's entry."""
    for heading in (passage.heading, *reversed(passage.outline.split(" > "))):
        if (release := release_of(heading)) is not None:
            return release
    return None


_RELEASE_EVENT = re.compile(
    r"\b(?:releases?|since|from\s+which|first|shipped|added|introduced|came\s+in|dropped|"
    r"removed)\b",
    re.I,
)
"""Words of a question of the release in which something happened ("Since which version ...",
"which release first shipped ..."), not of a value that is a version ("What schema version is
the file written in?")."""


def asks_release(query: str) -> bool:
    """Whether ``query`` asks in which release (or since which version) something happened:
    a changelog's entry answers it."""
    return asks_when(query) and _RELEASE_EVENT.search(query) is not None


def entries_naming(corpus: Corpus, query: str) -> list[Passage]:
    """For a question of which release or when, the changelog entries that hold a name of it
    written as code ("which release first shipped --overwrite-in-place?": "5.8.0 > Provide a
    flag `--overwrite-in-place`"), a name few passages hold; [] for any other question. The
    entry that shipped a thing names it, though the question's other words ("first
    release") match a page about another release better."""
    if not asks_release(query):
        return []
    names = [word for word in keywords(query) if _written_as_code(word, query)]
    if not names:
        return []
    holders = corpus.rare_holders(query, names, form=stem, most=_NAMING_HOLDERS, k=_NAMING_HOLDERS)
    return [passage for passage in holders if entry_release(passage) is not None]


_FIRST = re.compile(r"\bfirst\b|\bsince\s+(?:which|what|when)\b", re.I)
"""A question of the release in which a thing first appeared ("first shipped", "since which
release")."""
_FRAME = (
    "release version first since appear arrive ship add introduce include get gain come become "
    "available land support"
)
"""Words of how a question of a thing's first release asks, not of the thing."""
_NAMED_RELEASE = re.compile(r"\b(\w+)\s+(?:release|version)s?\b", re.I)
"""The product whose release a question asks for ("which msgspec release")."""
_OWN_NAME_SHARE = 3
"""A capitalised word of the question held by more than one passage in this many is the name
of what the corpus documents ("Hypercorn"), not of the thing asked about."""
_THING_WORDS = 2
"""How many words of the thing a question of its first release names, at least, for its
oldest entry to be looked for: one alone ("support") says too little of what it is."""
_FIRST_HOLDERS = 40
"""How many passages holding a word of the thing are looked through for its oldest entry."""
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
"""A word, or a part of a name written as code ("Dispatcher" of "DispatcherMiddleware")."""
_LEAD = 6
"""How many first letters of a word's stem stand for it in an entry: "generating" for the
question's "generation"."""


def first_entry(corpus: Corpus, query: str, named: str = "") -> list[Passage]:
    """For a question of the release in which a thing first appeared ("in which msgspec
    release did JSON Schema generation first appear?", "since which release has it included
    it"), the entry of the oldest release with a sentence that holds every word of the thing
    ("New utilities for generating JSON Schema ...", "Add dispatcher middleware" for
    ``DispatcherMiddleware``), though newer entries that speak of it again match the question
    better. The thing is ``named`` (the name a chained part's "it" stands for, word by word),
    else the question's own words less those of how it asks and the product's name; [] for
    any other question, or when the thing is named in fewer than two words."""
    if not asks_release(query) or not _FIRST.search(query):
        return []
    words = _words(named) if named else _thing_words(corpus, query)
    leads = {_lead(word) for word in words}
    if len(leads) < _THING_WORDS:
        return []
    holders = corpus.rare_holders(query, words, form=_lead, most=_FIRST_HOLDERS, k=_FIRST_HOLDERS)
    entries = [
        (release, passage)
        for passage in holders
        if (release := entry_release(passage)) is not None
        and any(
            leads <= {_lead(word) for word in _words(sentence)}
            for _, sentence in prose_sentences(passage.text)
        )
    ]
    return [min(entries, key=lambda item: item[0])[1]] if entries else []


def _words(text: str) -> list[str]:
    """The words of ``text`` in lower case, a name in code word by word, less stopwords."""
    parts = (part.lower() for part in _NAME_PART.findall(text))
    return list(dict.fromkeys(part for part in parts if len(part) > 1 and part not in STOPWORDS))


def _thing_words(corpus: Corpus, query: str) -> list[str]:
    """The words of ``query`` that say what it asks about: less those of how it asks
    (:data:`_FRAME`) and of whose release (:data:`_NAMED_RELEASE`, and a capitalised word most
    passages hold: :data:`_OWN_NAME_SHARE`)."""
    own = {
        word
        for word in re.findall(r"\b[A-Z]\w+", query)
        if corpus.holder_count(word, _lead) * _OWN_NAME_SHARE > len(corpus)
    }
    named = [*_NAMED_RELEASE.findall(query), *own]
    asking = {_lead(word) for word in _words(" ".join([_FRAME, *named]))}
    return [word for word in _words(query) if _lead(word) not in asking]


def _lead(word: str) -> str:
    """``word`` as entries are compared: the first :data:`_LEAD` letters of its stem (a
    lexicon's form: applied to a whole word, never to a lead again)."""
    return stem(word)[:_LEAD]


def _written_as_code(word: str, query: str) -> bool:
    """Whether ``word`` of ``query`` is a name written as code: a setting's joined with
    underscores ("float_to_top"), or a flag's or a name in code marks ("--overwrite-in-place",
    "`keep-warm`"); not a compound of words ("pipx-managed")."""
    if not _CODE_WORD.fullmatch(word):
        return False
    return "_" in word or bool(re.search(rf"(?:--|`){re.escape(word)}", query, re.I))


def newer_entries(corpus: Corpus, query: str, best: Passage, sentence: str) -> list[Passage]:
    """The entry of the newest release after ``best``'s, in its file, with a sentence that
    gives a figure of the measure ``sentence`` (``best``'s answer) speaks of: two of the
    question's words that sentence holds, the figure not the answer's; [] when there is none,
    when ``best`` is no release's entry, or when ``query`` names a release or a year, asks
    when, or asks what a value was."""
    kind = asks_one_value(query)
    release = entry_release(best)
    if not kind or release is None or pointers(query) or asks_when(query):
        return []
    if asks_what_was(query):
        return []
    answer = given(kind, sentence, query)
    said = {stem(word) for word in keywords(sentence)}
    shared = list(dict.fromkeys(w for w in keywords(query) if stem(w) in said))
    if len(shared) < _SHARED or not answer:
        return []
    pairs = list(combinations(shared, _SHARED))
    holders = corpus.rare_holders(query, pairs, form=stem, most=_HOLDERS, k=_HOLDERS)
    newer = [
        (number, passage)
        for passage in holders
        if passage.path == best.path
        and (number := entry_release(passage)) is not None
        and number > release
        and _gives_again(passage.text, shared, answer, kind, query)
    ]
    return [max(newer, key=lambda item: item[0])[1]] if newer else []


def _gives_again(text: str, shared: Sequence[str], answer: set[str], kind: str, query: str) -> bool:
    """Whether a sentence of ``text`` holds two of the ``shared`` words and a figure of
    ``kind`` that is not one of the ``answer``'s."""
    stems = {stem(word) for word in shared}
    for _, sentence in prose_sentences(text):
        held = stems & {stem(word) for word in keywords(sentence)}
        values = given(kind, sentence, query)
        if len(held) >= _SHARED and values and not values & answer:
            return True
    return False
