"""LangGraph store filters: exact values, nested dicts, and the operators ``$eq``, ``$ne``,
``$gt``, ``$gte``, ``$lt``, ``$lte`` (as LangGraph's stores read them)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

from framework.errors import ConfigError

__all__ = ["matches_filter"]

_ORDERED: dict[str, Callable[[float, float], bool]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether ``value`` has every field ``filter`` asks for.

    Raises:
        ConfigError: An operator is not one of LangGraph's.
    """
    return not filter or all(_matches(value.get(key), want) for key, want in filter.items())


def _matches(found: Any, want: Any) -> bool:
    if isinstance(want, Mapping):
        if any(str(key).startswith("$") for key in want):
            return all(_operator(found, name, operand) for name, operand in want.items())
        return isinstance(found, Mapping) and all(
            _matches(found.get(key), value) for key, value in want.items()
        )
    if isinstance(want, list | tuple):
        return (
            isinstance(found, list | tuple)
            and len(found) == len(want)
            and all(_matches(f, w) for f, w in zip(found, want, strict=True))
        )
    return bool(found == want)


def _operator(found: Any, name: str, operand: Any) -> bool:
    if name == "$eq":
        return bool(found == operand)
    if name == "$ne":
        return bool(found != operand)
    compare = _ORDERED.get(name)
    if compare is None:
        raise ConfigError(f"unknown filter operator {name!r}: use $eq, $ne, $gt, $gte, $lt or $lte")
    number, bound = _number(found), _number(operand)
    return number is not None and bound is not None and compare(number, bound)


def _number(value: Any) -> float | None:
    """``value`` as a number, or None (a field that is missing or not numeric never
    compares)."""
    if isinstance(value, bool):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
