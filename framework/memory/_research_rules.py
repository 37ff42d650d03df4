"""The rules research memory checks before it writes anything; each refusal is an
:class:`~framework.errors.InvalidUpdate` that names the rule and the fix."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from pydantic import ValidationError

from framework.errors import InvalidUpdate
from framework.memory._research_records import (
    LEGAL_STATUS_CHANGES,
    EvidenceRecord,
    Hypothesis,
    HypothesisStatus,
)

__all__ = [
    "check_confidence",
    "check_step",
    "checked_evidence",
    "checked_status",
    "plural",
    "unique",
]


def checked_evidence(item: EvidenceRecord | Mapping[str, Any]) -> EvidenceRecord:
    """``item`` as an :class:`EvidenceRecord` (a dict is validated into one)."""
    if isinstance(item, EvidenceRecord):
        return item
    if not isinstance(item, Mapping):
        raise InvalidUpdate(
            f"store_evidence() takes EvidenceRecord objects or dicts, got {type(item).__name__}"
        )
    try:
        return EvidenceRecord.model_validate(dict(item))
    except ValidationError as exc:
        raise InvalidUpdate(
            f"not valid evidence ({exc.error_count()} error(s)): {_first_error(exc)}; evidence "
            "needs a non-blank text and source, an ISO date and only the EvidenceRecord fields"
        ) from exc


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "record"
    return f"{where}: {error['msg']}"


def unique(ids: Iterable[str]) -> list[str]:
    """Each id once, in order."""
    return list(dict.fromkeys(ids))


def check_step(step: str) -> None:
    """Refuse a blank step name."""
    if not step or not step.strip():
        raise InvalidUpdate('name the step that makes the change, e.g. step="judge#3"')


def check_confidence(confidence: float) -> None:
    """Refuse a confidence outside [0, 1] (NaN included)."""
    if not 0.0 <= confidence <= 1.0:
        raise InvalidUpdate(
            f"confidence must be in [0, 1], got {confidence}; clamp or rescale it first"
        )


def checked_status(current: Hypothesis, status: str) -> HypothesisStatus:
    """``status`` if ``current`` may move to it (see :data:`LEGAL_STATUS_CHANGES`)."""
    if status not in LEGAL_STATUS_CHANGES:
        raise InvalidUpdate(
            f"unknown status {status!r}: use one of {', '.join(LEGAL_STATUS_CHANGES)}"
        )
    legal = LEGAL_STATUS_CHANGES[current.status]
    if status not in legal:
        raise InvalidUpdate(
            f"hypothesis {current.id!r} cannot go from {current.status} to {status}: from "
            f"{current.status} it may go to {', '.join(sorted(legal))}; leave status out to "
            "keep it"
        )
    return cast(HypothesisStatus, status)


def plural(word: str, count: int) -> str:
    """``word`` with an ``s`` unless ``count`` is 1."""
    return word if count == 1 else f"{word}s"
