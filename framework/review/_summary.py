"""One-line summaries of a team's state, for node reviews and a thread's history."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from framework.engine.records import Plan, Task, WorkerResult

__all__ = ["call_summary", "input_summary", "pause_summary", "state_summary"]

_LIMIT = 120


def _short(text: str, limit: int = _LIMIT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def state_summary(values: Mapping[str, Any]) -> str:
    """``plan: 5 tasks (2 rejected), 3 results, answer written``; ``question`` before a plan."""
    parts: list[str] = []
    plan: Plan | None = values.get("plan")
    tasks: Mapping[str, Task] = values.get("tasks") or {}
    if plan is not None:
        rejected = sum(task.status == "rejected" for task in tasks.values())
        note = f" ({rejected} rejected)" if rejected else ""
        count = len(tasks) if tasks else len(plan.tasks)
        described = "direct answer" if plan.direct_answer is not None else _plural(count, "task")
        parts.append(f"plan: {described}{note}")
    results: Mapping[str, WorkerResult] = values.get("worker_results") or {}
    if results:
        failed = sum(result.status == "failed" for result in results.values())
        parts.append(_plural(len(results), "result") + (f" ({failed} failed)" if failed else ""))
    if values.get("final_answer"):
        parts.append("answer written")
    if not parts:
        question = values.get("question")
        return f"question: {_short(str(question))}" if question else "empty"
    return ", ".join(parts)


def pause_summary(kinds: Iterable[str]) -> str:
    """``paused for plan review`` / ``paused for 5 task reviews``; empty when not paused."""
    counts: dict[str, int] = {}
    for kind in kinds:
        label = "task" if kind == "tasks" else kind
        counts[label] = counts.get(label, 0) + 1
    if not counts:
        return ""
    reviews = [f"{n} {kind} reviews" if n > 1 else f"{kind} review" for kind, n in counts.items()]
    return "paused for " + ", ".join(reviews)


def input_summary(value: Any) -> str:
    """What a node is about to run on: its task (a worker's input) or its state."""
    if isinstance(value, Mapping):
        task = value.get("task")
        if isinstance(task, Task):
            return f"task {task.id}: {_short(task.description)}"
        return state_summary(value)
    return _short(repr(value))


def call_summary(value: Any) -> str:
    """One line about what a call carries (for a policy review): its arguments as JSON, its
    text, or how many messages it sends, shortened."""
    if isinstance(value, Mapping):
        text = json.dumps(value, default=str, ensure_ascii=False, sort_keys=True)
    elif isinstance(value, str):
        text = value
    elif isinstance(value, Sequence):
        text = f"{len(value)} messages"
    else:
        text = type(value).__name__
    return _short(text, 160)
