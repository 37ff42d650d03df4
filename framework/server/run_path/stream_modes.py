"""LangGraph's stream modes as LangGraph's server sends them.

A run asks its graph for the modes a client wants (``messages`` and ``messages-tuple`` both
ask for LangGraph's ``messages``; ``events`` reads ``astream_events`` v2), and each chunk
becomes the API's events:

- ``messages``: ``messages/metadata`` (``{message id: {"metadata": ...}}``, once per message),
  then ``messages/partial`` (the message so far, for tokens) or ``messages/complete``, each
  ``[message]``;
- ``messages-tuple``: ``messages`` with ``[message, metadata]``;
- ``events``: each ``astream_events`` v2 dict, as ``events``;
- ``debug``, ``tasks``, ``checkpoints``: LangGraph's own payloads, a checkpoint's ``config``
  also given as ``checkpoint`` (and ``parent_checkpoint``) as LangGraph's server adds;
- ``tools``: LangGraph's tool events (``tool-started``, ``tool-output-delta``,
  ``tool-finished``, ``tool-error``, keyed by ``tool_call_id``);
- ``lifecycle``: when each subgraph starts and ends (see :mod:`._lifecycle`), read from the
  graph's ``tasks``;
- ``values``, ``updates``, ``custom``: as before, interrupts in the API's shape.

Messages and lifecycle events come from every graph (a team's formatter runs inside a
subgraph; LangGraph sends each message once); other modes' chunks from subgraphs only with
``stream_subgraphs``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any, cast

from langchain_core.messages import BaseMessage, BaseMessageChunk, message_chunk_to_message
from langgraph.types import Interrupt, StreamMode
from pydantic import BaseModel

from framework.engine.state import to_jsonable
from framework.server._shapes import checkpoint_json, interrupt_json
from framework.server.run_path._lifecycle import Lifecycle

__all__ = ["ApiEvents", "event_mode", "graph_modes", "plain"]

_GRAPH_MODE: Mapping[str, StreamMode] = {
    "values": "values",
    "updates": "updates",
    "custom": "custom",
    "messages": "messages",
    "messages-tuple": "messages",
    "debug": "debug",
    "tasks": "tasks",
    "checkpoints": "checkpoints",
    "tools": cast(StreamMode, "tools"),  # LangGraph streams it; its StreamMode type lags
    "lifecycle": "tasks",
}
"""The graph's mode behind each API mode (``events`` has none: it is astream_events)."""


def graph_modes(api_modes: Collection[str]) -> tuple[StreamMode, ...]:
    """The stream modes to ask the graph for, to answer ``api_modes``."""
    return tuple(dict.fromkeys(_GRAPH_MODE[m] for m in api_modes if m in _GRAPH_MODE))


def event_mode(name: str) -> str:
    """The API stream mode an event called ``name`` (``mode|namespace...``) belongs to."""
    base = name.split("|", 1)[0]
    if base.startswith("messages/"):
        return "messages"
    if base == "messages":
        return "messages-tuple"
    return base


def plain(value: Any) -> Any:
    """``value`` as JSON: messages whole (as LangGraph's server sends them), records dumped,
    interrupts in the API's shape, anything else unknown as its text."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(item) for item in value]
    return _plain_object(value)


def _plain_object(value: Any) -> Any:
    if isinstance(value, BaseModel):  # messages included: their every field
        return value.model_dump(mode="json")
    if isinstance(value, Interrupt):
        return interrupt_json(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value.isoformat() if isinstance(value, datetime) else str(value)  # UUIDs too


class ApiEvents:
    """Turns one run's chunks and graph events into the API's events ``(name, data)``.

    Args:
        modes: The API stream modes the run was asked for.
        subgraphs: Whether chunks of subgraphs are sent (``stream_subgraphs``).
    """

    def __init__(self, modes: Collection[str], subgraphs: bool) -> None:
        self.modes = frozenset(modes)
        self.subgraphs = subgraphs
        self._messages: dict[str, BaseMessage] = {}
        """Each message streamed so far by id (tokens added up)."""
        self._lifecycle = Lifecycle()

    def of_chunk(
        self, namespace: tuple[str, ...], mode: str, payload: Any
    ) -> list[tuple[str, Any]]:
        """The events of a chunk the graph streamed."""
        if mode == "messages":
            return self._of_message(namespace, payload)
        found: list[tuple[str, Any]] = []
        if mode == "tasks" and "lifecycle" in self.modes:
            found = [("lifecycle", e) for e in self._lifecycle.of_tasks(namespace, payload)]
        if namespace and not self.subgraphs:
            return found
        return [*found, ("|".join((mode, *namespace)), _data(mode, payload))]

    def ended(self) -> list[tuple[str, Any]]:
        """The events of the run's end (the subgraphs still open close)."""
        return [("lifecycle", event) for event in self._lifecycle.finish()]

    def of_graph_event(self, event: Mapping[str, Any]) -> list[tuple[str, Any]]:
        """The ``events`` event of an astream_events v2 event (none for hidden ones)."""
        if "langsmith:hidden" in (event.get("tags") or ()):
            return []
        return [("events", plain(event))]

    def _of_message(self, namespace: tuple[str, ...], payload: Any) -> list[tuple[str, Any]]:
        message, metadata = payload
        suffix = "".join(f"|{part}" for part in namespace) if self.subgraphs else ""
        found: list[tuple[str, Any]] = []
        if "messages-tuple" in self.modes:
            found.append(("messages" + suffix, [plain(message), plain(metadata)]))
        if "messages" not in self.modes or not isinstance(message, BaseMessage):
            return found
        key = str(message.id)
        earlier = self._messages.get(key)
        if earlier is None:
            found.append(("messages/metadata" + suffix, {key: {"metadata": plain(metadata)}}))
        if isinstance(earlier, BaseMessageChunk) and isinstance(message, BaseMessageChunk):
            added = earlier + message  # a token: the message so far (adding drops the name)
            message = added.model_copy(update={"name": added.name or earlier.name})
        self._messages[key] = message
        whole = message_chunk_to_message(message)
        name = "messages/partial" if isinstance(message, BaseMessageChunk) else "messages/complete"
        found.append((name + suffix, [plain(whole)]))
        return found


def _data(mode: str, payload: Any) -> Any:
    if mode in ("values", "updates", "custom"):
        return _state_data(payload)
    if mode == "checkpoints":
        return _checkpoint(payload)
    if mode == "debug" and isinstance(payload, Mapping) and payload.get("type") == "checkpoint":
        return {**plain(payload), "payload": _checkpoint(payload.get("payload"))}
    return plain(payload)


def _state_data(payload: Any) -> Any:
    """Values, updates and custom events as cadre always sent them (records dumped, messages
    as type/name/content), interrupts in the API's shape."""
    if isinstance(payload, Mapping) and "__interrupt__" in payload:
        interrupts = payload["__interrupt__"]
        return {
            **to_jsonable({k: v for k, v in payload.items() if k != "__interrupt__"}),
            "__interrupt__": [interrupt_json(i) for i in interrupts if isinstance(i, Interrupt)],
        }
    return to_jsonable(payload)


def _checkpoint(payload: Any) -> Any:
    """A checkpoint payload with its config also as ``checkpoint`` (LangGraph's server's
    shape besides LangGraph's own)."""
    if not isinstance(payload, Mapping):
        return plain(payload)
    return {
        **plain(payload),
        "checkpoint": checkpoint_json(payload.get("config")),
        "parent_checkpoint": checkpoint_json(payload.get("parent_config")),
    }
