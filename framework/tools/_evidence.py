"""The evidence a successful tool call gives, and where it says it came from.

Private to :mod:`framework.tools.worker`, which documents the rules.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from framework.records import Evidence
from framework.tools._calls import Answer, message_text

__all__ = ["best_per_source", "evidence_of", "tool_source", "unit"]

DIGEST_CHARS = 12
"""Hex digits of the argument digest in a ``tool:<name>(<digest>)`` source."""


def unit(value: float) -> float:
    """``value`` clipped to ``[0, 1]``."""
    return max(0.0, min(1.0, value))


def tool_source(name: str, args: Mapping[str, Any]) -> str:
    """``tool:<name>(<digest>)``: the same call with the same arguments is the same source."""
    canonical = orjson.dumps(
        args, default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
    )
    digest = hashlib.sha256(canonical).hexdigest()[:DIGEST_CHARS]
    return f"tool:{name}({digest})"


def evidence_of(answer: Answer, output_score: float) -> list[Evidence]:
    """The evidence of one answered call; none for an error."""
    message = answer.message
    if message.status == "error":
        return []
    text = message_text(message.content)
    artifact = message.artifact
    if isinstance(artifact, list | tuple):
        items = [_cited(item, None, output_score) for item in artifact]
        if all(item is not None for item in items):
            return [item for item in items if item is not None]
    for carrier in (artifact, _json_object(answer.output)):
        cited = _cited(carrier, text, output_score)
        if cited is not None:
            return [cited]
    source = tool_source(answer.name, answer.args)
    return [Evidence(source=source, text=_flat(text), score=output_score)]


def best_per_source(found: dict[str, Evidence], evidence: Iterable[Evidence]) -> None:
    """Keep in ``found`` the best-scored evidence of each source (the first on a tie)."""
    for item in evidence:
        known = found.get(item.source)
        if known is None or item.score > known.score:
            found[item.source] = item


def _cited(item: object, text: str | None, score: float) -> Evidence | None:
    """``item`` as evidence when it names its source: a mapping with a ``source`` key, or an
    object with a ``source`` attribute (a Passage, an Evidence); its ``text`` and ``score``
    replace the defaults given."""
    if item is None:
        return None
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
    return Evidence(source=source, text=_flat(text), score=score)


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
