"""Which passages of a corpus hold a word: the rare names a search by meaning may not find."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable

__all__ = ["Lexicon", "WordForm"]

WordForm = Callable[[str], str]
"""How a lower-cased word is made into the form words are compared in (a stem, say)."""

_WORD = re.compile(r"[a-z][a-z0-9_\-']*|(?<![\w.])\d+(?:\.\d+)+[a-z0-9]*")
"""A word, or a version ("3.9", "4.0.0a2")."""


class Lexicon:
    """The keys of the passages that hold each word, compared in the form ``form`` gives.

    Args:
        texts: ``(key, text)`` of every passage.
        form: Makes each lower-cased word of a text (and of a lookup) into its compared form.
    """

    def __init__(self, texts: Iterable[tuple[str, str]], form: WordForm) -> None:
        holders: defaultdict[str, set[str]] = defaultdict(set)
        for key, text in texts:
            for word in set(_WORD.findall(text.lower())):
                holders[form(word)].add(key)
        self._holders = dict(holders)
        self._form = form

    def holders(self, word: str) -> frozenset[str]:
        """The keys of the passages that hold ``word`` in any of its forms."""
        return frozenset(self._holders.get(self._form(word.lower()), ()))
