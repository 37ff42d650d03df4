"""Usage reported by a source cadre does not control (a provider, a proxy, a remote agent, a
tool) is checked before it is counted: every count must be a whole number from 0 to a
per-call ceiling. A negative count would lift a budget, a non-finite or absurd one would end it
for nothing; either is refused as a fault of its source, named, and never counted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from framework.errors import ModelError

__all__ = ["USAGE_CEILING", "UsageReportError", "checked_usage"]

USAGE_CEILING: Final = 10_000_000
"""The most tokens or calls one call may report (no model's window or answer comes near)."""


class UsageReportError(ModelError):
    """A source reported usage that cannot be true; the message names the source, the count and
    the value."""


def checked_usage(usage: Mapping[str, Any], source: str) -> dict[str, int]:
    """``usage`` as whole numbers, each from 0 to :data:`USAGE_CEILING`.

    Args:
        usage: Count name -> what the source reported.
        source: How the message names the source (``the openai chat model 'gpt-4o'``).

    Raises:
        UsageReportError: A count is not a number, negative, not finite or above the ceiling.
    """
    checked: dict[str, int] = {}
    for name, value in usage.items():
        number = _number(value)
        if number is None or not 0 <= number <= USAGE_CEILING:
            raise UsageReportError(
                f"{source} reported {name} = {value!r}: a count must be a whole number from 0 to "
                f"{USAGE_CEILING:,}; it is not counted (the usage of that call is estimated "
                "or left out): check the provider, proxy or agent that reports it"
            )
        checked[name] = number
    return checked


def _number(value: Any) -> int | None:
    """``value`` as an int when it is an integral, finite number (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        return None
    return int(value)
