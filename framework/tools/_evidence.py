"""The evidence a successful tool call gives, and where it says it came from.

Private to :mod:`framework.tools.worker`, which documents the rules.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any, TypeAlias

import orjson

from framework.tools._calls import Answer, message_text

__all__ = ["Cited", "evidence_of", "gathered", "tool_source", "unit"]

DIGEST_CHARS = 12
"""Hex digits of the argument digest in a ``tool:<name>(<digest>)`` source."""

Cited: TypeAlias = tuple[str, str, float]
"""One item of evidence as ``(source, text, score)``: made a record once, when the result is."""

_CANONICAL = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
"""Arguments as canonical JSON: keys sorted, non-string keys as strings."""


def unit(value: float) -> float:
    """``value`` clipped to ``[0, 1]``."""
    return max(0.0, min(1.0, value))


def tool_source(name: str, args: Mapping[str, Any]) -> str:
    """``tool:<name>(<digest>)``: the same call with the same arguments is the same source."""
    canonical = orjson.dumps(args, default=str, option=_CANONICAL)
    digest = hashlib.blake2b(canonical, digest_size=DIGEST_CHARS // 2).hexdigest()
    return f"tool:{name}({digest})"


def gathered(answers: Iterable[Answer], output_score: float) -> list[dict[str, Any]]:
    """The evidence of the answered calls, the best-scored item per source (the first on a
    tie), best first, then by source: the fields of each
    :class:`~framework.engine.records.Evidence`,
    for the result to validate in one pass (cheaper than a record per item)."""
    found: dict[str, tuple[float, str]] = {}
    for answer in answers:
        for source, text, score in evidence_of(answer, output_score):
            known = found.get(source)
            if known is None or score > known[0]:
                found[source] = (score, text)
    ordered = sorted(found.items(), key=lambda item: (-item[1][0], item[0]))
    return [{"source": source, "text": text, "score": score} for source, (score, text) in ordered]


def evidence_of(answer: Answer, output_score: float) -> list[Cited]:
    """The evidence of one answered call; none for an error."""
    message = answer.message
    if message.status == "error":
        return []
    content = message.content
    text = content if isinstance(content, str) else message_text(content)
    artifact = message.artifact
    if artifact is not None:
        if isinstance(artifact, list | tuple):
            items = [_cited(item, None, output_score) for item in artifact]
            if all(item is not None for item in items):
                return [item for item in items if item is not None]
        cited = _cited(artifact, text, output_score)
        if cited is not None:
            return [cited]
    carrier = _json_object(answer.output)
    if carrier is not None:
        cited = _cited(carrier, text, output_score)
        if cited is not None:
            return [cited]
    return [(tool_source(answer.name, answer.args), _flat(text), output_score)]


def _cited(item: object, text: str | None, score: float) -> Cited | None:
    """``item`` as evidence when it names its source: a mapping with a ``source`` key, or an
    object with a ``source`` attribute (a Passage, an Evidence); its ``text`` and ``score``
    replace the defaults given."""
    if isinstance(item, Mapping):
        fields = {key: item.get(key) for key in ("source", "text", "score")}
    else:
        fields = {key: getattr(item, key, None) for key in ("source", "text", "score")}
    source, own_text, own_score = fields["source"], fields["text"], fields["score"]
    if not isinstance(source, str) or not source.strip():
        return None
    if isinstance(own_text, str):
        text = own_text
    if text is None:
        return None
    if isinstance(own_score, int | float) and not isinstance(own_score, bool):
        score = float(own_score)
    return (source, _flat(text), score)


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _flat(text: str) -> str:
    return " ".join(text.split())
