"""Near-duplicate detection for research evidence: close in meaning, saying the same thing.

Two texts are near duplicates when the cosine similarity of their embeddings reaches the
threshold *and* they cannot be a disagreement: they mention the same numbers (digits or number
words, so dates too), are both negated or both not, and do not differ by one name put in place
of another ("held on Tuesdays", "held on Thursdays"). "Cats sleep fifteen hours" and "Cats
sleep sixteen hours" embed at about 0.96, yet keeping only one would hide a conflict between
sources.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from framework.memory.store import Namespace, SemanticStore

__all__ = ["may_disagree", "near_duplicates"]

_TOKEN = re.compile(r"\d+(?:[.,:/-]\d+)*|[^\W\d_]+(?:n't)?")
_NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "neither", "cannot", "without"})
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million billion half twice double triple dozen first "
    "second third fourth fifth last".split()
)


def _claims(text: str) -> tuple[frozenset[str], bool]:
    """The numbers a text mentions and whether it is negated."""
    tokens = _TOKEN.findall(text.casefold())
    numbers = frozenset(t for t in tokens if t[0].isdigit() or t in _NUMBER_WORDS)
    negated = any(t in _NEGATIONS or t.endswith("n't") for t in tokens)
    return numbers, negated


def may_disagree(a: str, b: str) -> bool:
    """Whether two similar texts could contradict each other (other numbers, a negation, or
    one name in place of another: "on Tuesdays", "on Thursdays")."""
    if _claims(a) != _claims(b):
        return True
    words_a, words_b = set(_TOKEN.findall(a)), set(_TOKEN.findall(b))
    only_a, only_b = words_a - words_b, words_b - words_a
    return (
        len(only_a) == len(only_b) == 1
        and all(word[:1].isupper() for word in only_a | only_b)
        and {w.casefold() for w in only_a} != {w.casefold() for w in only_b}
    )


def near_duplicates(
    store: SemanticStore, namespace: Namespace, texts: Sequence[str], threshold: float
) -> list[bool]:
    """For each text, whether it repeats stored evidence or an earlier text that is kept.

    Stored evidence is compared through the store's search; the texts among themselves through
    one embedding call (none for a single text).
    """
    stored: list[list[str]] = [[] for _ in texts]
    if store.count(namespace):
        hits = store.search_many(namespace, texts, k=5, min_score=threshold)
        stored = [[hit.text for hit in found] for found in hits]
    vectors = np.asarray(
        store.embedder.embed(list(texts)) if len(texts) > 1 else np.zeros((1, 1)), np.float32
    )
    refused: list[bool] = []
    kept: list[int] = []
    for i, text in enumerate(texts):
        same = [other for other in stored[i] if not may_disagree(text, other)]
        same += [
            texts[j]
            for j in kept
            if float(vectors[i] @ vectors[j]) >= threshold and not may_disagree(text, texts[j])
        ]
        refused.append(bool(same))
        if not same:
            kept.append(i)
    return refused
