"""Typed control flow: the control signals of a team and the routers that read them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from framework.errors import ConfigError

__all__ = [
    "CONTROL_SIGNALS",
    "ControlSignal",
    "read_signal",
]

ControlSignal = Literal["dispatch", "answer", "revise_plan", "retry_workers", "finish"]
"""What a planner or reviewer tells the team to do next."""

CONTROL_SIGNALS: tuple[ControlSignal, ...] = get_args(ControlSignal)


def read_signal(state: Mapping[str, Any], allowed: tuple[ControlSignal, ...]) -> ControlSignal:
    """Return the state's control signal, checked against the signals a router accepts."""
    signal = state.get("control_signal")
    if signal not in allowed:
        raise ConfigError(
            f"control_signal {signal!r} is not one of {list(allowed)} here; a node upstream "
            "must set control_signal to one of them"
        )
    return signal  # type: ignore[no-any-return]
