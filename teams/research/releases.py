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
from teams.language.words import keywords, stem

__all__ = ["asks_release", "entries_naming", "entry_release", "newer_entries", "release_of"]

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
