"""The JSON the API answers with, in the shapes of LangGraph's server API (``langgraph-sdk``'s
``Thread``, ``ThreadState``, ``Run``, ``Interrupt``), and review requests in the shape Agent
Inbox reads besides cadre's own."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.types import Interrupt, StateSnapshot

from framework.engine.state import to_jsonable
from framework.review import decisions_in
from framework.review.records import ALLOWED_DECISIONS
from framework.server._hitl import hitl_fields
from framework.server._inbox import inbox_fields
from framework.server._tables import RunRow, ThreadRow

__all__ = [
    "checkpoint_json",
    "interrupt_json",
    "interrupts_json",
    "iso",
    "open_interrupts",
    "run_json",
    "state_json",
    "thread_json",
]


def iso(timestamp: float | None) -> str | None:
    """A POSIX time as ISO 8601 in UTC."""
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


def interrupt_json(interrupt: Interrupt) -> dict[str, Any]:
    """An interrupt as the API shows it: its id and value; a cadre review request's value
    carries its id (the interrupt's), the fields Agent Inbox reads (``action_request``,
    ``config``, ``description``) and those of LangChain's human-in-the-loop middleware
    (``action_requests``, ``review_configs``)."""
    value = to_jsonable(interrupt.value)
    if isinstance(value, dict) and value.get("kind") in ALLOWED_DECISIONS and "allowed" in value:
        value = {**value, "id": interrupt.id, **inbox_fields(value), **hitl_fields(value)}
    return {"value": value, "id": interrupt.id}


def checkpoint_json(config: RunnableConfig | None) -> dict[str, Any] | None:
    """The ``Checkpoint`` a snapshot's config names."""
    if not config:
        return None
    configurable = config.get("configurable") or {}
    return {
        "thread_id": configurable.get("thread_id"),
        "checkpoint_ns": configurable.get("checkpoint_ns", ""),
        "checkpoint_id": configurable.get("checkpoint_id"),
        "checkpoint_map": configurable.get("checkpoint_map"),
    }


def open_interrupts(snapshot: StateSnapshot) -> list[Interrupt]:
    """Every open interrupt of a snapshot, those of its subgraphs included, each once."""
    found = list(snapshot.interrupts)
    for task in snapshot.tasks:
        if isinstance(task.state, StateSnapshot):
            found += open_interrupts(task.state)
    unique: dict[str, Interrupt] = {}
    for interrupt in found:
        unique.setdefault(interrupt.id, interrupt)
    return list(unique.values())


def interrupts_json(snapshot: StateSnapshot) -> list[dict[str, Any]]:
    """Every open interrupt of a snapshot, those of its subgraphs included."""
    return [interrupt_json(i) for i in open_interrupts(snapshot)]


def state_json(snapshot: StateSnapshot) -> dict[str, Any]:
    """A ``ThreadState``: values, next nodes, checkpoint, metadata, tasks and interrupts (those
    of subgraphs included, as cadre's review requests are raised inside teams); the values'
    ``audit`` holds every decision made, those of teams still paused below included."""
    values = dict(snapshot.values)
    if decisions := decisions_in(snapshot):
        values["audit"] = decisions
    return {
        "values": to_jsonable(values),
        "next": list(snapshot.next),
        "checkpoint": checkpoint_json(snapshot.config),
        "metadata": to_jsonable(dict(snapshot.metadata or {})),
        "created_at": snapshot.created_at,
        "parent_checkpoint": checkpoint_json(snapshot.parent_config),
        "tasks": [
            {
                "id": task.id,
                "name": task.name,
                "error": None if task.error is None else str(task.error),
                "interrupts": [interrupt_json(i) for i in task.interrupts],
                "checkpoint": checkpoint_json(task.state) if isinstance(task.state, dict) else None,
                "state": state_json(task.state) if isinstance(task.state, StateSnapshot) else None,
                "result": to_jsonable(task.result) if task.result is not None else None,
            }
            for task in snapshot.tasks
        ],
        "interrupts": interrupts_json(snapshot),
    }


def thread_json(
    row: ThreadRow, snapshot: StateSnapshot | None, status: str | None = None
) -> dict[str, Any]:
    """A ``Thread``: its row, and its latest values and open interrupts by task."""
    interrupts: dict[str, list[dict[str, Any]]] = {}
    if snapshot is not None:
        for task in snapshot.tasks:
            opened = _task_interrupts(task.interrupts, task.state)
            if opened:
                interrupts[task.id] = [interrupt_json(i) for i in opened]
    return {
        "thread_id": row.thread_id,
        "created_at": iso(row.created_at),
        "updated_at": iso(row.updated_at),
        "metadata": row.metadata,
        "status": status or row.status,
        "values": to_jsonable(dict(snapshot.values)) if snapshot is not None else None,
        "interrupts": interrupts,
    }


def _task_interrupts(own: Iterable[Interrupt], state: Any) -> list[Interrupt]:
    """A task's open interrupts, each once (one raised in a subgraph is its task's too)."""
    found = list(own)
    if isinstance(state, StateSnapshot):
        found += open_interrupts(state)
    return list({interrupt.id: interrupt for interrupt in found}.values())


def run_json(row: RunRow) -> dict[str, Any]:
    """A ``Run``."""
    return {
        "run_id": row.run_id,
        "thread_id": row.thread_id,
        "assistant_id": row.assistant_id,
        "created_at": iso(row.created_at),
        "updated_at": iso(row.updated_at),
        "status": row.status,
        "metadata": row.arguments.get("metadata") or {},
        "multitask_strategy": row.arguments.get("multitask_strategy") or "reject",
        "kwargs": {
            key: row.arguments.get(key)
            for key in ("input", "command", "config", "stream_mode", "interrupt_before")
        },
    }
