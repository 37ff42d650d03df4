"""Whatever a model answers, as an :class:`Extraction`: ``{"triples": [...]}`` plus optional
entities, claims and metadata.

A JSON string is parsed, a bare list is read as the triples, a triple given as a list is read
by position, a confidence given in percent or as a numeric string is read as a number. What
cannot be used is left out and said in ``rejected``, which the critic turns into critiques:
a malformed answer costs a revision, never the run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from teams.extraction.documents import Document
from teams.extraction.state import EntityNote, Extraction, Triple

__all__ = ["normalised_extraction"]

_FIELDS = {
    "subject": ("subject", "head", "source"),
    "predicate": ("predicate", "relation", "relationship"),
    "object": ("object", "tail", "target"),
}
_POSITIONS = ("subject", "predicate", "object", "confidence", "evidence")
_DEFAULT_CONFIDENCE = 0.5
_SHOWN = 60


def _shown(value: Any) -> str:
    text = " ".join(str(value).split())
    return repr(text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "...")


def normalised_extraction(raw: Any, document: Document) -> Extraction:
    """``raw`` (a model's answer: an object, a JSON string, a list...) as an extraction of
    ``document``; lines are found from each triple's evidence."""
    rejected: list[str] = []
    body = _body(raw, rejected)
    if body is None:
        return Extraction(rejected=tuple(rejected))
    if "triples" not in body:
        rejected.append("the output has no triples list")
    triples = [_triple(i, item, document, rejected) for i, item in enumerate(_items(body))]
    return Extraction(
        triples=tuple(t for t in triples if t is not None),
        entities=_entities(body.get("entities"), rejected),
        claims=_texts(body.get("claims"), "claims", rejected),
        metadata=_metadata(body.get("metadata"), rejected),
        rejected=tuple(rejected),
    )


def _body(raw: Any, rejected: list[str]) -> dict[str, Any] | None:
    if isinstance(raw, BaseModel):
        raw = raw.model_dump(mode="json")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            rejected.append(f"the output is text, not JSON: {_shown(raw)}")
            return None
    if isinstance(raw, list):
        return {"triples": raw}
    if isinstance(raw, Mapping):
        body = dict(raw)
        return {"triples": [body]} if "triples" not in body and "subject" in body else body
    rejected.append(f"the output is {type(raw).__name__} {_shown(raw)}, not an object of triples")
    return None


def _items(body: Mapping[str, Any]) -> list[Any]:
    value = body.get("triples")
    if isinstance(value, Mapping):
        return [value]
    return list(value) if isinstance(value, list | tuple) else [] if value is None else [value]


def _triple(index: int, item: Any, document: Document, rejected: list[str]) -> Triple | None:
    if isinstance(item, list | tuple) and 3 <= len(item) <= len(_POSITIONS):
        item = dict(zip(_POSITIONS, item, strict=False))
    if not isinstance(item, Mapping):
        rejected.append(f"triple {index} is {_shown(item)}, not an object")
        return None
    parts = {name: _text(item, aliases) for name, aliases in _FIELDS.items()}
    missing = [name for name, value in parts.items() if not value]
    if missing:
        rejected.append(f"triple {index} lacks {' and '.join(missing)}")
        return None
    evidence = _text(item, ("evidence", "excerpt", "quote"))
    line = document.line_of(evidence) or document.line_of(parts["subject"])
    return Triple(
        **parts,
        confidence=_confidence(index, item.get("confidence"), rejected),
        evidence=evidence,
        line=line,
    )


def _text(item: Mapping[str, Any], names: tuple[str, ...]) -> str:
    for name in names:
        value = item.get(name)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return " ".join(str(value).split())
    return ""


def _confidence(index: int, value: Any, rejected: list[str]) -> float:
    if value is None:
        return _DEFAULT_CONFIDENCE
    try:
        number = float(str(value).strip().rstrip("%"))
    except ValueError:
        rejected.append(f"triple {index}: confidence {_shown(value)} is not a number; 0.5 used")
        return _DEFAULT_CONFIDENCE
    if 1.0 < number <= 100.0:  # a percentage
        number /= 100.0
    return max(0.0, min(1.0, number))


def _entities(value: Any, rejected: list[str]) -> tuple[EntityNote, ...]:
    if value is not None and not isinstance(value, list):
        rejected.append(f"entities must be a list, got {_shown(value)}")
    notes = []
    for item in value if isinstance(value, list) else []:
        note = _entity(item)
        if note is None:
            rejected.append(f"entity {_shown(item)} has no name")
        else:
            notes.append(note)
    return tuple(notes)


def _entity(item: Any) -> EntityNote | None:
    if isinstance(item, str):
        name, kind = item, ""
    elif isinstance(item, Mapping):
        name, kind = _text(item, ("name",)), _text(item, ("type",))
    else:
        return None
    return EntityNote(name=" ".join(name.split()), type=kind) if name.strip() else None


def _texts(value: Any, what: str, rejected: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        rejected.append(f"{what} must be a list of strings, got {_shown(value)}")
        return ()
    return tuple(" ".join(v.split()) for v in value if v.strip())


def _metadata(value: Any, rejected: list[str]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        rejected.append(f"metadata must be an object, got {_shown(value)}")
        return {}
    scalars = (str, int, float, bool)
    kept = {str(k): v for k, v in value.items() if isinstance(v, scalars)}
    if len(kept) < len(value):
        rejected.append("metadata values must be strings, numbers or booleans; others left out")
    return kept
