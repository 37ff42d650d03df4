"""Reading the open review requests of a thread out of its state snapshot, subgraphs included."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, get_args, runtime_checkable

from pydantic import ValidationError

from framework.errors import ConfigError, ReviewError
from framework.review._rules import validation_message
from framework.review.records import REQUEST_ADAPTER, AnyReviewRequest, AuditEntry, ReviewKind

if TYPE_CHECKING:  # LangGraph's runtime: reading requests out of a snapshot needs none
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph

__all__ = [
    "Snapshot",
    "checkpointer_of",
    "decisions_in",
    "requests_in",
    "thread_config",
    "thread_ids",
    "unknown_thread",
]

_KINDS: tuple[ReviewKind, ...] = get_args(ReviewKind)


class _Interrupt(Protocol):
    @property
    def value(self) -> Any: ...

    @property
    def id(self) -> str: ...


class _Task(Protocol):
    @property
    def state(self) -> object: ...

    @property
    def interrupts(self) -> Sequence[_Interrupt]: ...

    @property
    def result(self) -> Any: ...


@runtime_checkable
class Snapshot(Protocol):
    """What :func:`requests_in` reads of a thread's state: LangGraph's ``StateSnapshot`` (from
    ``get_state``), or :class:`framework.retention.snapshot.ThreadSnapshot` (read from the
    checkpoints). A task's ``state`` is the snapshot of the subgraph it runs, when it runs one."""

    @property
    def tasks(self) -> Sequence[_Task]: ...

    @property
    def values(self) -> Any: ...


def thread_config(thread_id: str, checkpoint_ns: str | None = None) -> RunnableConfig:
    """The config that addresses a thread (and, given one, a namespace in it)."""
    configurable: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_ns is not None:
        configurable["checkpoint_ns"] = checkpoint_ns
    return {"configurable": configurable}


def checkpointer_of(app: CompiledStateGraph[Any, Any, Any, Any]) -> BaseCheckpointSaver[Any]:
    """The app's checkpointer; review needs one (a ConfigError says so)."""
    from langgraph.checkpoint.base import BaseCheckpointSaver  # noqa: PLC0415 - see the imports

    checkpointer = app.checkpointer
    if not isinstance(checkpointer, BaseCheckpointSaver):
        raise ConfigError(
            "review needs a checkpointer: compile the team with compile_team(graph, "
            "checkpointer=...)"
        )
    return checkpointer


def unknown_thread(thread_id: str) -> ReviewError:
    """The error for a thread the checkpointer does not hold."""
    return ReviewError(f"unknown thread {thread_id!r}: no checkpoint has that thread id")


def thread_ids(checkpointer: BaseCheckpointSaver[Any]) -> list[str]:
    """Every thread the checkpointer holds, most recently written first."""
    seen: dict[str, None] = {}
    for saved in checkpointer.list(None):
        seen.setdefault(str(saved.config["configurable"]["thread_id"]), None)
    return list(seen)


def _interrupts(snapshot: Snapshot) -> Iterator[_Interrupt]:
    """The open interrupts of a snapshot, each from the deepest graph that raised it."""
    for task in snapshot.tasks:
        if isinstance(task.state, Snapshot):
            yield from _interrupts(task.state)
        else:
            yield from task.interrupts


def _request(interrupt: _Interrupt, thread_id: str) -> AnyReviewRequest | None:
    """The review request an interrupt carries; None for an interrupt that is not cadre's."""
    value = interrupt.value
    if not isinstance(value, dict) or value.get("kind") not in _KINDS or "allowed" not in value:
        return None
    try:
        return REQUEST_ADAPTER.validate_python(
            {**value, "id": interrupt.id, "thread_id": thread_id}
        )
    except ValidationError as error:
        raise ReviewError(
            f"thread {thread_id!r} is paused with a review request this cadre cannot read "
            f"({validation_message(error)}): resume it with the cadre that ran it"
        ) from None


def decisions_in(snapshot: Snapshot) -> list[AuditEntry]:
    """Every review decision a snapshot taken with ``subgraphs=True`` holds, oldest first, each
    once: the thread's audit trail, and those not yet in it, made in a team still paused below
    it or by a task whose step still waits for its siblings (a nested team's decision shows
    the moment it is made, not once every pending review of the step is decided)."""
    found: dict[str, AuditEntry] = {}
    stack = [snapshot]
    while stack:
        current = stack.pop()
        held = [*((current.values or {}).get("audit") or [])]
        for task in current.tasks:
            if isinstance(task.result, Mapping):
                held += task.result.get("audit") or []
            if isinstance(task.state, Snapshot):
                stack.append(task.state)
        for item in held:
            entry = AuditEntry.model_validate(item)
            found.setdefault(entry.id, entry)
    return sorted(found.values(), key=lambda entry: entry.at)


def requests_in(snapshot: Snapshot, thread_id: str) -> list[AnyReviewRequest]:
    """The review requests open in a snapshot taken with ``subgraphs=True``."""
    found: list[AnyReviewRequest] = []
    seen: set[str] = set()
    for interrupt in _interrupts(snapshot):
        request = _request(interrupt, thread_id)
        if request is not None and request.id not in seen:
            seen.add(request.id)
            found.append(request)
    return found
