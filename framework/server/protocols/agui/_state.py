"""A thread's values as AG-UI state events: a snapshot first, then each change as a JSON Patch
(RFC 6902) against the state the consumer holds.

The state sent is the thread's view a client shows (:data:`SHOWN`: the question, the plan and
its tasks, the reviewer's verdict, the answer, the decisions), not its internals: the passages
the workers read and the messages stay on the server. An AG-UI client sends its state back with
every run, so what it holds stays about one question's size however long the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ag_ui.core import StateDeltaEvent, StateSnapshotEvent

__all__ = ["SHOWN", "StateStream", "json_patch"]

SHOWN = ("question", "plan", "tasks", "reflection", "final_answer", "audit")
"""The keys of a thread's values a client is sent."""


class StateStream:
    """The state a consumer holds, followed: each call gives the event that brings it to
    ``values`` (None when nothing changed)."""

    def __init__(self) -> None:
        self._held: dict[str, Any] | None = None

    def event(self, values: Mapping[str, Any]) -> StateSnapshotEvent | StateDeltaEvent | None:
        """A snapshot the first time, a delta after (None when the state is the same)."""
        state = {key: values[key] for key in SHOWN if key in values}
        held, self._held = self._held, state
        if held is None:
            return StateSnapshotEvent(snapshot=state)
        patch = json_patch(held, state)
        return StateDeltaEvent(delta=patch) if patch else None


def json_patch(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """An RFC 6902 patch taking JSON ``old`` to ``new``: objects compared key by key, a list
    that grew at its end by ``add`` of each new item, anything else replaced."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        removed = [{"op": "remove", "path": _pointer(path, key)} for key in old if key not in new]
        changed = [
            operation
            for key, value in new.items()
            for operation in (
                json_patch(old[key], value, _pointer(path, key))
                if key in old
                else [{"op": "add", "path": _pointer(path, key), "value": value}]
            )
        ]
        return removed + changed
    if isinstance(old, list) and isinstance(new, list) and new[: len(old)] == old:
        return [{"op": "add", "path": f"{path}/-", "value": item} for item in new[len(old) :]]
    return [{"op": "replace", "path": path, "value": new}]


def _pointer(path: str, key: str) -> str:
    """``path`` and one more token (RFC 6901: ``~`` as ``~0``, ``/`` as ``~1``)."""
    return f"{path}/{key.replace('~', '~0').replace('/', '~1')}"
