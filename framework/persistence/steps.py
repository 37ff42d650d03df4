"""What a stored checkpoint says about its graph's next step, read without the graph: the
nodes due to run from it. These are LangGraph 1.x storage conventions (private constants
upstream), not an API: a node is triggered through a ``branch:to:NODE`` channel (the first one
through ``__start__``), and the ``Send`` packets of a step are the ``__pregel_tasks`` channel.
``tests/test_retention.py`` checks them against ``get_state()``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langgraph.checkpoint.base import Checkpoint

__all__ = ["next_nodes"]

_BRANCH = "branch:to:"
_START = "__start__"
_SENDS = "__pregel_tasks"


def _newer(version: Any, seen: Any) -> bool:
    if seen is None:
        return True
    try:
        return bool(version > seen)
    except TypeError:  # versions of two kinds (int and str): compare them as text
        return str(version) > str(seen)


def next_nodes(checkpoint: Checkpoint) -> tuple[str, ...]:
    """The nodes due to run from ``checkpoint`` (as ``get_state().next`` lists them).

    A node is due when its trigger channel (``branch:to:NODE``, or ``__start__``) holds a
    value newer than the version the node last saw, and each ``Send`` of the step that wrote
    the checkpoint is due as one run of its node. Join edges (``add_edge([a, b], c)``) are
    not read: no cadre team has one.
    """
    values = checkpoint["channel_values"]
    seen = checkpoint["versions_seen"]
    due: list[str] = []
    for channel, version in checkpoint["channel_versions"].items():
        if channel == _START:
            node = _START
        elif channel.startswith(_BRANCH):
            node = channel.removeprefix(_BRANCH)
        else:
            continue
        if channel in values and _newer(version, seen.get(node, {}).get(channel)):
            due.append(node)
    if _SENDS in (checkpoint.get("updated_channels") or ()):
        due += [str(getattr(send, "node", send)) for send in values.get(_SENDS) or ()]
    return tuple(due)
