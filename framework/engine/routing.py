"""Typed control flow: the control signals of a team and the routers that read them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from framework.errors import ConfigError

__all__ = [
    "CONTROL_SIGNALS",
    "ControlSignal",
    "read_signal",
    "read_step",
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


def read_step(state: Mapping[str, Any], steps: tuple[str, ...], key: str = "next_step") -> str:
    """Return the step a supervisor wrote under ``key``, checked against ``steps``.

    Raises:
        ConfigError: It is not one of the steps (a node upstream wrote it wrong).
    """
    step = state.get(key)
    if step not in steps:
        raise ConfigError(f"{key} {step!r} is not one of {list(steps)}; the supervisor must set it")
    return str(step)
